//! What cellc implements of each IR op: the versions (the `version` a layer is written
//! with, as OpenVINO's serializer names it) and the `<data>` attribute keys. A layer of
//! another version, or with an attribute cellc does not read, is refused by name: an
//! attribute nobody reads would otherwise be silently ignored.
use super::xml::Layer;
use crate::diag::Diag;

/// `(types, versions, attribute keys)`: the types share the versions and the keys.
type Entry = (&'static [&'static str], &'static [&'static str], &'static [&'static str]);

/// Keys of the binary ops and comparisons.
const BROADCAST: &[&str] = &["auto_broadcast"];
/// Keys of the recurrent cells without a direction.
const CELL: &[&str] = &["hidden_size", "activations", "activations_alpha", "activations_beta", "clip"];
/// Keys of the recurrent sequences.
const SEQ: &[&str] = &["hidden_size", "activations", "activations_alpha", "activations_beta", "clip", "direction"];

/// Every op type cellc reads, with what it implements of it.
const TABLE: &[Entry] = &[
    (&["Parameter"], &["opset1"], &["shape", "element_type"]),
    (&["Const"], &["opset1"], &["element_type", "shape", "offset", "size"]),
    (&["Result"], &["opset1"], &[]),
    (&["Convert"], &["opset1"], &["destination_type"]),
    (&["ConvertLike", "Transpose", "Unsqueeze", "Tile", "VariadicSplit"], &["opset1"], &[]),
    (&["Squeeze"], &["opset1"], &[]),
    (&["Identity"], &["opset16"], &[]),
    (&["ShapeOf"], &["opset1"], &[]),
    (&["ShapeOf"], &["opset3"], &["output_type"]),
    (&["Reshape"], &["opset1"], &["special_zero"]),
    (&["Concat"], &["opset1"], &["axis"]),
    (&["Gather"], &["opset1"], &[]),
    (&["Gather"], &["opset7", "opset8"], &["batch_dims"]),
    (&["Slice"], &["opset8"], &[]),
    (&["StridedSlice"], &["opset1"], &["begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask"]),
    (&["Split"], &["opset1"], &["num_splits"]),
    (&["Broadcast"], &["opset1", "opset3"], &["mode"]),
    (&["Select"], &["opset1"], BROADCAST),
    (&["MatMul"], &["opset1"], &["transpose_a", "transpose_b"]),
    (
        &["Convolution", "GroupConvolution"],
        &["opset1"],
        &["strides", "dilations", "pads_begin", "pads_end", "auto_pad"],
    ),
    (
        &["ConvolutionBackpropData", "GroupConvolutionBackpropData"],
        &["opset1"],
        &["strides", "dilations", "pads_begin", "pads_end", "auto_pad", "output_padding"],
    ),
    (&["Pad"], &["opset1", "opset12"], &["pad_mode"]),
    (&["Einsum"], &["opset7"], &["equation"]),
    (&["ScatterUpdate"], &["opset3"], &[]),
    (&["ScatterNDUpdate"], &["opset3", "opset4"], &[]),
    (&["ScatterNDUpdate"], &["opset15"], &["reduction"]),
    (
        &["Interpolate"],
        &["opset4", "opset11"],
        &[
            "mode",
            "shape_calculation_mode",
            "coordinate_transformation_mode",
            "nearest_mode",
            "antialias",
            "pads_begin",
            "pads_end",
            "cube_coeff",
        ],
    ),
    (&["MVN"], &["opset6"], &["normalize_variance", "eps", "eps_mode"]),
    (&["NormalizeL2"], &["opset1"], &["eps", "eps_mode"]),
    (&["BatchNormInference"], &["opset5"], &["epsilon"]),
    (&["MaxPool"], &["opset1"], &["strides", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad"]),
    (
        &["MaxPool"],
        &["opset8"],
        &[
            "strides",
            "dilations",
            "pads_begin",
            "pads_end",
            "kernel",
            "rounding_type",
            "auto_pad",
            "index_element_type",
            "axis",
        ],
    ),
    (
        &["AvgPool"],
        &["opset1"],
        &["strides", "pads_begin", "pads_end", "kernel", "rounding_type", "auto_pad", "exclude-pad"],
    ),
    (&["SoftMax", "Softmax"], &["opset1", "opset8"], &["axis"]),
    (&["LogSoftmax"], &["opset5"], &["axis"]),
    (&["If"], &["opset8"], &[]),
    (&["ReadValue", "Assign"], &["opset3"], &["variable_id"]),
    (&["ReadValue"], &["opset6"], &["variable_id", "variable_type", "variable_shape"]),
    (&["Assign"], &["opset6"], &["variable_id"]),
    (
        &["GRUCell"],
        &["opset3"],
        &["hidden_size", "activations", "activations_alpha", "activations_beta", "clip", "linear_before_reset"],
    ),
    (
        &["GRUSequence"],
        &["opset5"],
        &[
            "hidden_size",
            "activations",
            "activations_alpha",
            "activations_beta",
            "clip",
            "direction",
            "linear_before_reset",
        ],
    ),
    (&["RNNCell"], &["opset1"], CELL),
    (&["LSTMCell"], &["opset4"], CELL),
    (&["RNNSequence", "LSTMSequence"], &["opset5"], SEQ),
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
        &[],
    ),
    (&["Clamp"], &["opset1"], &["min", "max"]),
    (&["Elu"], &["opset1"], &["alpha"]),
    (&["SoftPlus", "HSwish", "Swish", "Mish"], &["opset4"], &[]),
    (&["SoftSign"], &["opset9"], &[]),
    (&["HSigmoid"], &["opset5"], &[]),
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
            "Equal",
            "NotEqual",
            "Less",
            "LessEqual",
            "Greater",
            "GreaterEqual",
        ],
        &["opset1"],
        BROADCAST,
    ),
    (&["Divide"], &["opset1"], &["auto_broadcast", "m_pythondiv"]),
    (&["ReduceSum", "ReduceMean", "ReduceProd", "ReduceMax", "ReduceMin"], &["opset1"], &["keep_dims"]),
    (&["ReduceL2"], &["opset4"], &["keep_dims"]),
];

/// Reports a layer whose version, or one of whose attributes, cellc does not implement.
/// A type cellc does not read is not reported here (it is named as unsupported where the
/// graph needs it).
pub(super) fn check(file: &str, l: &Layer, diags: &mut Vec<Diag>) {
    let entries: Vec<&Entry> = TABLE.iter().filter(|(types, _, _)| types.contains(&l.op.as_str())).collect();
    if entries.is_empty() {
        return;
    }
    let versions: Vec<&str> = entries.iter().flat_map(|(_, v, _)| v.iter().copied()).collect();
    let Some(entry) = entries.iter().find(|(_, v, _)| l.version.as_deref().is_some_and(|x| v.contains(&x.trim())))
    else {
        let msg = match &l.version {
            Some(v) => format!(
                "version {} is not one cellc implements; it implements {} as {}",
                crate::limits::shown(v),
                l.op,
                versions.join(", ")
            ),
            None => {
                format!("the layer has no `version` attribute; cellc implements {} as {}", l.op, versions.join(", "))
            }
        };
        diags.push(Diag::new(file, l.version_pos.or(l.pos), msg).in_layer(&l.name, &l.op));
        return;
    };
    let keys = entry.2;
    for (k, _) in l.data.iter().filter(|(k, _)| !keys.contains(&k.as_str())) {
        let known = if keys.is_empty() { "none".to_owned() } else { keys.join(", ") };
        let msg = format!(
            "`{}` is not an attribute cellc implements for {} {}; it reads {known}",
            crate::limits::cut(k),
            l.op,
            l.version.as_deref().unwrap_or_default().trim()
        );
        diags.push(Diag::new(file, l.attr_pos(k), msg).in_layer(&l.name, &l.op));
    }
}
