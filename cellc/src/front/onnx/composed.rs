//! ONNX ops that cellc computes as a few of its own ops, each by its ONNX definition:
//! `Reciprocal`, `Mean`, the reductions of a function of the data (`ReduceSumSquare`,
//! `ReduceLogSum`, `ReduceLogSumExp`), `ThresholdedRelu`, `Celu`, `Shrink`,
//! `MeanVarianceNormalization` (as its ONNX function computes it), `DepthToSpace` and
//! `SpaceToDepth` (a reshape, a transpose and a reshape).
use super::node::Node;
use super::ops::reduce_of;
use crate::graph::TensorId;
use crate::ops::{Binary, Compare, Op, ReduceKind, Unary};

/// Adds the ops of node `cx` (of type `op`) when it is one of these; `false` for another.
pub(super) fn translate(cx: &mut Node<'_, '_>, op: &str) -> bool {
    match op {
        "Reciprocal" => reciprocal(cx),
        "Mean" => mean(cx),
        "ReduceSumSquare" | "ReduceLogSum" => sum_of(cx, op),
        "ReduceLogSumExp" => log_sum_exp(cx),
        "MeanVarianceNormalization" => mean_variance(cx),
        "Shrink" => shrink(cx),
        "DepthToSpace" | "SpaceToDepth" => depth_space(cx, op == "DepthToSpace"),
        "ThresholdedRelu" => thresholded_relu(cx),
        "Celu" => celu(cx),
        _ => return false,
    }
    true
}

/// A scalar constant of `x`'s element type.
fn scalar(cx: &mut Node<'_, '_>, x: TensorId, v: f64) -> TensorId {
    let elem = cx.elem(x);
    cx.float(elem, v)
}

fn binary(cx: &mut Node<'_, '_>, f: Binary, a: TensorId, b: TensorId) -> TensorId {
    cx.one(Op::Binary(f), &[a, b])
}

const DIVIDE: Binary = Binary::Divide { python: false };

/// `1 / x`.
fn reciprocal(cx: &mut Node<'_, '_>) {
    let Some(x) = cx.required(0, "X") else { return };
    let one = scalar(cx, x, 1.0);
    let y = binary(cx, DIVIDE, one, x);
    cx.bind(0, y);
}

/// The sum of the inputs (broadcast), divided by how many there are.
fn mean(cx: &mut Node<'_, '_>) {
    let n = cx.node.input.len();
    if n == 0 {
        cx.err("has no inputs; expected at least one");
        return;
    }
    let ins: Vec<Option<TensorId>> = (0..n).map(|k| cx.required(k, "data")).collect();
    let Some(ins) = ins.into_iter().collect::<Option<Vec<_>>>() else { return };
    let mut acc = ins[0];
    for &b in &ins[1..] {
        acc = binary(cx, Binary::Add, acc, b);
    }
    let count = scalar(cx, acc, n as f64);
    let y = binary(cx, DIVIDE, acc, count);
    cx.bind(0, y);
}

/// `ReduceSumSquare` (the sum of x·x), `ReduceLogSum` (the log of the sum).
fn sum_of(cx: &mut Node<'_, '_>, op: &str) {
    let Some(x) = cx.required(0, "data") else { return };
    let term = match op {
        "ReduceSumSquare" => binary(cx, Binary::Multiply, x, x),
        _ => x,
    };
    let Some(mut y) = reduce_of(cx, ReduceKind::Sum, term, true) else { return };
    if op == "ReduceLogSum" {
        y = cx.one(Op::Unary(Unary::Log), &[y]);
    }
    cx.bind(0, y);
}

/// `log Σ e^x` as onnxruntime computes it, without overflow: `m + log Σ e^(x − m)`, `m` the
/// largest value; the last reduction (a largest value of one) gives the node's shape.
fn log_sum_exp(cx: &mut Node<'_, '_>) {
    let Some(x) = cx.required(0, "data") else { return };
    let Some(m) = super::ops::reduce_keeping(cx, ReduceKind::Max, x, true, Some(true)) else { return };
    let d = binary(cx, Binary::Subtract, x, m);
    let e = cx.one(Op::Unary(Unary::Exp), &[d]);
    let Some(s) = super::ops::reduce_keeping(cx, ReduceKind::Sum, e, true, Some(true)) else { return };
    let l = cx.one(Op::Unary(Unary::Log), &[s]);
    let kept = binary(cx, Binary::Add, l, m);
    let Some(y) = reduce_of(cx, ReduceKind::Max, kept, true) else { return };
    cx.bind(0, y);
}

/// `x` where `x > alpha`, else 0.
fn thresholded_relu(cx: &mut Node<'_, '_>) {
    let alpha = f64::from(cx.attrs.float("alpha").unwrap_or(1.0));
    let Some(x) = cx.required(0, "X") else { return };
    let (a, zero) = (scalar(cx, x, alpha), scalar(cx, x, 0.0));
    let above = cx.one(Op::Compare(Compare::Greater), &[x, a]);
    let y = cx.one(Op::Select, &[above, x, zero]);
    cx.bind(0, y);
}

/// `max(0, x) + min(0, alpha·(exp(x/alpha) − 1))`, which is `alpha·elu(x/alpha)`.
fn celu(cx: &mut Node<'_, '_>) {
    let alpha = f64::from(cx.attrs.float("alpha").unwrap_or(1.0));
    let Some(x) = cx.required(0, "X") else { return };
    if alpha == 0.0 {
        cx.err("`alpha` is 0; Celu divides by it");
        return;
    }
    let a = scalar(cx, x, alpha);
    let scaled = binary(cx, DIVIDE, x, a);
    let e = cx.one(Op::Unary(Unary::Elu { alpha: 1.0 }), &[scaled]);
    let y = binary(cx, Binary::Multiply, e, a);
    cx.bind(0, y);
}

/// `MeanVarianceNormalization` as its ONNX function computes it: `(x − E[x]) / (√(E[x²] −
/// E[x]²) + 1e-9)` over `axes` (0, 2 and 3 without them).
fn mean_variance(cx: &mut Node<'_, '_>) {
    let axes = cx.attrs.ints("axes").unwrap_or_else(|| vec![0, 2, 3]);
    let Some(x) = cx.required(0, "X") else { return };
    let axes = cx.ints(&axes);
    let mean =
        |cx: &mut Node<'_, '_>, t: TensorId| cx.one(Op::Reduce { kind: ReduceKind::Mean, keep_dims: true }, &[t, axes]);
    let ex = mean(cx, x);
    let ex2 = binary(cx, Binary::Multiply, ex, ex);
    let xx = binary(cx, Binary::Multiply, x, x);
    let exx = mean(cx, xx);
    let var = binary(cx, Binary::Subtract, exx, ex2);
    let std = cx.one(Op::Unary(Unary::Sqrt), &[var]);
    let eps = scalar(cx, x, 1e-9);
    let den = binary(cx, Binary::Add, std, eps);
    let centred = binary(cx, Binary::Subtract, x, ex);
    let y = binary(cx, DIVIDE, centred, den);
    cx.bind(0, y);
}

/// `Shrink`: `x + bias` below `−lambd`, `x − bias` above `lambd`, 0 between.
fn shrink(cx: &mut Node<'_, '_>) {
    let bias = f64::from(cx.attrs.float("bias").unwrap_or(0.0));
    let lambd = f64::from(cx.attrs.float("lambd").unwrap_or(0.5));
    let Some(x) = cx.required(0, "input") else { return };
    let (lo, hi, b, zero) = (scalar(cx, x, -lambd), scalar(cx, x, lambd), scalar(cx, x, bias), scalar(cx, x, 0.0));
    let below = cx.one(Op::Compare(Compare::Less), &[x, lo]);
    let above = cx.one(Op::Compare(Compare::Greater), &[x, hi]);
    let up = binary(cx, Binary::Add, x, b);
    let down = binary(cx, Binary::Subtract, x, b);
    let rest = cx.one(Op::Select, &[above, down, zero]);
    let y = cx.one(Op::Select, &[below, up, rest]);
    cx.bind(0, y);
}

/// `DepthToSpace` (`DCR` or `CRD` order) and `SpaceToDepth` on `[N, C, H, W]`: blocks of
/// `blocksize`² channels moved into the spatial axes, or back, by a reshape, a transpose
/// and a reshape (the input's shape known while reading).
fn depth_space(cx: &mut Node<'_, '_>, to_space: bool) {
    let b = cx.attrs.int("blocksize").unwrap_or(0);
    let crd = to_space && cx.attrs.string("mode").as_deref() == Some("CRD");
    if to_space && !matches!(cx.attrs.string("mode").as_deref(), None | Some("DCR") | Some("CRD")) {
        return cx.err("`mode` is neither \"DCR\" nor \"CRD\"");
    }
    let Some(x) = cx.required(0, "input") else { return };
    let dims: Option<Vec<i64>> =
        cx.b.g.tensors[x].fact.shape.as_ref().and_then(|s| s.iter().map(|d| d.value()).collect());
    let Some([n, c, h, w]) = dims.as_deref().and_then(|d| <[i64; 4]>::try_from(d).ok()) else {
        return cx.err("the input is not [N, C, H, W] with every size known while reading; pin its shape with --input");
    };
    // Every product checked: the block size and the input's sizes come from the file.
    let sizes = (b >= 1).then_some(()).and_then(|()| {
        let bb = b.checked_mul(b)?;
        Some((bb, c.checked_mul(bb)?, h.checked_mul(b)?, w.checked_mul(b)?))
    });
    let divides = |(bb, _, _, _): (i64, i64, i64, i64)| if to_space { c % bb == 0 } else { h % b == 0 && w % b == 0 };
    let Some((bb, c_bb, h_b, w_b)) = sizes.filter(|&s| divides(s)) else {
        return cx
            .err(format!("`blocksize` is {b}, which does not divide the input [{n}, {c}, {h}, {w}] as the op needs (or the result's sizes overflow)"));
    };
    let (first, perm, last): (Vec<i64>, Vec<i64>, Vec<i64>) = if !to_space {
        (vec![n, c, h / b, b, w / b, b], vec![0, 3, 5, 1, 2, 4], vec![n, c_bb, h / b, w / b])
    } else if crd {
        (vec![n, c / bb, b, b, h, w], vec![0, 1, 4, 2, 5, 3], vec![n, c / bb, h_b, w_b])
    } else {
        (vec![n, b, b, c / bb, h, w], vec![0, 3, 4, 1, 5, 2], vec![n, c / bb, h_b, w_b])
    };
    let (first, perm, last) = (cx.ints(&first), cx.ints(&perm), cx.ints(&last));
    let r = cx.one(Op::Reshape { special_zero: false }, &[x, first]);
    let t = cx.one(Op::Transpose, &[r, perm]);
    let y = cx.one(Op::Reshape { special_zero: false }, &[t, last]);
    cx.bind(0, y);
}
