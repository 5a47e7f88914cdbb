//! What cellc implements of each IR op: the types it reads and their versions (the
//! `version` a layer is written with, as OpenVINO's serializer names it). A layer of another
//! version is refused by name; so is a `<data>` attribute the op's reader did not ask for
//! ([`refuse_unread`]), since an attribute nobody reads would otherwise be silently ignored:
//! what the reader reads is the one list of what cellc implements.
use super::xml::Layer;
use crate::diag::Diag;

/// `(types, versions)`: the types share the versions.
type Entry = (&'static [&'static str], &'static [&'static str]);

/// Every op type cellc reads, with the versions it implements of it.
const TABLE: &[Entry] = &[
    (&["Parameter"], &["opset1"]),
    (&["Const"], &["opset1"]),
    (&["Result"], &["opset1"]),
    (&["Convert"], &["opset1"]),
    (&["ConvertLike", "Transpose", "Unsqueeze", "Tile", "VariadicSplit"], &["opset1"]),
    (&["Squeeze"], &["opset1"]),
    (&["Identity"], &["opset16"]),
    (&["ShapeOf"], &["opset1", "opset3"]),
    (&["Reshape"], &["opset1"]),
    (&["Range"], &["opset1", "opset4"]),
    (&["Concat"], &["opset1"]),
    (&["Gather"], &["opset1", "opset7", "opset8"]),
    (&["Slice"], &["opset8"]),
    (&["StridedSlice"], &["opset1"]),
    (&["Split"], &["opset1"]),
    (&["Broadcast"], &["opset1", "opset3"]),
    (&["Select"], &["opset1"]),
    (&["MatMul"], &["opset1"]),
    (&["Convolution", "GroupConvolution"], &["opset1"]),
    (&["ConvolutionBackpropData", "GroupConvolutionBackpropData"], &["opset1"]),
    (&["Pad"], &["opset1", "opset12"]),
    (&["Einsum"], &["opset7"]),
    (&["ScatterUpdate", "ScatterElementsUpdate"], &["opset3"]),
    (&["ScatterElementsUpdate"], &["opset12"]),
    (&["ScatterNDUpdate"], &["opset3", "opset4", "opset15"]),
    (&["Interpolate"], &["opset4", "opset11"]),
    (&["MVN"], &["opset6"]),
    (&["NormalizeL2"], &["opset1"]),
    (&["BatchNormInference"], &["opset5"]),
    (&["MaxPool"], &["opset1", "opset8", "opset14"]),
    (&["AvgPool"], &["opset1", "opset14", "opset16"]),
    (&["SoftMax", "Softmax"], &["opset1", "opset8"]),
    (&["LogSoftmax"], &["opset5"]),
    (&["If"], &["opset8"]),
    (&["ReadValue", "Assign"], &["opset3", "opset6"]),
    (&["GRUCell"], &["opset3"]),
    (&["GRUSequence"], &["opset5"]),
    (&["RNNCell"], &["opset1"]),
    (&["LSTMCell"], &["opset4"]),
    (&["RNNSequence", "LSTMSequence"], &["opset5"]),
    (
        &[
            "ReLU",
            "Relu",
            "Sigmoid",
            "Tanh",
            "Exp",
            "Log",
            "Abs",
            "Sqrt",
            "Negative",
            "Floor",
            "Ceiling",
            "Sign",
            "LogicalNot",
            "HardSigmoid",
            "Selu",
            "PRelu",
            "PReLU",
        ],
        &["opset1"],
    ),
    (&["Clamp"], &["opset1"]),
    (&["Elu"], &["opset1"]),
    (&["SoftPlus", "HSwish", "Swish", "Mish"], &["opset4"]),
    (&["SoftSign"], &["opset9"]),
    (&["HSigmoid"], &["opset5"]),
    (&["GatherElements"], &["opset6"]),
    (&["TopK"], &["opset1", "opset3", "opset11"]),
    (&["CumSum", "NonZero"], &["opset3"]),
    (&["IsNaN", "IsInf"], &["opset10"]),
    (&["Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Erf"], &["opset1"]),
    (&["Asinh", "Acosh", "Atanh"], &["opset4"]),
    (&["Round"], &["opset5"]),
    (&["Gelu"], &["opset2", "opset7"]),
    (
        &[
            "Add",
            "Subtract",
            "Multiply",
            "Power",
            "Maximum",
            "Minimum",
            "SquaredDifference",
            "LogicalAnd",
            "LogicalOr",
            "LogicalXor",
            "Mod",
            "FloorMod",
            "Equal",
            "NotEqual",
            "Less",
            "LessEqual",
            "Greater",
            "GreaterEqual",
        ],
        &["opset1"],
    ),
    (&["Divide"], &["opset1"]),
    (&["ReduceSum", "ReduceMean", "ReduceProd", "ReduceMax", "ReduceMin"], &["opset1"]),
    (&["ReduceL1", "ReduceL2"], &["opset4"]),
];

/// Every op type cellc reads, once each.
pub(super) fn types() -> Vec<&'static str> {
    let mut all: Vec<&'static str> = TABLE.iter().flat_map(|(types, _)| types.iter().copied()).collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// Whether cellc reads the layer's type in the layer's version; reports a version it does
/// not implement. A type cellc does not read is not reported here (it is named as unsupported
/// where the graph needs it).
pub(super) fn check(file: &str, l: &Layer, diags: &mut Vec<Diag>) -> bool {
    let entries: Vec<&Entry> = TABLE.iter().filter(|(types, _)| types.contains(&l.op.as_str())).collect();
    if entries.is_empty() {
        return false;
    }
    let versions: Vec<&str> = entries.iter().flat_map(|(_, v)| v.iter().copied()).collect();
    if entries.iter().any(|(_, v)| l.version.as_deref().is_some_and(|x| v.contains(&x.trim()))) {
        return true;
    }
    let msg = match &l.version {
        Some(v) => format!(
            "version {} is not one cellc implements; it implements {} as {}",
            crate::limits::shown(v),
            l.op,
            versions.join(", ")
        ),
        None => format!("the layer has no `version` attribute; cellc implements {} as {}", l.op, versions.join(", ")),
    };
    diags.push(Diag::new(crate::diag::Code::Unsupported, file, l.version_pos.or(l.pos), msg).in_layer(&l.name, &l.op));
    false
}

/// Reports each `<data>` attribute of `l` its op's reader did not ask for.
pub(super) fn refuse_unread(file: &str, l: &Layer, diags: &mut Vec<Diag>) {
    let unread = l.unread();
    if unread.is_empty() {
        return;
    }
    let read = l.read.borrow();
    let known = if read.is_empty() { "none".to_owned() } else { read.join(", ") };
    for k in unread {
        let msg = format!(
            "`{}` is not an attribute cellc implements for {} {}; it reads {known}",
            crate::limits::cut(k),
            l.op,
            l.version.as_deref().unwrap_or_default().trim()
        );
        diags.push(Diag::new(crate::diag::Code::Layer, file, l.attr_pos(k), msg).in_layer(&l.name, &l.op));
    }
}
