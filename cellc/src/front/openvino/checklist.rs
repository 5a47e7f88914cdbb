//! Which IR op types make each of cellc's ops: the IR front-end's line of the op checklist
//! (see [`crate::front::Sources`]).
use crate::front::Sources::{self, Not, Types};
use crate::ops::OpKind;

/// The IR types that make ops of `kind`, or why none does.
pub fn sources(kind: OpKind) -> Sources {
    use OpKind as K;
    match kind {
        K::Parameter => Types(&["Parameter"]),
        K::Const => Types(&["Const"]),
        K::Result => Types(&["Result"]),
        K::Convert => Types(&["Convert"]),
        K::ConvertLike => Types(&["ConvertLike"]),
        K::Identity => Types(&["Identity"]),
        K::ShapeOf => Types(&["ShapeOf"]),
        K::Reshape => Types(&["Reshape"]),
        K::Squeeze => Types(&["Squeeze"]),
        K::Unsqueeze => Types(&["Unsqueeze"]),
        K::Transpose => Types(&["Transpose"]),
        K::Concat => Types(&["Concat"]),
        K::Gather => Types(&["Gather"]),
        K::Slice => Types(&["Slice"]),
        K::StridedSlice => Types(&["StridedSlice"]),
        K::Split => Types(&["Split"]),
        K::VariadicSplit => Types(&["VariadicSplit"]),
        K::Broadcast => Types(&["Broadcast"]),
        K::Tile => Types(&["Tile"]),
        K::Unary => Types(&[
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
            "Clamp",
            "Elu",
            "SoftPlus",
            "SoftSign",
            "HSigmoid",
            "HSwish",
            "Swish",
            "Mish",
            "Sign",
            "LogicalNot",
            "Sin",
            "Cos",
            "Tan",
            "Asin",
            "Acos",
            "Atan",
            "Sinh",
            "Cosh",
            "Asinh",
            "Acosh",
            "Atanh",
            "Erf",
            "Gelu",
            "Round",
        ]),
        K::Parametric => Types(&["HardSigmoid", "Swish", "Selu"]),
        K::Binary => Types(&[
            "Add",
            "Subtract",
            "Multiply",
            "Divide",
            "Power",
            "Maximum",
            "Minimum",
            "SquaredDifference",
            "PRelu",
            "PReLU",
            "LogicalAnd",
            "LogicalOr",
            "LogicalXor",
            "Mod",
            "FloorMod",
        ]),
        K::Chain => Not("the fuse pass makes it of elementwise ops"),
        K::Compare => Types(&["Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"]),
        K::Select => Types(&["Select"]),
        K::MatMul => Types(&["MatMul"]),
        K::Dense => Not("the fuse pass makes it of a product by constant weights"),
        K::Conv => {
            Types(&["Convolution", "GroupConvolution", "ConvolutionBackpropData", "GroupConvolutionBackpropData"])
        }
        K::Pure => Types(&["GatherElements", "TopK", "CumSum", "NonZero", "IsNaN", "IsInf"]),
        K::Scatter => Types(&["ScatterUpdate", "ScatterNDUpdate", "ScatterElementsUpdate"]),
        K::Einsum => Types(&["Einsum"]),
        K::Norm => Types(&["MVN", "NormalizeL2", "BatchNormInference"]),
        K::Interpolate => Types(&["Interpolate"]),
        K::Pool => Types(&["MaxPool", "AvgPool"]),
        K::Pad => Types(&["Pad"]),
        K::Pick => Not("the lowering makes it of windows and padding"),
        K::Windows => Not("the lowering makes it of a convolution"),
        K::PoolWindows => Not("the lowering makes it of a pool"),
        K::Softmax => Types(&["SoftMax", "Softmax", "LogSoftmax"]),
        K::Reduce => {
            Types(&["ReduceSum", "ReduceMean", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceL1", "ReduceL2"])
        }
        K::Range => Types(&["Range"]),
        K::If => Types(&["If"]),
        K::ReadValue => Types(&["ReadValue"]),
        K::Assign => Types(&["Assign"]),
        K::Cell => Types(&["GRUCell", "GRUSequence", "RNNCell", "RNNSequence", "LSTMCell", "LSTMSequence"]),
        K::Unknown => Not("a layer of a type cellc does not read becomes it"),
    }
}

/// Every IR op type cellc reads (its table of types and versions).
pub fn read_types() -> Vec<&'static str> {
    super::known::types()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::openvino::ops::Attrs;
    use crate::front::openvino::xml::Layer;

    /// Each type listed for a kind makes an op of that kind (or, without the attributes it
    /// needs, a refusal that says so): the list and the reader agree.
    #[test]
    fn each_listed_type_makes_its_kind() {
        for &kind in OpKind::ALL {
            let Types(types) = sources(kind) else { continue };
            for &t in types {
                // The graph builder makes these from their layers itself.
                if matches!(kind, OpKind::Parameter | OpKind::Const) {
                    continue;
                }
                let layer = Layer { op: t.to_owned(), version: Some("opset1".to_owned()), ..Layer::default() };
                let mut diags = Vec::new();
                let op = Attrs { file: "m.xml", layer: &layer, diags: &mut diags }.op();
                let made = op.kind();
                // A type listed under two kinds makes one or the other by its inputs.
                let listed = |k: OpKind| matches!(sources(k), Types(ts) if ts.contains(&t));
                assert!(
                    listed(made) || (made == OpKind::Unknown && !diags.is_empty()),
                    "{t} makes {made:?}, listed as {kind:?}"
                );
            }
        }
    }
}
