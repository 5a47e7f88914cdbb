//! Ops that combine values along axes: `SoftMax`/`LogSoftmax` and the `Reduce*` family.
use super::error::{OpError, refuse};
use super::tensor::{axis, count, extents, known_ints, strides, unflatten};
use super::tensor::{input, input_shape};
use crate::vocab::{Data, Fact, ReduceKind, Sym};

/// Softmax of one run of values in f64: `e^(x − max) / Σ e^(x − max)` (or its log).
pub fn softmax(xs: &[f64], log: bool) -> Vec<f64> {
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = xs.iter().map(|x| (x - max).exp()).sum();
    xs.iter().map(|x| if log { x - max - sum.ln() } else { (x - max).exp() / sum }).collect()
}

/// The ops of this family, as [`infer`] takes them.
#[derive(Clone, Copy, Debug)]
pub(super) enum Along {
    /// `SoftMax` (`log`: `LogSoftmax`) along `axis`.
    Softmax { axis: i64, log: bool },
    /// A `Reduce*` over the axes of input 1.
    Reduce { kind: ReduceKind, keep_dims: bool },
}

pub(super) fn infer(op: Along, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    let x = input(ins, 0, "data")?;
    let shape = input_shape(ins, 0, "data")?;
    if !x.elem.is_float() && matches!(op, Along::Softmax { .. }) {
        return Err(refuse!("its input is {}; expected a float type", x.elem.name()));
    }
    match op {
        Along::Softmax { axis: a, log } => {
            let ax = axis(a, shape.len())?;
            let value = (|| {
                let v = x.value.as_ref()?.floats()?;
                let ext = extents(shape)?;
                shape[ax].size()?;
                // OpenVINO's CPU plugin and the formula part ways on +inf and NaN.
                if v.iter().any(|x| x.is_nan() || *x == f64::INFINITY) {
                    return Some(Err(OpError::Rule(
                        "its input, known at compile time, holds +inf or NaN, where OpenVINO's CPU plugin does not follow the softmax formula; cellc refuses it"
                            .to_owned(),
                    )));
                }
                let groups = along(&ext, &[ax]);
                let mut out = vec![0.0; v.len()];
                for g in groups {
                    let xs: Vec<f64> = g.iter().map(|&i| v[i]).collect();
                    for (&i, y) in g.iter().zip(softmax(&xs, log)) {
                        out[i] = x.elem.round(y);
                    }
                }
                Some(Ok(Data::Float(out)))
            })()
            .transpose()?;
            Ok(vec![Fact { elem: x.elem, shape: Some(shape.to_vec()), value }])
        }
        Along::Reduce { kind, keep_dims } => {
            let axes = known_ints(input(ins, 1, "axes")?.value.as_ref(), "the axes")?;
            let mut ax: Vec<usize> = axes.iter().map(|&a| axis(a, shape.len())).collect::<Result<_, _>>()?;
            ax.sort_unstable();
            ax.dedup();
            let arg = matches!(kind, ReduceKind::Arg { .. });
            if arg && ax.len() != 1 {
                return Err(refuse!("ArgMax and ArgMin reduce one axis; {} given", ax.len()));
            }
            if arg && shape[ax[0]].value() == Some(0) {
                return Err(refuse!("the axis has no values, whose extreme has no index"));
            }
            let elem = if arg { crate::vocab::Elem::I64 } else { x.elem };
            let out: Vec<Sym> = (0..shape.len())
                .filter_map(|i| match (ax.contains(&i), keep_dims) {
                    (false, _) => Some(shape[i]),
                    (true, true) => Some(Sym::known(1)),
                    (true, false) => None,
                })
                .collect();
            let value = (|| {
                let ext = extents(shape)?;
                if ax.iter().any(|&a| !shape[a].is_known()) {
                    return None;
                }
                let groups = along(&ext, &ax);
                if arg {
                    let v = x.value.as_ref()?.floats()?;
                    let idx = |g: &Vec<usize>| kind.apply(&g.iter().map(|&i| v[i]).collect::<Vec<_>>()) as i64;
                    return Some(Data::Int(groups.iter().map(|g| Sym::known(idx(g))).collect()));
                }
                match x.value.as_ref()? {
                    Data::Float(v) => Some(Data::Float(
                        groups
                            .iter()
                            .map(|g| x.elem.round(kind.apply(&g.iter().map(|&i| v[i]).collect::<Vec<_>>())))
                            .collect(),
                    )),
                    Data::Int(v) if kind == ReduceKind::Prod || kind == ReduceKind::Sum => {
                        let f = |acc: Sym, s: Sym| {
                            if kind == ReduceKind::Prod { acc.checked_mul(s) } else { acc.checked_add(s) }
                        };
                        let init = Sym::known(i64::from(kind == ReduceKind::Prod));
                        groups
                            .iter()
                            .map(|g| g.iter().try_fold(init, |a, &i| f(a, v[i])))
                            .collect::<Option<_>>()
                            .map(Data::Int)
                    }
                    Data::Int(_) => None,
                }
            })();
            Ok(vec![Fact { elem, shape: Some(out), value }])
        }
    }
}

/// The stored indices of each group of values that differ only along `axes`, groups in
/// row-major order of the other axes.
fn along(ext: &[usize], axes: &[usize]) -> Vec<Vec<usize>> {
    let st = strides(ext);
    let outer: Vec<usize> = ext.iter().enumerate().map(|(i, &e)| if axes.contains(&i) { 1 } else { e }).collect();
    let inner: Vec<usize> = ext.iter().enumerate().map(|(i, &e)| if axes.contains(&i) { e } else { 1 }).collect();
    let (mut o, mut n) = (vec![0; ext.len()], vec![0; ext.len()]);
    (0..count(&outer))
        .map(|i| {
            unflatten(i, &outer, &mut o);
            (0..count(&inner))
                .map(|j| {
                    unflatten(j, &inner, &mut n);
                    (0..ext.len()).map(|k| (o[k] + n[k]) * st[k]).sum()
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Op;
    use crate::ops::infer;
    use crate::vocab::Elem;

    #[test]
    fn softmax_and_reductions_fold() {
        let k = Sym::known;
        let x = Fact::constant(Elem::F64, vec![k(2), k(2)], Data::Float(vec![0.0, 0.0, 1.0, 3.0]));
        let s = &infer(&Op::Softmax { axis: -1, log: false }, &[Some(&x)], 1).expect("infers")[0];
        let Some(Data::Float(v)) = &s.value else { panic!("not folded") };
        assert_eq!(v[..2], [0.5, 0.5]);
        assert!((v[3] - 1.0 / (1.0 + (-2.0f64).exp())).abs() < 1e-15);
        let axes = Fact::constant(Elem::I64, vec![k(1)], Data::Int(vec![k(0)]));
        let r = &infer(&Op::Reduce { kind: ReduceKind::Sum, keep_dims: false }, &[Some(&x), Some(&axes)], 1)
            .expect("infers")[0];
        assert_eq!(r.value, Some(Data::Float(vec![1.0, 3.0])));
        let shape = Fact::constant(Elem::I64, vec![k(2)], Data::Int(vec![Sym::symbol(0), k(4)]));
        let p = &infer(&Op::Reduce { kind: ReduceKind::Prod, keep_dims: true }, &[Some(&shape), Some(&axes)], 1)
            .expect("infers")[0];
        assert_eq!(p.value, Some(Data::Int(vec![Sym { c: 0, k: 4, s: 0 }])));
    }
}
