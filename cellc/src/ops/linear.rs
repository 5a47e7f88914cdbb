//! `MatMul`: numpy's `matmul` with optional transposes of the last two axes of either
//! side; a 1-D side is a row (left) or a column (right) that the output drops again.
use super::error::{OpError, refuse};
use super::tensor::{broadcast, broadcast_map, count, extents, show, strides, unflatten};
use super::tensor::{input, input_shape};
use crate::vocab::Unary;
use crate::vocab::{Data, Fact, Sym};

/// What a dense layer applies after its bias.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DenseAct {
    /// An activation.
    Unary(Unary),
    /// `y` if `y ≥ 0`, else `slope[j]·y`: a PReLU of one slope per output, the slope the
    /// layer's fourth input (`N` values along the last axis, as the bias).
    PRelu,
}

/// How a `MatMul` multiplies: the broadcast batch shape and the matrix sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct MatMulShape {
    /// `a` as a `[batch…, M, K]` matrix stack (after its transpose).
    pub a: Vec<Sym>,
    /// `b` as `[batch…, K, N]`.
    pub b: Vec<Sym>,
    /// Broadcast batch dimensions.
    pub batch: Vec<Sym>,
    /// Rows of the product.
    pub m: Sym,
    /// Contraction length.
    pub k: Sym,
    /// Columns of the product.
    pub n: Sym,
    /// The output shape (1-D sides' axes dropped).
    pub out: Vec<Sym>,
}

/// The shapes a `MatMul` works on.
pub fn matmul_shape(sa: &[Sym], sb: &[Sym], ta: bool, tb: bool) -> Result<MatMulShape, OpError> {
    if sa.is_empty() || sb.is_empty() {
        return Err(OpError::Rule("MatMul needs inputs of rank 1 or more".to_owned()));
    }
    let one = Sym::known(1);
    let mut a = sa.to_vec();
    let mut b = sb.to_vec();
    let (a_vec, b_vec) = (a.len() == 1, b.len() == 1);
    if a_vec {
        a.insert(0, one);
    } else if ta {
        let r = a.len();
        a.swap(r - 1, r - 2);
    }
    if b_vec {
        b.push(one);
    } else if tb {
        let r = b.len();
        b.swap(r - 1, r - 2);
    }
    let (ra, rb) = (a.len(), b.len());
    let (m, k, k2, n) = (a[ra - 2], a[ra - 1], b[rb - 2], b[rb - 1]);
    if k.equals(k2) == Some(false) || (!k.is_known() && k != k2) {
        return Err(refuse!("the inner dimensions of {} and {} differ ({k} and {k2})", show(sa), show(sb)));
    }
    let batch = broadcast(&a[..ra - 2], &b[..rb - 2])?;
    let mut out = batch.clone();
    if !a_vec {
        out.push(m);
    }
    if !b_vec {
        out.push(n);
    }
    Ok(MatMulShape { a, b, batch, m, k, n, out })
}

/// The facts of a `MatMul` (`ta`, `tb`: `transpose_a`, `transpose_b`).
pub(super) fn matmul(ta: bool, tb: bool, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    let (fa, fb) = (input(ins, 0, "a")?, input(ins, 1, "b")?);
    let (sa, sb) = (input_shape(ins, 0, "a")?, input_shape(ins, 1, "b")?);
    if fa.elem != fb.elem || !fa.elem.is_float() {
        return Err(refuse!("its inputs are {} and {}; expected one float type", fa.elem.name(), fb.elem.name()));
    }
    let s = matmul_shape(sa, sb, ta, tb)?;
    let value = (|| {
        let (va, vb) = (fa.value.as_ref()?.floats()?, fb.value.as_ref()?.floats()?);
        let (ea, eb) = (extents(sa)?, extents(sb)?);
        // Plain index maps of a and b in their matrix-stack forms.
        let (ma, mb) = (matrix_map(&ea, sa.len() == 1, ta), matrix_map(&eb, sb.len() == 1, tb));
        let (xa, xb) = (extents(&s.a)?, extents(&s.b)?);
        let (m, k, n) = (s.m.size()? as usize, s.k.size()? as usize, s.n.size()? as usize);
        let bext = extents(&s.batch)?;
        let (pa, pb) = (broadcast_map(&xa[..xa.len() - 2], &bext), broadcast_map(&xb[..xb.len() - 2], &bext));
        let mut out = Vec::with_capacity(count(&bext) * m * n);
        for bi in 0..count(&bext) {
            for i in 0..m {
                for j in 0..n {
                    let acc: f64 =
                        (0..k).map(|q| va[ma[(pa[bi] * m + i) * k + q]] * vb[mb[(pb[bi] * k + q) * n + j]]).sum();
                    out.push(fa.elem.round(acc));
                }
            }
        }
        Some(Data::Float(out))
    })();
    Ok(vec![Fact { elem: fa.elem, shape: Some(s.out), value }])
}

/// The facts of a `Dense`: its product's, with the bias added along the last axis and the
/// activation applied to a known value.
pub(super) fn dense(
    tb: bool,
    act: Option<DenseAct>,
    (win, planar, groups): (Option<&crate::vocab::Windows>, bool, usize),
    ins: &[Option<&Fact>],
) -> Result<Vec<Fact>, OpError> {
    let w = input_shape(ins, 1, "w")?;
    if w.len() != 2 {
        return Err(refuse!("a dense layer's weights are a matrix; got {}", show(w)));
    }
    if groups != 1 && (win.is_none() || !planar) {
        return Err(refuse!("a dense layer in groups reads windows laid out channels first"));
    }
    // Over windows read in place: the product of the windows the data makes.
    let windows = match win {
        Some(win) => {
            let x = input(ins, 0, "x")?;
            let (shape, value) =
                super::pad::windows(win, (planar, groups), input_shape(ins, 0, "x")?, x.value.as_ref())?;
            Some(Fact { elem: x.elem, shape: Some(shape), value })
        }
        None => None,
    };
    let mut facts = match &windows {
        Some(x) if groups > 1 => vec![grouped(tb, groups, x, input(ins, 1, "w")?)?],
        Some(x) => matmul(false, tb, &[Some(x), ins.get(1).copied().flatten()])?,
        None => matmul(false, tb, &ins[..2.min(ins.len())])?,
    };
    let n = w[if tb { 0 } else { 1 }];
    // The bias holds one value per output; the slope that, or one for all.
    let per_output = |i: usize, what: &str| match ins.get(i).copied().flatten() {
        Some(b) => {
            let len = b.known_len().ok_or_else(|| refuse!("the {what}'s shape is not known"))?;
            if n.value() != Some(len as i64) && !(i == 3 && len == 1) {
                return Err(refuse!("the {what} has {len} values for {n} outputs"));
            }
            Ok(Some(b))
        }
        None => Ok(None),
    };
    let bias = per_output(2, "bias")?;
    let slope = per_output(3, "slope")?;
    if (act == Some(DenseAct::PRelu)) != slope.is_some() {
        return Err(refuse!("a dense layer has a slope exactly when its activation is a PReLU"));
    }
    let f = &mut facts[0];
    if let (Some(Data::Float(v)), Some(n)) = (f.value.as_mut(), n.size()) {
        let values = |b: Option<&Fact>| match b {
            Some(b) => b.value.as_ref().and_then(Data::floats),
            None => Some(vec![0.0; n as usize]),
        };
        match (values(bias), values(slope)) {
            (Some(b), Some(s)) if !b.is_empty() && !s.is_empty() => {
                for (i, x) in v.iter_mut().enumerate() {
                    let y = *x + b[i % b.len()];
                    let y = match act {
                        Some(DenseAct::Unary(a)) => a.apply(y),
                        Some(DenseAct::PRelu) => crate::vocab::Binary::PRelu.apply(y, s[i % s.len()]),
                        None => y,
                    };
                    *x = f.elem.round(y);
                }
            }
            _ => f.value = None,
        }
    }
    if planar && windows.is_some() {
        channels_first(f);
    }
    Ok(facts)
}

/// The product of windows `x` in groups (`[N, groups, positions, K]`) by `w` (`[n, K]`, or
/// `[K, n]` without `tb`), each output reading its group's: `[N, positions, n]`.
fn grouped(tb: bool, groups: usize, x: &Fact, w: &Fact) -> Result<Fact, OpError> {
    let (Some([e, _, p, k]), Some(ws)) = (x.shape.as_deref(), w.shape.as_deref()) else {
        return Err(refuse!("grouped windows of another shape"));
    };
    let (n, wk) = if tb { (ws[0], ws[1]) } else { (ws[1], ws[0]) };
    let m = n.size().map(|n| n as usize / groups);
    if wk != *k || m.is_none_or(|m| m == 0 || m * groups != n.size().unwrap_or(0) as usize) {
        return Err(refuse!("{} outputs over windows of {k} values in {groups} groups; weights {}", n, show(ws)));
    }
    let value = (|| {
        let (xv, wv) = (x.value.as_ref()?.floats()?, w.value.as_ref()?.floats()?);
        let (m, k, p, n) = (m?, k.size()? as usize, p.size()? as usize, n.size()? as usize);
        let at = |j: usize, q: usize| if tb { wv[j * k + q] } else { wv[q * n + j] };
        // Values past the tensor limit are left unknown rather than computed.
        let entry = groups.checked_mul(p)?.checked_mul(k)?;
        let entries = xv.len().checked_div(entry)?;
        let len = crate::limits::product([entries as u64, p as u64, n as u64])
            .filter(|&l| l <= crate::limits::MAX_TENSOR_ELEMENTS)?;
        if entries * entry != xv.len() || n.checked_mul(k) != Some(wv.len()) {
            return None;
        }
        let mut out = vec![0.0; len as usize];
        for (i, o) in out.iter_mut().enumerate() {
            let (e, q, j) = (i / (p * n), i / n % p, i % n);
            let row = &xv[((e * groups + j / m) * p + q) * k..][..k];
            *o = row.iter().enumerate().map(|(c, v)| v * at(j, c)).sum();
        }
        Some(Data::Float(out))
    })();
    Ok(Fact { elem: x.elem, shape: Some(vec![*e, *p, n]), value })
}

/// A dense layer's outputs `[N, positions, n]` laid out channels first, `[N, n, positions]`
/// (the planar kernel's).
fn channels_first(f: &mut Fact) {
    let Some([.., p, n]) = f.shape.as_deref() else { return };
    let (p, n) = (*p, *n);
    if let Some(s) = f.shape.as_mut() {
        let r = s.len();
        s.swap(r - 1, r - 2);
    }
    if let (Some(Data::Float(v)), Some(ps), Some(ns)) = (f.value.as_mut(), p.size(), n.size()) {
        let (ps, ns) = (ps as usize, ns as usize);
        let mut out = vec![0.0; v.len()];
        for (src, dst) in v.chunks_exact(ps * ns).zip(out.chunks_exact_mut(ps * ns)) {
            for p in 0..ps {
                for j in 0..ns {
                    dst[j * ps + p] = src[p * ns + j];
                }
            }
        }
        *v = out;
    }
}

/// For each element of an input seen as its `[batch…, rows, cols]` matrix stack (after its
/// transpose), the index of the stored value.
fn matrix_map(ext: &[usize], vector: bool, transpose: bool) -> Vec<usize> {
    if vector {
        return (0..count(ext)).collect();
    }
    let r = ext.len();
    let mut seen = ext.to_vec();
    if transpose {
        seen.swap(r - 1, r - 2);
    }
    let st = strides(ext);
    let mut idx = vec![0; r];
    (0..count(&seen))
        .map(|i| {
            unflatten(i, &seen, &mut idx);
            if transpose {
                idx.swap(r - 1, r - 2);
            }
            idx.iter().zip(&st).map(|(x, s)| x * s).sum()
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
    fn matmul_follows_numpy_with_transposes() {
        let k = Sym::known;
        let a = Fact::constant(Elem::F32, vec![k(2), k(3)], Data::Float((1..=6).map(f64::from).collect()));
        let b = Fact::constant(Elem::F32, vec![k(2), k(3)], Data::Float(vec![1.0, 0.0, 1.0, 0.0, 1.0, 0.0]));
        let p = &infer(&Op::MatMul { ta: false, tb: true }, &[Some(&a), Some(&b)], 1).expect("infers")[0];
        assert_eq!(p.shape, Some(vec![k(2), k(2)]));
        assert_eq!(p.value, Some(Data::Float(vec![4.0, 2.0, 10.0, 5.0])));
        let v = Fact::new(Elem::F32, vec![Sym::symbol(0), k(3)]);
        let q = &infer(&Op::MatMul { ta: false, tb: true }, &[Some(&v), Some(&b)], 1).expect("infers")[0];
        assert_eq!(q.shape, Some(vec![Sym::symbol(0), k(2)]));
        assert!(infer(&Op::MatMul { ta: false, tb: false }, &[Some(&a), Some(&b)], 1).is_err());
    }

    #[test]
    fn a_grouped_dense_layer_folds_each_group_over_its_channels() {
        // Two groups of one channel over a row of 3, taps at columns p − 1 and p (padding of
        // 1 before), one output a group: by hand, output 0 is 1·x0[p − 1] + 10·x0[p], output 1
        // 100·x1[p − 1] + 1000·x1[p]; laid out channels first.
        let k = Sym::known;
        let win = crate::vocab::Windows {
            input: [1, 3],
            output: [1, 3],
            kernel: [1, 2],
            strides: [1, 1],
            dilations: [1, 1],
            pads: [0, 1],
            channels: 1,
        };
        let x =
            Fact::constant(Elem::F32, vec![k(1), k(2), k(1), k(3)], Data::Float(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
        let w = Fact::constant(Elem::F32, vec![k(2), k(2)], Data::Float(vec![1.0, 10.0, 100.0, 1000.0]));
        let op = Op::Dense { tb: true, act: None, win: Some(Box::new(win)), planar: true, groups: 2 };
        let y = &infer(&op, &[Some(&x), Some(&w)], 1).expect("infers")[0];
        assert_eq!(y.shape, Some(vec![k(1), k(2), k(3)]));
        assert_eq!(y.value, Some(Data::Float(vec![10.0, 21.0, 32.0, 4000.0, 5400.0, 6500.0])));
        // Groups without the planar layout are refused.
        let flat = Op::Dense { tb: true, act: None, win: Some(Box::new(win)), planar: false, groups: 2 };
        assert!(infer(&flat, &[Some(&x), Some(&w)], 1).is_err());
    }
}
