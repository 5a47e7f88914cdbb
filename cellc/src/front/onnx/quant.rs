//! ONNX's quantisation ops, each composed of cellc's own by its definition, so that the
//! models onnxruntime's quantisation tool writes compile: `QuantizeLinear` (round half to
//! even, then saturate to the zero point's type), `DequantizeLinear`, per tensor or per axis
//! (QDQ); `DynamicQuantizeLinear`, `MatMulInteger` and `ConvInteger` (dynamic quantisation:
//! whole numbers held in f32, their products exact while the sums stay under 2²⁴). Weights quantised to int8 fold back to f32 at compile time; the quantise–
//! dequantise pairs on activations are computed at run time, whole numbers held in f32.
use super::node::Node;
use crate::graph::{Elem, TensorId};
use crate::ops::{Binary, Op, Unary};

/// Adds the ops of node `cx` (of type `op`) when it is one of these; `false` for another.
pub(super) fn translate(cx: &mut Node<'_, '_>, op: &str) -> bool {
    match op {
        "QuantizeLinear" => quantize(cx),
        "DequantizeLinear" => dequantize(cx),
        "DynamicQuantizeLinear" => dynamic_quantize(cx),
        "MatMulInteger" => integer_product(cx, false),
        "ConvInteger" => integer_product(cx, true),
        _ => return false,
    }
    true
}

/// Refuses the attributes of opset 21 that cellc does not compute (blocked quantisation); the
/// axis along which a 1-D scale applies.
fn axis_of(cx: &mut Node<'_, '_>) -> Option<i64> {
    if cx.attrs.int("block_size").is_some_and(|b| b != 0) {
        cx.err("`block_size` is set: blocked quantisation, which cellc does not compute");
        return None;
    }
    Some(cx.attrs.int("axis").unwrap_or(1))
}

/// The scale or zero point `t`, shaped to broadcast against `x`: a scalar as it is, a 1-D
/// tensor of more values (per axis) along `axis` of `x`.
fn along(cx: &mut Node<'_, '_>, t: TensorId, x: TensorId, axis: i64) -> Option<TensorId> {
    // A scalar, or one value (per tensor), broadcasts as it is.
    let one = cx.rank(t) == Some(0) || cx.known_len(t) == Some(1);
    if one {
        return Some(t);
    }
    let Some(rank) = cx.rank(x) else {
        cx.err("a scale per axis of an input whose rank is not known while reading");
        return None;
    };
    let r = i64::try_from(rank).ok()?;
    let a = if axis < 0 { axis + r } else { axis };
    if !(0..r).contains(&a) {
        cx.err(format!("`axis` is {axis}, outside the input's {rank} dimensions"));
        return None;
    }
    // [C] → [C, 1, …, 1], with as many 1s as axes after `axis`.
    let shape: Vec<i64> = std::iter::once(-1).chain((a + 1..r).map(|_| 1)).collect();
    let shape = cx.ints(&shape);
    Some(cx.one(Op::Reshape { special_zero: false }, &[t, shape]))
}

/// `y = saturate(round_half_even(x / scale) + zero_point)`, in the zero point's type (u8
/// without one, or `output_dtype`).
fn quantize(cx: &mut Node<'_, '_>) {
    let Some(axis) = axis_of(cx) else { return };
    cx.attrs.int("saturate");
    let dtype = cx.attrs.int("output_dtype").filter(|&t| t != 0);
    let (Some(x), Some(scale)) = (cx.required(0, "x"), cx.required(1, "y_scale")) else { return };
    let zp = cx.input(2);
    let to = match (zp, dtype) {
        (Some(z), _) => cx.elem(z),
        (None, Some(t)) => match i32::try_from(t).ok().and_then(super::node::elem_of) {
            Some(e) => e,
            None => return cx.err(format!("`output_dtype` is {t}, a type cellc does not quantise to")),
        },
        (None, None) => Elem::U8,
    };
    let (lo, hi) = match to {
        Elem::U8 => (0.0, 255.0),
        Elem::I8 => (-128.0, 127.0),
        other => return cx.err(format!("quantises to {}; cellc quantises to int8 and uint8", other.name())),
    };
    let float = cx.elem(x);
    let Some(s) = along(cx, scale, x, axis) else { return };
    let q = cx.one(Op::Binary(Binary::Divide { python: false }), &[x, s]);
    let mut r = cx.one(Op::Unary(Unary::Round { even: true }), &[q]);
    if let Some(z) = zp {
        let Some(z) = along(cx, z, x, axis) else { return };
        let z = cx.one(Op::Convert { to: float }, &[z]);
        r = cx.one(Op::Binary(Binary::Add), &[r, z]);
    }
    let clamped = cx.one(Op::Unary(Unary::Clamp { min: lo, max: hi }), &[r]);
    let y = cx.one(Op::Convert { to }, &[clamped]);
    cx.bind(0, y);
}

/// `y = (x − zero_point) · scale`, in the scale's type.
fn dequantize(cx: &mut Node<'_, '_>) {
    let Some(axis) = axis_of(cx) else { return };
    let (Some(x), Some(scale)) = (cx.required(0, "x"), cx.required(1, "x_scale")) else { return };
    let float = cx.elem(scale);
    let mut v = cx.one(Op::Convert { to: float }, &[x]);
    if let Some(z) = cx.input(2) {
        let Some(z) = along(cx, z, x, axis) else { return };
        let z = cx.one(Op::Convert { to: float }, &[z]);
        v = cx.one(Op::Binary(Binary::Subtract), &[v, z]);
    }
    let Some(s) = along(cx, scale, x, axis) else { return };
    let y = cx.one(Op::Binary(Binary::Multiply), &[v, s]);
    cx.bind(0, y);
}

/// `DynamicQuantizeLinear`: the uint8 quantisation of `x` over the range of its values and
/// 0 — `scale = (max(x, 0) − min(x, 0)) / 255`, `zero_point = saturate(round(−min / scale))`,
/// `y = saturate(round(x / scale) + zero_point)` — and the scale and zero point.
fn dynamic_quantize(cx: &mut Node<'_, '_>) {
    let Some(x) = cx.required(0, "x") else { return };
    let Some(rank) = cx.rank(x) else {
        return cx.err("the input's rank is not known while reading; cellc reduces over its every axis");
    };
    let float = cx.elem(x);
    let all: Vec<i64> = (0..rank as i64).collect();
    let axes = cx.ints(&all);
    let lo = cx.one(Op::Reduce { kind: crate::ops::ReduceKind::Min, keep_dims: false }, &[x, axes]);
    let hi = cx.one(Op::Reduce { kind: crate::ops::ReduceKind::Max, keep_dims: false }, &[x, axes]);
    let zero = cx.float(float, 0.0);
    let lo = cx.one(Op::Binary(Binary::Minimum), &[lo, zero]);
    let hi = cx.one(Op::Binary(Binary::Maximum), &[hi, zero]);
    let span = cx.one(Op::Binary(Binary::Subtract), &[hi, lo]);
    let qmax = cx.float(float, 255.0);
    let scale = cx.one(Op::Binary(Binary::Divide { python: false }), &[span, qmax]);
    let below = cx.one(Op::Binary(Binary::Divide { python: false }), &[lo, scale]);
    let minus = cx.one(Op::Unary(Unary::Negative), &[below]);
    let zp = cx.one(Op::Unary(Unary::Round { even: true }), &[minus]);
    let zp = cx.one(Op::Unary(Unary::Clamp { min: 0.0, max: 255.0 }), &[zp]);
    let q = cx.one(Op::Binary(Binary::Divide { python: false }), &[x, scale]);
    let q = cx.one(Op::Unary(Unary::Round { even: true }), &[q]);
    let q = cx.one(Op::Binary(Binary::Add), &[q, zp]);
    let q = cx.one(Op::Unary(Unary::Clamp { min: 0.0, max: 255.0 }), &[q]);
    let y = cx.one(Op::Convert { to: Elem::U8 }, &[q]);
    let zp = cx.one(Op::Convert { to: Elem::U8 }, &[zp]);
    cx.bind_all(&[y, scale, zp]);
}

/// An integer operand less its zero point, in f32; a zero point of several values lies along
/// `axis` of the operand.
fn less_zero_point(cx: &mut Node<'_, '_>, t: TensorId, zp: Option<TensorId>, axis: i64) -> Option<TensorId> {
    let v = cx.one(Op::Convert { to: Elem::F32 }, &[t]);
    let Some(z) = zp else { return Some(v) };
    let z = along(cx, z, t, axis)?;
    let z = cx.one(Op::Convert { to: Elem::F32 }, &[z]);
    Some(cx.one(Op::Binary(Binary::Subtract), &[v, z]))
}

/// `MatMulInteger` and `ConvInteger`: the product (or the convolution) of the operands less
/// their zero points, in int32; computed in f32 on whole numbers, exact while its sums stay
/// under 2²⁴ in magnitude.
fn integer_product(cx: &mut Node<'_, '_>, conv: bool) {
    let (a_name, b_name) = if conv { ("x", "w") } else { ("A", "B") };
    let (Some(a), Some(b)) = (cx.required(0, a_name), cx.required(1, b_name)) else { return };
    // A zero point per row of the left side (its axis −2) and per output channel of the
    // right (a product's columns, its axis −1; a convolution's filters, axis 0).
    let (za, zb) = (cx.input(2), cx.input(3));
    let (a_axis, b_axis) = if conv { (1, 0) } else { (-2, -1) };
    let Some(a) = less_zero_point(cx, a, za, a_axis) else { return };
    let Some(b) = less_zero_point(cx, b, zb, b_axis) else { return };
    let product = if conv {
        let Some((y, _)) = super::spatial::conv_of(cx, a, b, false) else { return };
        y
    } else {
        cx.one(Op::MatMul { ta: false, tb: false }, &[a, b])
    };
    let y = cx.one(Op::Convert { to: Elem::I32 }, &[product]);
    cx.bind(0, y);
}
