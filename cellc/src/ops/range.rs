//! `Range`: the numbers from a start, below a limit, a step apart. How many there are
//! depends on the inputs' values, so cellc computes it at compile time only: its inputs
//! must be constants (a `Range` over a dynamic dimension is refused naming it).
use super::error::{OpError, refuse};
use super::tensor::{input, known_ints};
use crate::limits::MAX_FOLDED_ELEMENTS;
use crate::vocab::{Data, Elem, Fact, Sym};

/// What the op calls its inputs: ONNX's start, limit and delta are OpenVINO's start, stop
/// and step.
const INPUTS: [&str; 3] = ["start", "limit", "delta"];

/// The output: `[n]` values `start + i·delta` for `n = max(⌈(limit − start) / delta⌉, 0)`,
/// of type `out` (OpenVINO's `Range`-4 `output_type`), or of the start's type.
pub(super) fn infer(out: Option<Elem>, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    let facts = INPUTS.iter().enumerate().map(|(k, w)| input(ins, k, w)).collect::<Result<Vec<_>, _>>()?;
    let elem = out.unwrap_or(facts[0].elem);
    for (f, what) in facts.iter().zip(INPUTS) {
        if f.known_len().is_some_and(|n| n != 1) {
            return Err(refuse!("{what} holds {} values; expected one", f.known_len().unwrap_or(0)));
        }
        if f.value.is_none() {
            return Err(OpError::NotConstant { what: what.to_owned() });
        }
    }
    let too_many = |n: f64| refuse!("gives {n} values; cellc computes a Range of at most {MAX_FOLDED_ELEMENTS}");
    let value = if elem.is_float() {
        let v: Vec<f64> = facts
            .iter()
            .zip(INPUTS)
            .map(|(f, what)| {
                let x = f.value.as_ref().and_then(Data::floats).and_then(|v| v.first().copied());
                x.ok_or_else(|| OpError::Dynamic { what: what.to_owned(), dim: dynamic_dim(f) })
            })
            .collect::<Result<_, _>>()?;
        let (start, limit, delta) = (v[0], v[1], v[2]);
        if delta == 0.0 || !delta.is_finite() || !start.is_finite() || !limit.is_finite() {
            return Err(refuse!(
                "start {start}, limit {limit} and delta {delta}; expected finite numbers, delta not 0"
            ));
        }
        let n = ((limit - start) / delta).ceil().max(0.0);
        if n > MAX_FOLDED_ELEMENTS as f64 {
            return Err(too_many(n));
        }
        Data::Float((0..n as u64).map(|i| elem.round(start + i as f64 * delta)).collect())
    } else {
        let mut v = [0i64; 3];
        for ((f, what), slot) in facts.iter().zip(INPUTS).zip(&mut v) {
            *slot = known_ints(f.value.as_ref(), what)?.first().copied().unwrap_or(0);
        }
        let [start, limit, delta] = v;
        if delta == 0 {
            return Err(refuse!("the delta is 0; expected a step other than 0"));
        }
        // ⌈(limit − start) / delta⌉ in i128, where no i64 inputs overflow: the quotient
        // truncated, then one more when there is a remainder and it was positive.
        let (span, d) = (i128::from(limit) - i128::from(start), i128::from(delta));
        let n = (span / d + i128::from(span % d != 0 && (span < 0) == (d < 0))).max(0);
        if n > i128::from(MAX_FOLDED_ELEMENTS) {
            return Err(too_many(n as f64));
        }
        // Each value lies between start and limit, so fits an i64.
        Data::Int((0..n).map(|i| Sym::known((i128::from(start) + i * d) as i64)).collect())
    };
    Ok(vec![Fact::constant(elem, vec![Sym::known(value.len() as i64)], value)])
}

/// The first symbol a value of `f` depends on, for the message that names it.
fn dynamic_dim(f: &Fact) -> Sym {
    match &f.value {
        Some(Data::Int(v)) => v.iter().copied().find(|s| s.value().is_none()).unwrap_or(Sym::known(0)),
        _ => Sym::known(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Fact {
        Fact::constant(Elem::I64, vec![], Data::Int(v.iter().map(|&x| Sym::known(x)).collect()))
    }

    fn range(start: i64, limit: i64, delta: i64) -> Vec<i64> {
        let (a, b, c) = (ints(&[start]), ints(&[limit]), ints(&[delta]));
        let f = infer(None, &[Some(&a), Some(&b), Some(&c)]).expect("a range");
        f[0].value.as_ref().and_then(Data::known_ints).expect("known")
    }

    #[test]
    fn whole_numbers_stop_before_the_limit_either_way() {
        assert_eq!(range(0, 5, 2), [0, 2, 4]);
        assert_eq!(range(0, 6, 2), [0, 2, 4]);
        assert_eq!(range(5, -1, -2), [5, 3, 1]);
        assert_eq!(range(-5, 0, 2), [-5, -3, -1]);
        assert_eq!(range(3, 1, 1), Vec::<i64>::new());
        assert_eq!(range(1, 3, -1), Vec::<i64>::new());
        assert_eq!(range(i64::MIN, i64::MIN + 3, 2), [i64::MIN, i64::MIN + 2]);
    }

    #[test]
    fn floats_are_rounded_to_their_type_and_bad_steps_refused() {
        let f = |v: f64| Fact::constant(Elem::F32, vec![], Data::Float(vec![v]));
        let (a, b, c) = (f(0.5), f(1.0), f(0.125));
        let out = infer(None, &[Some(&a), Some(&b), Some(&c)]).expect("a range");
        assert_eq!(out[0].value, Some(Data::Float(vec![0.5, 0.625, 0.75, 0.875])));
        let zero = f(0.0);
        let err = infer(None, &[Some(&a), Some(&b), Some(&zero)]).expect_err("a zero step");
        assert!(err.to_string().contains("delta not 0"), "{err}");
        let (s, l, d) = (ints(&[0]), ints(&[i64::MAX]), ints(&[1]));
        let err = infer(None, &[Some(&s), Some(&l), Some(&d)]).expect_err("too long");
        assert!(err.to_string().contains("at most"), "{err}");
        let unknown = Fact::new(Elem::I64, vec![]);
        let err = infer(None, &[Some(&s), Some(&unknown), Some(&d)]).expect_err("run time");
        assert!(err.to_string().contains("limit must be a constant"), "{err}");
    }
}
