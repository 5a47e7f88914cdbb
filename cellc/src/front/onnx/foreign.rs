//! What the ops of onnxruntime's own domain (`com.microsoft`) are, for the message that
//! refuses one where the graph needs it: the model was saved after onnxruntime's graph
//! optimiser fused its ops, or quantised to onnxruntime's integer operators, and what to
//! give cellc instead.
use crate::diag::Message;

/// The refusal of a node of op `op_type` in domain `domain`, when cellc knows what it is.
pub(super) fn refusal(domain: &str, op_type: &str) -> Option<Message> {
    if domain != "com.microsoft" {
        return None;
    }
    let what = match op_type {
        "DynamicQuantizeLSTM" => {
            "onnxruntime's LSTM with int8 weights (its dynamic quantisation); compile the float model, or one quantised to QDQ (quantize_static), which cellc reads"
        }
        "DynamicQuantizeMatMul" | "MatMulIntegerToFloat" | "QGemm" | "DynamicQuantizeLinear" => {
            "onnxruntime's integer matrix product (its dynamic quantisation); compile the float model, or one quantised to QDQ (quantize_static), which cellc reads"
        }
        op if op.starts_with("QLinear") => {
            "one of onnxruntime's integer operators (the QOperator format of its quantisation tool); quantise to QDQ instead (quant_format=QuantFormat.QDQ), which cellc reads"
        }
        "FusedConv"
        | "FusedGemm"
        | "FusedMatMul"
        | "NhwcConv"
        | "BiasGelu"
        | "FastGelu"
        | "Gelu"
        | "QuickGelu"
        | "SkipLayerNormalization"
        | "SkipSimplifiedLayerNormalization"
        | "SimplifiedLayerNormalization"
        | "EmbedLayerNormalization"
        | "BiasSoftmax"
        | "BiasAdd"
        | "Attention"
        | "MultiHeadAttention"
        | "GroupQueryAttention"
        | "RotaryEmbedding" => {
            "an op onnxruntime's graph optimiser fuses (the model was saved after onnxruntime optimised it); compile the model as exported, before those optimisations"
        }
        _ => "an op only onnxruntime defines (its contrib ops)",
    };
    Some(Message::new(format!("com.microsoft.{op_type} is {what}")))
}
