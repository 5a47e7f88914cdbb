//! Normalisations: `MVN` (opset 6, what OpenVINO makes of LayerNorm and InstanceNorm),
//! `NormalizeL2` and `BatchNormInference`. `passes::lower` rewrites each into reductions and
//! elementwise ops; their values on constants are computed here.
use super::error::{OpError, refuse};
use super::tensor::{axis, count, extents, known_ints, unflatten};
use super::tensor::{input, input_shape};
use crate::vocab::{Data, Fact};

/// The attributes of an `MVN`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MvnAttrs {
    /// Divide by the standard deviation too.
    pub normalize_variance: bool,
    /// `eps`.
    pub eps: f64,
    /// `eps_mode` `inside_sqrt` (else `outside_sqrt`).
    pub inside: bool,
}

/// How `NormalizeL2` joins `eps` to the sum of squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EpsMode {
    /// `max(Σx², eps)`.
    Max,
    /// `Σx² + eps`.
    Add,
}

/// The normalisation ops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Norm {
    /// `MVN`: the axes as input 1.
    Mvn(MvnAttrs),
    /// `NormalizeL2`: `x / √(Σx² ∘ eps)` over the axes of input 1.
    L2 {
        /// `eps`.
        eps: f64,
        /// `eps_mode`.
        mode: EpsMode,
    },
    /// `BatchNormInference` (opset 5): `gamma·(x − mean)/√(var + eps) + beta` along axis 1
    /// (inputs: data, gamma, beta, mean, variance).
    Batch {
        /// `epsilon`.
        eps: f64,
    },
}

/// The axes of input 1 as a set over `rank` axes.
pub(crate) fn axes_of(ins: &[Option<&Fact>], rank: usize) -> Result<Vec<bool>, OpError> {
    let axes = known_ints(input(ins, 1, "axes")?.value.as_ref(), "the axes")?;
    let mut set = vec![false; rank];
    for a in axes {
        let a = axis(a, rank)?;
        if std::mem::replace(&mut set[a], true) {
            return Err(refuse!("axis {a} is given twice"));
        }
    }
    Ok(set)
}

/// For each value of a tensor of extents `ext`, the group it is normalised with (the
/// values that agree on every axis not in `set`).
fn groups(ext: &[usize], set: &[bool]) -> Vec<usize> {
    let mut idx = vec![0; ext.len()];
    (0..count(ext))
        .map(|i| {
            unflatten(i, ext, &mut idx);
            idx.iter().zip(ext).zip(set).fold(0, |g, ((&x, &e), &r)| if r { g } else { g * e + x })
        })
        .collect()
}

/// The per-channel scale and shift of a batch normalisation.
pub fn batch_scale_shift(eps: f64, gamma: &[f64], beta: &[f64], mean: &[f64], var: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let scale: Vec<f64> = gamma.iter().zip(var).map(|(g, v)| g / (v + eps).sqrt()).collect();
    let shift = beta.iter().zip(mean).zip(&scale).map(|((b, m), s)| b - m * s).collect();
    (scale, shift)
}

pub(super) fn infer(n: &Norm, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    let x = input(ins, 0, "data")?;
    let shape = input_shape(ins, 0, "data")?;
    if !x.elem.is_float() {
        return Err(refuse!("its input is {}; expected a float type", x.elem.name()));
    }
    let value = match *n {
        Norm::Mvn(_) | Norm::L2 { .. } => {
            let set = axes_of(ins, shape.len())?;
            (|| {
                let v = x.value.as_ref()?.floats()?;
                if shape.iter().any(|d| !d.is_known()) {
                    return None;
                }
                let g = groups(&extents(shape)?, &set);
                let n_groups = g.iter().max().map_or(0, |m| m + 1);
                let mut members = vec![Vec::new(); n_groups];
                for (i, &k) in g.iter().enumerate() {
                    members[k].push(v[i]);
                }
                let scale: Vec<(f64, f64)> = members
                    .iter()
                    .map(|xs| {
                        let len = xs.len().max(1) as f64;
                        match *n {
                            Norm::Mvn(a) => {
                                let mean = xs.iter().sum::<f64>() / len;
                                if !a.normalize_variance {
                                    return (mean, 1.0);
                                }
                                let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / len;
                                (mean, if a.inside { (var + a.eps).sqrt() } else { var.sqrt() + a.eps })
                            }
                            Norm::L2 { eps, mode } => {
                                let ss = xs.iter().map(|x| x * x).sum::<f64>();
                                (0.0, if mode == EpsMode::Max { ss.max(eps) } else { ss + eps }.sqrt())
                            }
                            Norm::Batch { .. } => (0.0, 1.0),
                        }
                    })
                    .collect();
                Some(Data::Float(
                    v.iter().zip(&g).map(|(xv, &k)| x.elem.round((xv - scale[k].0) / scale[k].1)).collect(),
                ))
            })()
        }
        Norm::Batch { eps } => {
            if shape.len() < 2 {
                return Err(refuse!("the data has rank {}; expected [N, C, …]", shape.len()));
            }
            let c = shape[1].value().ok_or_else(|| refuse!("the channels must be known at compile time"))?;
            let mut params = Vec::new();
            for (i, what) in [(1, "gamma"), (2, "beta"), (3, "mean"), (4, "variance")] {
                let f = input(ins, i, what)?;
                if f.known_len() != Some(c as usize) {
                    return Err(refuse!("{what} (input {i}) must hold one value for each of the {c} channels"));
                }
                params.push(f.value.as_ref().and_then(Data::floats));
            }
            (|| {
                let v = x.value.as_ref()?.floats()?;
                let p: Vec<Vec<f64>> = params.into_iter().collect::<Option<_>>()?;
                let (scale, shift) = batch_scale_shift(eps, &p[0], &p[1], &p[2], &p[3]);
                let ext = extents(shape)?;
                let inner: usize = ext[2..].iter().product();
                let c = c as usize;
                Some(Data::Float(
                    v.iter()
                        .enumerate()
                        .map(|(i, &xv)| {
                            let ch = (i / inner.max(1)) % c;
                            x.elem.round(xv * scale[ch] + shift[ch])
                        })
                        .collect(),
                ))
            })()
        }
    };
    Ok(vec![Fact { elem: x.elem, shape: Some(shape.to_vec()), value }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Op;
    use crate::ops::infer;
    use crate::vocab::{Elem, Sym};

    fn ints(v: &[i64]) -> Fact {
        Fact::constant(
            Elem::I64,
            vec![Sym::known(v.len() as i64)],
            Data::Int(v.iter().map(|&x| Sym::known(x)).collect()),
        )
    }

    #[test]
    fn a_folded_mvn_leaves_each_group_with_mean_zero_and_variance_one() {
        let k = Sym::known;
        let v: Vec<f64> = (0..24).map(|i| f64::from(i * i % 7) - 2.5).collect();
        let x = Fact { elem: Elem::F64, ..Fact::constant(Elem::F64, vec![k(2), k(3), k(4)], Data::Float(v)) };
        let op = Op::Norm(Norm::Mvn(MvnAttrs { normalize_variance: true, eps: 0.0, inside: true }));
        let y = &infer(&op, &[Some(&x), Some(&ints(&[0, 2]))], 1).expect("infers")[0];
        let y = y.value.as_ref().and_then(Data::floats).expect("folded");
        // Groups share the index along axis 1.
        for c in 0..3 {
            let g: Vec<f64> = (0..24).filter(|i| (i / 4) % 3 == c).map(|i| y[i]).collect();
            let mean = g.iter().sum::<f64>() / 8.0;
            let var = g.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 8.0;
            assert!(mean.abs() < 1e-12 && (var - 1.0).abs() < 1e-12, "channel {c}: {mean} {var}");
        }
    }

    #[test]
    fn batch_normalisation_maps_the_mean_to_beta() {
        let (scale, shift) = batch_scale_shift(0.0, &[2.0, 3.0], &[0.5, -1.0], &[1.0, -2.0], &[4.0, 9.0]);
        for c in 0..2 {
            let at_mean = [1.0, -2.0][c] * scale[c] + shift[c];
            assert!((at_mean - [0.5, -1.0][c]).abs() < 1e-12);
        }
        assert_eq!(scale, [1.0, 1.0]);
    }
}
