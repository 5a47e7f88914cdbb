//! Each ONNX op, at the model's opset, as the cellc ops that compute it: attributes that
//! ONNX gives where cellc's op takes an input become constants, optional inputs their
//! defaults, and a different port order the op's own. Recurrent cells are in
//! [`super::cells`].
use super::node::Node;
use super::spatial;
use crate::graph::{Elem, TensorId};
use crate::ops::norm::{MvnAttrs, Norm};
use crate::ops::{Binary, BroadcastMode, Compare, Op, ReduceKind, Unary};

/// Adds the ops of node `cx` (of type `op`); `false` for an op type cellc does not read.
pub(super) fn translate(cx: &mut Node<'_, '_>, op: &str) -> bool {
    if let Some(u) = unary(cx, op) {
        let x = cx.required(0, "X");
        if let Some(x) = x {
            let y = cx.one(Op::Unary(u), &[x]);
            cx.bind(0, y);
        }
        return true;
    }
    if op == "Mod" {
        let fmod = cx.attrs.int("fmod").unwrap_or(0) != 0;
        simple(cx, Op::Binary(Binary::Mod { fmod }), &["A", "B"]);
        return true;
    }
    if let Some(f) = binary(op) {
        variadic(cx, f, op == "Sum" || op == "Max" || op == "Min");
        return true;
    }
    if let Some(c) = compare(op) {
        if let (Some(a), Some(b)) = (cx.required(0, "A"), cx.required(1, "B")) {
            let y = cx.one(Op::Compare(c), &[a, b]);
            cx.bind(0, y);
        }
        return true;
    }
    if let Some(k) = ReduceKind::of_op(op) {
        reduction(cx, k);
        return true;
    }
    match op {
        "PRelu" => prelu(cx),
        "GRU" | "LSTM" | "RNN" => super::cells::cell(cx, op),
        "If" => super::control::if_node(cx),
        "Identity" | "Dropout" => identity(cx, op),
        "CastLike" => simple(cx, Op::ConvertLike, &["input", "target_type"]),
        "Constant" => constant(cx),
        "Cast" => cast(cx),
        "Shape" => shape(cx),
        "Size" => size(cx),
        "Reshape" => reshape(cx),
        "Transpose" => transpose(cx),
        "Squeeze" | "Unsqueeze" => squeeze(cx, op == "Squeeze"),
        "Concat" => concat(cx),
        "Gather" => gather(cx),
        "Slice" => slice(cx),
        "ConstantOfShape" => constant_of_shape(cx),
        "Expand" => simple(cx, Op::Broadcast { mode: BroadcastMode::Bidirectional }, &["input", "shape"]),
        "Tile" => simple(cx, Op::Tile, &["input", "repeats"]),
        "Range" => simple(cx, Op::Range { out: None }, &["start", "limit", "delta"]),
        "Where" => simple(cx, Op::Select, &["condition", "X", "Y"]),
        "MatMul" => simple(cx, Op::MatMul { ta: false, tb: false }, &["A", "B"]),
        "Gemm" => gemm(cx),
        "Softmax" | "LogSoftmax" => softmax(cx, op == "LogSoftmax"),
        "LayerNormalization" => layer_norm(cx),
        "Clip" => clip(cx),
        "LeakyRelu" => leaky_relu(cx),
        "Split" => split(cx),
        "Einsum" => einsum(cx),
        "ScatterND" => scatter_nd(cx),
        "ScatterElements" | "Scatter" => scatter_elements(cx),
        "Conv" | "ConvTranspose" => spatial::conv(cx, op == "ConvTranspose"),
        "MaxPool" | "AveragePool" => spatial::pool(cx, op == "MaxPool"),
        "GlobalAveragePool" => spatial::global_pool(cx, ReduceKind::Mean),
        "GlobalMaxPool" => spatial::global_pool(cx, ReduceKind::Max),
        "BatchNormalization" => spatial::batch_norm(cx),
        "InstanceNormalization" => spatial::instance_norm(cx),
        "Flatten" => spatial::flatten(cx),
        "Pad" => spatial::pad(cx),
        "Resize" => spatial::resize(cx),
        _ => return false,
    }
    true
}

/// The elementwise functions of one tensor with no parameter or with attributes.
fn unary(cx: &mut Node<'_, '_>, op: &str) -> Option<Unary> {
    Some(match op {
        "Relu" => Unary::Relu,
        "Sigmoid" => Unary::Sigmoid,
        "Tanh" => Unary::Tanh,
        "Exp" => Unary::Exp,
        "Log" => Unary::Log,
        "Abs" => Unary::Abs,
        "Sqrt" => Unary::Sqrt,
        "Neg" => Unary::Negative,
        "Floor" => Unary::Floor,
        "Ceil" => Unary::Ceiling,
        "Softplus" => Unary::SoftPlus,
        "Softsign" => Unary::SoftSign,
        "HardSwish" => Unary::HSwish,
        "Mish" => Unary::Mish,
        "Sign" => Unary::Sign,
        "Not" => Unary::LogicalNot,
        "Round" => Unary::Round { even: true },
        "Gelu" => match cx.attrs.string("approximate").as_deref().unwrap_or("none") {
            "none" => Unary::Gelu { tanh: false },
            "tanh" => Unary::Gelu { tanh: true },
            other => {
                cx.err(format!("`approximate` is {other:?}; expected \"none\" or \"tanh\""));
                Unary::Gelu { tanh: false }
            }
        },
        "Elu" => Unary::Elu { alpha: f64::from(cx.attrs.float("alpha").unwrap_or(1.0)) },
        "HardSigmoid" => Unary::HardSigmoid {
            alpha: f64::from(cx.attrs.float("alpha").unwrap_or(0.2)),
            beta: f64::from(cx.attrs.float("beta").unwrap_or(0.5)),
        },
        "Selu" => Unary::Selu {
            alpha: f64::from(cx.attrs.float("alpha").unwrap_or(1.673_263_2)),
            lambda: f64::from(cx.attrs.float("gamma").unwrap_or(1.050_701)),
        },
        _ => Unary::Math(crate::ops::MathFn::of_op(op)?),
    })
}

fn binary(op: &str) -> Option<Binary> {
    Some(match op {
        "Add" | "Sum" => Binary::Add,
        "Sub" => Binary::Subtract,
        "Mul" => Binary::Multiply,
        // ONNX divides whole numbers towards zero.
        "Div" => Binary::Divide { python: false },
        "Pow" => Binary::Power,
        "Max" => Binary::Maximum,
        "Min" => Binary::Minimum,
        "And" => Binary::LogicalAnd,
        "Or" => Binary::LogicalOr,
        "Xor" => Binary::LogicalXor,
        _ => return None,
    })
}

fn compare(op: &str) -> Option<Compare> {
    Some(match op {
        "Equal" => Compare::Equal,
        "Less" => Compare::Less,
        "LessOrEqual" => Compare::LessEqual,
        "Greater" => Compare::Greater,
        "GreaterOrEqual" => Compare::GreaterEqual,
        _ => return None,
    })
}

/// A binary op, or (`many`) one over any number of inputs, joined left to right.
fn variadic(cx: &mut Node<'_, '_>, f: Binary, many: bool) {
    let n = if many { cx.node.input.len() } else { 2 };
    if many && n == 0 {
        cx.err("has no inputs; expected at least one");
        return;
    }
    let ins: Vec<Option<TensorId>> = (0..n).map(|k| cx.required(k, if k == 0 { "A" } else { "B" })).collect();
    let Some(ins) = ins.into_iter().collect::<Option<Vec<_>>>() else { return };
    let mut acc = ins[0];
    for &b in &ins[1..] {
        acc = cx.one(Op::Binary(f), &[acc, b]);
    }
    if ins.len() == 1 {
        acc = cx.one(Op::Identity, &[acc]);
    }
    cx.bind(0, acc);
}

/// An op whose inputs are ONNX's in the same order, all required.
fn simple(cx: &mut Node<'_, '_>, op: Op, roles: &[&str]) {
    let ins: Vec<Option<TensorId>> = roles.iter().enumerate().map(|(k, r)| cx.required(k, r)).collect();
    if let Some(ins) = ins.into_iter().collect::<Option<Vec<_>>>() {
        let y = cx.one(op, &ins);
        cx.bind(0, y);
    }
}

fn identity(cx: &mut Node<'_, '_>, op: &str) {
    if op == "Dropout" {
        // Inference: the input as it is. A training mode given as an input is refused.
        cx.attrs.float("ratio");
        cx.attrs.int("seed");
        if cx.node.input.len() > 2 && !cx.node.input[2].is_empty() {
            cx.err("input 2 (training_mode) is given; cellc compiles inference, where Dropout passes its input");
            return;
        }
        if cx.output_used(1) {
            cx.err("its output 1 (mask) is read; cellc compiles inference and has no mask to give");
            return;
        }
    }
    if let Some(x) = cx.required(0, "input") {
        let y = cx.one(Op::Identity, &[x]);
        cx.bind(0, y);
    }
}

fn constant(cx: &mut Node<'_, '_>) {
    let Some(t) = cx.attrs.tensor("value") else {
        for k in ["value_float", "value_floats", "value_int", "value_ints"] {
            if cx.attrs.has(k) {
                return constant_list(cx, k);
            }
        }
        cx.err("has no `value` attribute cellc reads (value, value_float(s), value_int(s))");
        return;
    };
    match cx.b.constant(t, cx.origin.clone()) {
        Ok(y) => cx.bind(0, y),
        Err(e) => cx.err(format!("`value`: {e}")),
    }
}

fn constant_list(cx: &mut Node<'_, '_>, key: &str) {
    let y = match key {
        "value_float" => {
            let v = cx.attrs.float(key).unwrap_or(0.0);
            cx.float(Elem::F32, f64::from(v))
        }
        "value_floats" => {
            let v = cx.attrs.floats(key).unwrap_or_default();
            let data = crate::graph::Data::Float(v.iter().map(|&x| f64::from(x)).collect());
            crate::graph::build::constant(&mut cx.b.g, cx.origin.clone(), Elem::F32, &[v.len()], data)
        }
        "value_int" => {
            let v = cx.attrs.int(key).unwrap_or(0);
            cx.int(v)
        }
        _ => {
            let v = cx.attrs.ints(key).unwrap_or_default();
            cx.ints(&v)
        }
    };
    cx.bind(0, y);
}

fn cast(cx: &mut Node<'_, '_>) {
    let to = cx.attrs.int("to");
    cx.attrs.int("saturate");
    let Some(x) = cx.required(0, "input") else { return };
    let Some(to) = to else {
        cx.err("has no `to` attribute; expected the data type to cast to");
        return;
    };
    let Some(elem) = i32::try_from(to).ok().and_then(super::node::elem_of) else {
        cx.err(format!("`to` is {to}, a data type cellc does not compute with"));
        return;
    };
    let y = cx.one(Op::Convert { to: elem }, &[x]);
    cx.bind(0, y);
}

fn shape(cx: &mut Node<'_, '_>) {
    let (start, end) = (cx.attrs.int("start"), cx.attrs.int("end"));
    let Some(x) = cx.required(0, "data") else { return };
    let mut y = cx.one(Op::ShapeOf { out: Elem::I64 }, &[x]);
    if start.is_some() || end.is_some() {
        let (s, e, step, axes) =
            (cx.ints(&[start.unwrap_or(0)]), cx.ints(&[end.unwrap_or(i64::MAX)]), cx.ints(&[1]), cx.ints(&[0]));
        y = cx.one(Op::Slice, &[y, s, e, step, axes]);
    }
    cx.bind(0, y);
}

/// Size: the product of the input's shape, a scalar.
fn size(cx: &mut Node<'_, '_>) {
    let Some(x) = cx.required(0, "data") else { return };
    let shape = cx.one(Op::ShapeOf { out: Elem::I64 }, &[x]);
    let axes = cx.ints(&[0]);
    let y = cx.one(Op::Reduce { kind: ReduceKind::Prod, keep_dims: false }, &[shape, axes]);
    cx.bind(0, y);
}

fn reshape(cx: &mut Node<'_, '_>) {
    let allowzero = cx.attrs.int("allowzero").unwrap_or(0) != 0;
    if let (Some(x), Some(s)) = (cx.required(0, "data"), cx.required(1, "shape")) {
        let y = cx.one(Op::Reshape { special_zero: !allowzero }, &[x, s]);
        cx.bind(0, y);
    }
}

fn transpose(cx: &mut Node<'_, '_>) {
    // No `perm` reverses the axes, as an empty order does for cellc's op.
    let perm = cx.attrs.ints("perm").unwrap_or_default();
    if let Some(x) = cx.required(0, "data") {
        let p = cx.ints(&perm);
        let y = cx.one(Op::Transpose, &[x, p]);
        cx.bind(0, y);
    }
}

/// Squeeze and Unsqueeze: axes as an attribute before opset 13, as input 1 since.
fn squeeze(cx: &mut Node<'_, '_>, squeeze: bool) {
    let axes = if cx.opset() < 13 { cx.attrs.ints("axes").map(|a| cx.ints(&a)) } else { cx.input(1) };
    let Some(x) = cx.required(0, "data") else { return };
    let op = if squeeze { Op::Squeeze } else { Op::Unsqueeze };
    let y = match axes {
        Some(a) => cx.one(op, &[x, a]),
        None if squeeze => cx.one(op, &[x]),
        None => {
            cx.err("has no axes; Unsqueeze requires them");
            return;
        }
    };
    cx.bind(0, y);
}

fn concat(cx: &mut Node<'_, '_>) {
    let Some(axis) = cx.attrs.int("axis") else {
        cx.err("has no `axis` attribute; Concat requires one");
        return;
    };
    let ins: Vec<Option<TensorId>> = (0..cx.node.input.len()).map(|k| cx.required(k, "input")).collect();
    if let Some(ins) = ins.into_iter().collect::<Option<Vec<_>>>() {
        let y = cx.one(Op::Concat { axis }, &ins);
        cx.bind(0, y);
    }
}

fn gather(cx: &mut Node<'_, '_>) {
    let axis = cx.attrs.int("axis").unwrap_or(0);
    if let (Some(x), Some(i)) = (cx.required(0, "data"), cx.required(1, "indices")) {
        let a = cx.int(axis);
        let y = cx.one(Op::Gather { batch_dims: 0 }, &[x, i, a]);
        cx.bind(0, y);
    }
}

/// Slice: starts, ends and axes as attributes before opset 10; since, as inputs with steps
/// (1 where absent), in an order cellc's op takes as data, starts, ends, steps, axes.
fn slice(cx: &mut Node<'_, '_>) {
    let (starts, ends, axes, steps) = if cx.opset() < 10 {
        let starts = cx.attrs.ints("starts").map(|v| cx.ints(&v));
        let ends = cx.attrs.ints("ends").map(|v| cx.ints(&v));
        let axes = cx.attrs.ints("axes").map(|v| cx.ints(&v));
        (starts, ends, axes, None)
    } else {
        (cx.required(1, "starts"), cx.required(2, "ends"), cx.input(3), cx.input(4))
    };
    let Some(x) = cx.required(0, "data") else { return };
    let (Some(starts), Some(ends)) = (starts, ends) else {
        if cx.opset() < 10 {
            cx.err("has no `starts` or `ends` attribute; Slice requires both");
        }
        return;
    };
    let steps = match steps {
        Some(s) => s,
        None => {
            let one = cx.int(1);
            let n = cx.one(Op::ShapeOf { out: Elem::I64 }, &[starts]);
            cx.one(Op::Broadcast { mode: BroadcastMode::Numpy }, &[one, n])
        }
    };
    let ins: Vec<TensorId> = [x, starts, ends, steps].into_iter().chain(axes).collect();
    let y = cx.one(Op::Slice, &ins);
    cx.bind(0, y);
}

fn constant_of_shape(cx: &mut Node<'_, '_>) {
    let value = cx.attrs.tensor("value");
    let Some(shape) = cx.required(0, "input") else { return };
    let v = match value {
        Some(t) => match cx.b.constant(t, cx.origin.clone()) {
            Ok(v) => v,
            Err(e) => {
                cx.err(format!("`value`: {e}"));
                return;
            }
        },
        None => cx.float(Elem::F32, 0.0),
    };
    // The value is a one-element tensor; as a scalar it broadcasts to any shape, `[]` too.
    let scalar = cx.ints(&[]);
    let v = cx.one(Op::Reshape { special_zero: false }, &[v, scalar]);
    let y = cx.one(Op::Broadcast { mode: BroadcastMode::Numpy }, &[v, shape]);
    cx.bind(0, y);
}

/// Gemm: `alpha·A'·B' + beta·C`.
fn gemm(cx: &mut Node<'_, '_>) {
    let alpha = cx.attrs.float("alpha").unwrap_or(1.0);
    let beta = cx.attrs.float("beta").unwrap_or(1.0);
    let ta = cx.attrs.int("transA").unwrap_or(0) != 0;
    let tb = cx.attrs.int("transB").unwrap_or(0) != 0;
    let (Some(a), Some(b)) = (cx.required(0, "A"), cx.required(1, "B")) else { return };
    let c = cx.input(2);
    let elem = cx.elem(a);
    let mut y = cx.one(Op::MatMul { ta, tb }, &[a, b]);
    if alpha != 1.0 {
        let k = cx.float(elem, f64::from(alpha));
        y = cx.one(Op::Binary(Binary::Multiply), &[y, k]);
    }
    if let Some(mut c) = c {
        if beta != 1.0 {
            let k = cx.float(elem, f64::from(beta));
            c = cx.one(Op::Binary(Binary::Multiply), &[c, k]);
        }
        y = cx.one(Op::Binary(Binary::Add), &[y, c]);
    }
    cx.bind(0, y);
}

/// Softmax and LogSoftmax: over one axis (default the last) since opset 13; before, over
/// the input flattened into two dimensions at `axis` (default 1), which is the same as over
/// the last axis of the input reshaped to its first `axis` dimensions and the rest.
fn softmax(cx: &mut Node<'_, '_>, log: bool) {
    let modern = cx.opset() >= 13;
    let axis = cx.attrs.int("axis").unwrap_or(if modern { -1 } else { 1 });
    let Some(x) = cx.required(0, "input") else { return };
    if modern {
        let y = cx.one(Op::Softmax { axis, log }, &[x]);
        cx.bind(0, y);
        return;
    }
    let axis = match (axis, cx.rank(x)) {
        (a, _) if a >= 0 => a,
        (a, Some(r)) if a + r as i64 >= 0 => a + r as i64,
        _ => {
            cx.err(format!("`axis` is {axis} on an input whose rank is not known while reading; expected one from 0"));
            return;
        }
    };
    let Ok(lead) = usize::try_from(axis) else { return };
    if lead > crate::limits::MAX_RANK {
        cx.err(format!("`axis` is {axis}; expected at most {}", crate::limits::MAX_RANK));
        return;
    }
    let mut target = vec![0; lead];
    target.push(-1);
    let target = cx.ints(&target);
    let flat = cx.one(Op::Reshape { special_zero: true }, &[x, target]);
    let s = cx.one(Op::Softmax { axis: -1, log }, &[flat]);
    let back = cx.one(Op::ShapeOf { out: Elem::I64 }, &[x]);
    let y = cx.one(Op::Reshape { special_zero: false }, &[s, back]);
    cx.bind(0, y);
}

/// Reductions: axes as an attribute before opset 18 (13 for ReduceSum), as input 1 since;
/// no axes reduces them all unless `noop_with_empty_axes`.
fn reduction(cx: &mut Node<'_, '_>, kind: ReduceKind) {
    let Some(x) = cx.required(0, "data") else { return };
    if let Some(y) = reduce_of(cx, kind, x, false) {
        cx.bind(0, y);
    }
}

/// The reduction `kind` of `x` (which the node's data input became: `from_sum` for ONNX's
/// reductions that are a sum of a function of it, whose axes are an input from opset 18 as
/// the other reductions' are) over the node's axes, with its `keepdims` and
/// `noop_with_empty_axes`.
pub(super) fn reduce_of(cx: &mut Node<'_, '_>, kind: ReduceKind, x: TensorId, from_sum: bool) -> Option<TensorId> {
    reduce_keeping(cx, kind, x, from_sum, None)
}

/// [`reduce_of`], the reduced axes kept (of size 1) when `keep` says so whatever the node's
/// `keepdims`.
pub(super) fn reduce_keeping(
    cx: &mut Node<'_, '_>,
    kind: ReduceKind,
    x: TensorId,
    from_sum: bool,
    keep: Option<bool>,
) -> Option<TensorId> {
    let keep_dims = cx.attrs.int("keepdims").unwrap_or(1) != 0;
    let keep_dims = keep.unwrap_or(keep_dims);
    let noop = cx.attrs.int("noop_with_empty_axes").unwrap_or(0) != 0;
    let by_input = cx.opset() >= 18 || (kind == ReduceKind::Sum && !from_sum && cx.opset() >= 13);
    let axes = if by_input { cx.input(1) } else { cx.attrs.ints("axes").map(|a| cx.ints(&a)) };
    let axes = match axes {
        Some(a) => a,
        None if noop => return Some(cx.one(Op::Identity, &[x])),
        None => match cx.rank(x) {
            Some(r) => cx.ints(&(0..r as i64).collect::<Vec<_>>()),
            // Known once shapes are: `0..rank`, which folding computes.
            None => {
                let shape = cx.one(Op::ShapeOf { out: Elem::I64 }, &[x]);
                let rank = cx.one(Op::ShapeOf { out: Elem::I64 }, &[shape]);
                let first = cx.ints(&[0]);
                let rank = cx.one(Op::Squeeze, &[rank, first]);
                let (start, step) = (cx.int(0), cx.int(1));
                cx.one(Op::Range { out: Some(Elem::I64) }, &[start, rank, step])
            }
        },
    };
    Some(cx.one(Op::Reduce { kind, keep_dims }, &[x, axes]))
}

/// LayerNormalization: mean and variance over the axes from `axis` to the last, `epsilon`
/// inside the root, then `Scale` and `B`.
fn layer_norm(cx: &mut Node<'_, '_>) {
    let axis = cx.attrs.int("axis").unwrap_or(-1);
    let eps = cx.attrs.float("epsilon").unwrap_or(1e-5);
    let stash = cx.attrs.int("stash_type").unwrap_or(1);
    if stash != 1 {
        cx.err(format!("`stash_type` is {stash}; cellc computes the statistics in float (1)"));
        return;
    }
    if cx.output_used(1) || cx.output_used(2) {
        cx.err("its outputs 1 and 2 (Mean, InvStdDev) are read; cellc computes output 0 (Y) only");
        return;
    }
    let (Some(x), Some(scale)) = (cx.required(0, "X"), cx.required(1, "Scale")) else { return };
    let b = cx.input(2);
    let axes: Vec<i64> = match (axis, cx.rank(x)) {
        (a, _) if a < 0 => (a..0).collect(),
        (a, Some(r)) => (a..r as i64).collect(),
        (a, None) => {
            cx.err(format!(
                "`axis` is {a} on an input whose rank is not known while reading; expected a negative axis"
            ));
            return;
        }
    };
    let axes = cx.ints(&axes);
    let norm = Op::Norm(Norm::Mvn(MvnAttrs { normalize_variance: true, eps: f64::from(eps), inside: true }));
    let mut y = cx.one(norm, &[x, axes]);
    y = cx.one(Op::Binary(Binary::Multiply), &[y, scale]);
    if let Some(b) = b {
        y = cx.one(Op::Binary(Binary::Add), &[y, b]);
    }
    cx.bind(0, y);
}

/// Clip: bounds as attributes before opset 11, as optional inputs since (their absence no
/// bound: the type's lowest and highest values).
fn clip(cx: &mut Node<'_, '_>) {
    let Some(x) = cx.required(0, "input") else { return };
    if cx.opset() < 11 {
        let min = f64::from(cx.attrs.float("min").unwrap_or(f32::MIN));
        let max = f64::from(cx.attrs.float("max").unwrap_or(f32::MAX));
        let y = cx.one(Op::Unary(Unary::Clamp { min, max }), &[x]);
        cx.bind(0, y);
        return;
    }
    let (min, max) = (cx.input(1), cx.input(2));
    let mut y = x;
    if let Some(m) = min {
        y = cx.one(Op::Binary(Binary::Maximum), &[y, m]);
    }
    if let Some(m) = max {
        y = cx.one(Op::Binary(Binary::Minimum), &[y, m]);
    }
    if min.is_none() && max.is_none() {
        y = cx.one(Op::Identity, &[x]);
    }
    cx.bind(0, y);
}

/// PRelu, its slope broadcast onto the data by numpy's rules. cellc's PReLU takes
/// OpenVINO's rule, under which a 1-D slope as long as axis 1 of data of rank 3 or more
/// applies along axis 1, where numpy's applies it along the last: such a slope is given as
/// `[1, C]`, which both rules apply along the last axis. Where a rank is not known while
/// reading, the PReLU is written out: `max(x, 0) + slope · min(x, 0)`.
fn prelu(cx: &mut Node<'_, '_>) {
    let (Some(x), Some(slope)) = (cx.required(0, "X"), cx.required(1, "slope")) else { return };
    let y = match (cx.rank(x), cx.rank(slope)) {
        (Some(r), Some(1)) if r >= 3 => {
            let row = cx.ints(&[1, -1]);
            let slope = cx.one(Op::Reshape { special_zero: false }, &[slope, row]);
            cx.one(Op::Binary(Binary::PRelu), &[x, slope])
        }
        (Some(_), Some(_)) => cx.one(Op::Binary(Binary::PRelu), &[x, slope]),
        _ => {
            let zero = cx.float(cx.elem(x), 0.0);
            let pos = cx.one(Op::Binary(Binary::Maximum), &[x, zero]);
            let neg = cx.one(Op::Binary(Binary::Minimum), &[x, zero]);
            let neg = cx.one(Op::Binary(Binary::Multiply), &[slope, neg]);
            cx.one(Op::Binary(Binary::Add), &[pos, neg])
        }
    };
    cx.bind(0, y);
}

/// LeakyRelu: a PReLU of one slope.
fn leaky_relu(cx: &mut Node<'_, '_>) {
    let alpha = cx.attrs.float("alpha").unwrap_or(0.01);
    let Some(x) = cx.required(0, "X") else { return };
    let elem = cx.elem(x);
    let a = cx.float(elem, f64::from(alpha));
    let y = cx.one(Op::Binary(Binary::PRelu), &[x, a]);
    cx.bind(0, y);
}

/// Split: the lengths as an attribute before opset 13, as input 1 since; without them,
/// equal parts, one per output.
fn split(cx: &mut Node<'_, '_>) {
    let axis = cx.attrs.int("axis").unwrap_or(0);
    let parts_attr = cx.attrs.int("num_outputs");
    let lengths = if cx.opset() < 13 { cx.attrs.ints("split").map(|v| cx.ints(&v)) } else { cx.input(1) };
    let Some(x) = cx.required(0, "input") else { return };
    let n = cx.node.output.len();
    let a = cx.int(axis);
    let outs = match lengths {
        Some(l) => cx.add(Op::VariadicSplit, &[Some(x), Some(a), Some(l)], n),
        None => {
            if parts_attr.is_some_and(|p| p != n as i64) {
                cx.err(format!("`num_outputs` is {} but the node has {n} outputs", parts_attr.unwrap_or(0)));
                return;
            }
            cx.add(Op::Split { parts: n as u64 }, &[Some(x), Some(a)], n)
        }
    };
    cx.bind_all(&outs);
}

fn einsum(cx: &mut Node<'_, '_>) {
    let Some(eq) = cx.attrs.string("equation") else {
        cx.err("has no `equation` attribute");
        return;
    };
    let eq = match crate::ops::einsum::Equation::parse(&eq) {
        Ok(eq) => eq,
        Err(e) => return cx.err(e.to_string()),
    };
    let ins: Vec<Option<TensorId>> = (0..cx.node.input.len()).map(|k| cx.required(k, "Inputs")).collect();
    if let Some(ins) = ins.into_iter().collect::<Option<Vec<_>>>() {
        let y = cx.one(Op::Einsum(Box::new(eq)), &ins);
        cx.bind(0, y);
    }
}

/// ScatterND, its `reduction` (opset 16) by ONNX's names.
fn scatter_nd(cx: &mut Node<'_, '_>) {
    use crate::ops::scatter::Scatter;
    let Some(r) = scatter_reduction(cx) else { return };
    simple(cx, Op::Scatter(r.map_or(Scatter::Nd, Scatter::NdReduce)), &["data", "indices", "updates"]);
}

/// `ScatterElements` (and its opset-9 name `Scatter`): the axis an attribute, made cellc's
/// fourth input.
fn scatter_elements(cx: &mut Node<'_, '_>) {
    use crate::ops::scatter::Scatter;
    let Some(r) = scatter_reduction(cx) else { return };
    let axis = cx.attrs.int("axis").unwrap_or(0);
    if let (Some(x), Some(i), Some(u)) = (cx.required(0, "data"), cx.required(1, "indices"), cx.required(2, "updates"))
    {
        let a = cx.int(axis);
        let y = cx.one(Op::Scatter(Scatter::Elements(r)), &[x, i, u, a]);
        cx.bind(0, y);
    }
}

/// A scatter's `reduction` (opset 16 and 18): `Some(None)` for none, `None` when refused.
fn scatter_reduction(cx: &mut Node<'_, '_>) -> Option<Option<crate::ops::scatter::Reduction>> {
    use crate::ops::scatter::Reduction;
    Some(Some(match cx.attrs.string("reduction").as_deref().unwrap_or("none") {
        "none" => return Some(None),
        "add" => Reduction::Sum,
        "mul" => Reduction::Prod,
        "max" => Reduction::Max,
        "min" => Reduction::Min,
        other => {
            cx.err(format!("`reduction` is {other:?}; expected none, add, mul, max or min"));
            return None;
        }
    }))
}
