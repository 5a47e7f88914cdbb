//! The ONNX ops cellc computes at compile time only ([`crate::ops::pure`]), their
//! attributes read at the model's opset: index ops, tables, windows, bitwise functions;
//! and `ArgMax`/`ArgMin`, reductions computed at run time too.
use super::node::Node;
use crate::graph::{Elem, TensorId};
use crate::ops::pure::{Bits, Class, Pure, WindowKind};
use crate::ops::{Op, ReduceKind};

/// Adds the ops of node `cx` (of type `op`) when it is one of these; `false` for another.
pub(super) fn translate(cx: &mut Node<'_, '_>, op: &str) -> bool {
    let a = |cx: &mut Node<'_, '_>, key: &str, default: i64| cx.attrs.int(key).unwrap_or(default);
    let pure = match op {
        "GatherElements" => Pure::GatherElements { axis: a(cx, "axis", 0) },
        "ArgMax" | "ArgMin" => return arg_extreme(cx, op == "ArgMax"),
        "TopK" => return top_k(cx),
        "CumSum" => Pure::Cumulative {
            product: false,
            exclusive: a(cx, "exclusive", 0) != 0,
            reverse: a(cx, "reverse", 0) != 0,
        },
        "Trilu" => Pure::Trilu { upper: a(cx, "upper", 1) != 0 },
        "OneHot" => Pure::OneHot { axis: a(cx, "axis", -1) },
        "NonZero" => Pure::NonZero,
        "EyeLike" => {
            let k = a(cx, "k", 0);
            let Some(elem) = dtype(cx, "dtype", None) else { return true };
            Pure::EyeLike { k, elem }
        }
        "Hardmax" => {
            if cx.opset() < 13 {
                cx.err(format!(
                    "opset {} Hardmax flattens its input into a matrix at `axis`; cellc reads Hardmax from opset 13",
                    cx.opset()
                ));
                return true;
            }
            Pure::Hardmax { axis: a(cx, "axis", -1) }
        }
        "IsNaN" => Pure::Class(Class::Nan),
        "IsInf" => Pure::Class(Class::Inf {
            positive: a(cx, "detect_positive", 1) != 0,
            negative: a(cx, "detect_negative", 1) != 0,
        }),
        "HannWindow" | "HammingWindow" | "BlackmanWindow" => {
            let kind = match op {
                "HannWindow" => WindowKind::Hann,
                "HammingWindow" => WindowKind::Hamming,
                _ => WindowKind::Blackman,
            };
            let periodic = a(cx, "periodic", 1) != 0;
            let Some(Some(elem)) = dtype(cx, "output_datatype", Some(Elem::F32)) else { return true };
            Pure::Window { kind, periodic, elem }
        }
        "BitwiseAnd" => Pure::Bits(Bits::And),
        "BitwiseOr" => Pure::Bits(Bits::Or),
        "BitwiseXor" => Pure::Bits(Bits::Xor),
        "BitwiseNot" => Pure::Bits(Bits::Not),
        "BitShift" => match cx.attrs.string("direction").as_deref() {
            Some("LEFT") => Pure::Bits(Bits::Left),
            Some("RIGHT") => Pure::Bits(Bits::Right),
            other => {
                cx.err(format!("`direction` is {other:?}; expected \"LEFT\" or \"RIGHT\""));
                return true;
            }
        },
        _ => return false,
    };
    let ins: Vec<Option<TensorId>> = (0..cx.node.input.len()).map(|k| cx.input(k)).collect();
    let outs = cx.add(Op::Pure(pure), &ins, 1);
    cx.bind_all(&outs);
    true
}

/// `ArgMax`/`ArgMin`: a reduction over one axis to the index of its extreme, computed at
/// run time too.
fn arg_extreme(cx: &mut Node<'_, '_>, max: bool) -> bool {
    let axis = cx.attrs.int("axis").unwrap_or(0);
    let keep_dims = cx.attrs.int("keepdims").unwrap_or(1) != 0;
    let last = cx.attrs.int("select_last_index").unwrap_or(0) != 0;
    let Some(x) = cx.required(0, "data") else { return true };
    let axes = cx.ints(&[axis]);
    let y = cx.one(Op::Reduce { kind: ReduceKind::Arg { max, last }, keep_dims }, &[x, axes]);
    cx.bind(0, y);
    true
}

/// A data type attribute (`default` when absent): `None` when refused (reported), `Some(None)`
/// for "the input's".
fn dtype(cx: &mut Node<'_, '_>, key: &str, default: Option<Elem>) -> Option<Option<Elem>> {
    let Some(t) = cx.attrs.int(key) else { return Some(default) };
    match i32::try_from(t).ok().and_then(super::node::elem_of) {
        Some(e) => Some(Some(e)),
        None => {
            cx.err(format!("`{key}` is {t}, a data type cellc does not compute with"));
            None
        }
    }
}

/// `TopK`: `k` an attribute before opset 10, an input since; `sorted = 0` leaves the order
/// to the implementation, and cellc gives the sorted one.
fn top_k(cx: &mut Node<'_, '_>) -> bool {
    let axis = cx.attrs.int("axis").unwrap_or(-1);
    let largest = cx.attrs.int("largest").unwrap_or(1) != 0;
    cx.attrs.int("sorted");
    let Some(x) = cx.required(0, "X") else { return true };
    let k = if cx.opset() < 10 {
        let k = cx.attrs.int("k");
        k.map(|k| cx.ints(&[k]))
    } else {
        cx.required(1, "K")
    };
    let Some(k) = k else {
        if cx.opset() < 10 {
            cx.err("has no `k` attribute; expected how many values to keep");
        }
        return true;
    };
    let outs = cx.add(Op::Pure(Pure::TopK { axis, largest }), &[Some(x), Some(k)], 2);
    cx.bind_all(&outs);
    true
}
