//! ONNX ops that cellc computes as a few of its own ops, each by its ONNX definition:
//! `Reciprocal`, `Mean`, the reductions of a function of the data (`ReduceSumSquare`,
//! `ReduceLogSum`, `ReduceLogSumExp`), `ThresholdedRelu`, and `Celu`.
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
