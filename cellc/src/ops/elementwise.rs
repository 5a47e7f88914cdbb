//! Elementwise ops: functions of one tensor ([`Unary`]), of two with numpy broadcasting
//! ([`Binary`], [`crate::vocab::Compare`]), and `Select`: their shapes and their folding
//! on constants, by the f64 definitions of [`crate::vocab`], which the reference
//! interpreter shares.
use super::error::{OpError, refuse};
use super::tensor::{broadcast, broadcast_map, extents};
use super::tensor::{input, input_shape};
use crate::vocab::{Binary, Compare, Data, Elem, Fact, Sym, Unary};

/// Elementwise functions whose parameters come as inputs (`HardSigmoid`'s α and β,
/// `Swish`'s β, `Selu`'s α and λ): once the fold pass knows them, each is a [`Unary`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parametric {
    /// `HardSigmoid(x, alpha, beta)`.
    HardSigmoid,
    /// `Swish(x, beta)`.
    Swish,
    /// `Selu(x, alpha, lambda)`.
    Selu,
}

impl Parametric {
    /// The function with its parameters (inputs 1, 2, … in order), when they are the ones
    /// it takes.
    pub fn with(self, p: &[f64]) -> Option<Unary> {
        match (self, p) {
            (Parametric::HardSigmoid, &[alpha, beta]) => Some(Unary::HardSigmoid { alpha, beta }),
            (Parametric::Swish, &[beta]) => Some(Unary::Swish { beta }),
            (Parametric::Selu, &[alpha, lambda]) => Some(Unary::Selu { alpha, lambda }),
            _ => None,
        }
    }

    /// The names of its parameters, for messages.
    pub fn params(self) -> &'static str {
        match self {
            Parametric::HardSigmoid => "alpha and beta",
            Parametric::Swish => "beta",
            Parametric::Selu => "alpha and lambda",
        }
    }
}

/// The parameters of a [`Parametric`] op: its inputs after the first, each one known value.
pub fn parameters(ins: &[Option<&Fact>]) -> Option<Vec<f64>> {
    ins.iter()
        .skip(1)
        .map(|f| match (*f)?.value.as_ref()?.floats()?.as_slice() {
            &[v] => Some(v),
            _ => None,
        })
        .collect()
}

/// The shape a `PRelu`'s slope broadcasts as, when OpenVINO's rule for it differs from
/// numpy's: a 1-D slope as long as axis 1 of data of rank 3 or more applies per channel,
/// as `[C, 1, …, 1]` would (whatever the other axes' lengths: the last one may be `C`
/// too); otherwise `None`, and numpy's rules apply to the slope as it is.
pub fn prelu_slope(data: &[Sym], slope: &[Sym]) -> Option<Vec<Sym>> {
    match (data, slope) {
        ([_, c, rest @ ..], [s]) if s == c && !rest.is_empty() => {
            let mut v = vec![*s];
            v.extend(std::iter::repeat_n(Sym::known(1), rest.len()));
            Some(v)
        }
        _ => None,
    }
}

/// The ops of this family, as [`infer`] takes them.
#[derive(Clone, Copy, Debug)]
pub(super) enum Elementwise {
    /// A function of one tensor.
    Unary(Unary),
    /// A function of one tensor with its parameters as inputs.
    Parametric(Parametric),
    /// A function of two tensors, broadcast.
    Binary(Binary),
    /// A comparison of two tensors, broadcast.
    Compare(Compare),
    /// `Select`.
    Select,
}

pub(super) fn infer(op: Elementwise, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    let a = input(ins, 0, "a")?;
    let sa = input_shape(ins, 0, "a")?;
    match op {
        Elementwise::Unary(u) => {
            let value = a.value.as_ref().and_then(|v| unary(u, a.elem, v));
            Ok(vec![Fact { elem: a.elem, shape: Some(sa.to_vec()), value }])
        }
        Elementwise::Parametric(p) => {
            if !a.elem.is_float() {
                return Err(refuse!("its input is {}; expected a float type", a.elem.name()));
            }
            let u = parameters(ins).and_then(|v| p.with(&v));
            let value = a.value.as_ref().zip(u).and_then(|(v, u)| unary(u, a.elem, v));
            Ok(vec![Fact { elem: a.elem, shape: Some(sa.to_vec()), value }])
        }
        Elementwise::Binary(f) => {
            let b = input(ins, 1, "b")?;
            let sb = input_shape(ins, 1, "b")?;
            let sb = if f == Binary::PRelu { prelu_slope(sa, sb).unwrap_or_else(|| sb.to_vec()) } else { sb.to_vec() };
            if a.elem != b.elem {
                return Err(refuse!(
                    "its inputs are {} and {}; expected one element type",
                    a.elem.name(),
                    b.elem.name()
                ));
            }
            let out = broadcast(sa, &sb)?;
            let value = both(a, b, sa, &sb, &out, |x, y| {
                Some(match (x, y) {
                    (Val::F(x), Val::F(y)) => Val::F(a.elem.round(f.apply(x, y))),
                    (Val::I(x), Val::I(y)) => Val::I(f.apply_sym(x, y).and_then(|s| wrap(a.elem, s))?),
                    _ => return None,
                })
            });
            if value.is_none()
                && let Some(why) = int_fault(f, a, b, sa, &sb, &out)
            {
                return Err(OpError::Rule(why));
            }
            Ok(vec![Fact { elem: a.elem, shape: Some(out), value }])
        }
        Elementwise::Compare(c) => {
            let b = input(ins, 1, "b")?;
            let sb = input_shape(ins, 1, "b")?;
            let out = broadcast(sa, sb)?;
            let value = both(a, b, sa, sb, &out, |x, y| {
                Some(match (x, y) {
                    (Val::F(x), Val::F(y)) => Val::I(Sym::known(c.apply(x, y) as i64)),
                    (Val::I(x), Val::I(y)) => Val::I(c.apply_sym(x, y)?),
                    _ => return None,
                })
            });
            Ok(vec![Fact { elem: Elem::Bool, shape: Some(out), value }])
        }
        Elementwise::Select => {
            let (t, e) = (input(ins, 1, "then")?, input(ins, 2, "else")?);
            let (st, se) = (input_shape(ins, 1, "then")?, input_shape(ins, 2, "else")?);
            let out = broadcast(&broadcast(sa, st)?, se)?;
            let value = (|| {
                let ext = extents(&out)?;
                let pick = |s: &[Sym]| -> Option<Vec<usize>> { Some(broadcast_map(&extents(s)?, &ext)) };
                let (mc, mt, me) = (pick(sa)?, pick(st)?, pick(se)?);
                let cond = a.value.as_ref()?.known_ints()?;
                let idx: Vec<(bool, usize)> =
                    (0..mc.len()).map(|i| if cond[mc[i]] != 0 { (true, mt[i]) } else { (false, me[i]) }).collect();
                match (t.value.as_ref()?, e.value.as_ref()?) {
                    (Data::Float(x), Data::Float(y)) => {
                        Some(Data::Float(idx.iter().map(|&(w, i)| if w { x[i] } else { y[i] }).collect()))
                    }
                    (Data::Int(x), Data::Int(y)) => {
                        Some(Data::Int(idx.iter().map(|&(w, i)| if w { x[i] } else { y[i] }).collect()))
                    }
                    _ => None,
                }
            })();
            if t.elem != e.elem {
                return Err(refuse!(
                    "its branches are {} and {}; expected one element type",
                    t.elem.name(),
                    e.elem.name()
                ));
            }
            Ok(vec![Fact { elem: t.elem, shape: Some(out), value }])
        }
    }
}

/// Why a binary op on constant whole numbers has no value: a division by zero or a result
/// outside i64 (no run time could compute it either).
fn int_fault(f: Binary, a: &Fact, b: &Fact, sa: &[Sym], sb: &[Sym], out: &[Sym]) -> Option<String> {
    let (Data::Int(x), Data::Int(y)) = (a.value.as_ref()?, b.value.as_ref()?) else { return None };
    let ext = extents(out)?;
    let (ma, mb) = (broadcast_map(&extents(sa)?, &ext), broadcast_map(&extents(sb)?, &ext));
    for (&i, &j) in ma.iter().zip(&mb) {
        let (Some(p), Some(q)) = (x[i].value(), y[j].value()) else { continue };
        if f.apply_sym(Sym::known(p), Sym::known(q)).is_some() {
            continue;
        }
        return Some(match f {
            Binary::Divide { .. } | Binary::Mod { .. } if q == 0 => {
                format!("divides {p} by zero in constant {} values; cellc refuses a division by zero", a.elem.name())
            }
            _ => format!("overflows on {p} and {q} in constant {} values; cellc refuses it", a.elem.name()),
        });
    }
    None
}

fn wrap(elem: Elem, s: Sym) -> Option<Sym> {
    if s.is_known() { elem.wrap(s.c).map(Sym::known) } else { Some(s) }
}

fn unary(u: Unary, elem: Elem, v: &Data) -> Option<Data> {
    match v {
        Data::Float(x) => Some(Data::Float(x.iter().map(|&x| elem.round(u.apply(x))).collect())),
        Data::Int(x) if u.on_ints() => x
            .iter()
            .map(|s| {
                let r = u.apply(s.value()? as f64);
                let r = if elem.is_float() { r } else { r.trunc() };
                (r.abs() < 9.0e15).then(|| Sym::known(r as i64)).and_then(|s| wrap(elem, s))
            })
            .collect::<Option<Vec<_>>>()
            .map(Data::Int),
        Data::Int(_) => None,
    }
}

/// One value of either kind.
#[derive(Clone, Copy)]
enum Val {
    F(f64),
    I(Sym),
}

/// Applies `f` to the broadcast values of two constants.
fn both(a: &Fact, b: &Fact, sa: &[Sym], sb: &[Sym], out: &[Sym], f: impl Fn(Val, Val) -> Option<Val>) -> Option<Data> {
    let (va, vb) = (a.value.as_ref()?, b.value.as_ref()?);
    let ext = extents(out)?;
    let (ma, mb) = (broadcast_map(&extents(sa)?, &ext), broadcast_map(&extents(sb)?, &ext));
    let get = |v: &Data, i: usize| match v {
        Data::Float(x) => Val::F(x[i]),
        Data::Int(x) => Val::I(x[i]),
    };
    let vals: Vec<Val> = ma.iter().zip(&mb).map(|(&i, &j)| f(get(va, i), get(vb, j))).collect::<Option<_>>()?;
    Some(match vals.first() {
        Some(Val::I(_)) => Data::Int(vals.iter().map(|v| if let Val::I(s) = v { *s } else { Sym::known(0) }).collect()),
        _ => Data::Float(vals.iter().map(|v| if let Val::F(x) = v { *x } else { 0.0 }).collect()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Op;
    use crate::ops::infer;
    use crate::vocab::Compare;

    #[test]
    fn binary_ops_broadcast_and_fold() {
        let k = Sym::known;
        let a = Fact::constant(Elem::F32, vec![k(2), k(1)], Data::Float(vec![1.0, -2.0]));
        let b = Fact::constant(Elem::F32, vec![k(3)], Data::Float(vec![0.5, 1.0, 0.1]));
        let s = &infer(&Op::Binary(Binary::Add), &[Some(&a), Some(&b)], 1).expect("infers")[0];
        assert_eq!(s.shape, Some(vec![k(2), k(3)]));
        let Some(Data::Float(v)) = &s.value else { panic!("not folded") };
        assert_eq!(v[2], (1.0f32 + 0.1f32) as f64);
        assert_eq!(v[3], -1.5);
        let n = Fact::constant(Elem::I64, vec![k(1)], Data::Int(vec![Sym::symbol(0)]));
        let z = Fact::constant(Elem::I64, vec![], Data::Int(vec![k(0)]));
        let e = &infer(&Op::Compare(Compare::Equal), &[Some(&n), Some(&z)], 1).expect("infers")[0];
        assert_eq!(e.value, Some(Data::Int(vec![k(0)])));
        let m = &infer(&Op::Binary(Binary::Multiply), &[Some(&n), Some(&n)], 1).expect("infers")[0];
        assert_eq!(m.value, None);
        let bad = Fact::new(Elem::F32, vec![k(4)]);
        assert!(infer(&Op::Binary(Binary::Add), &[Some(&a), Some(&bad)], 1).is_ok());
        assert!(infer(&Op::Binary(Binary::Add), &[Some(&b), Some(&bad)], 1).is_err());
    }
}
