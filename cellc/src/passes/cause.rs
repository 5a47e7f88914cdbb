//! Why values a layer needs at compile time are not known then: the dynamic dimension of a
//! Parameter they are computed from, found by walking back through the layers that make
//! them, so that the error names the pin to write once instead of every layer it reaches.
use crate::diag::Message;
use crate::graph::{Data, Graph, NodeId};
use crate::ops::Op;

/// The symbol of the dynamic dimension the inputs of node `id` not known at compile time are
/// computed from, when they are (through a `ShapeOf` of a tensor with that dimension, or
/// whole numbers that depend on it).
pub(super) fn dynamic_cause(g: &Graph, id: NodeId) -> Option<u32> {
    let mut seen = vec![false; g.tensors.len()];
    let mut stack: Vec<usize> = g.nodes[id].inputs.iter().flatten().copied().collect();
    while let Some(t) = stack.pop() {
        if std::mem::replace(seen.get_mut(t)?, true) {
            continue;
        }
        let f = &g.tensors[t].fact;
        if let Some(Data::Int(v)) = &f.value
            && let Some(s) = v.iter().find(|s| !s.is_known())
        {
            return Some(s.s);
        }
        if f.value.is_some() {
            continue;
        }
        let node = &g.nodes[g.tensors[t].producer.0];
        if let (Op::ShapeOf { .. }, Some(Some(x))) = (&node.op, node.inputs.first())
            && let Some(d) = g.tensors[*x].fact.shape.iter().flatten().find(|d| !d.is_known())
        {
            return Some(d.s);
        }
        stack.extend(node.inputs.iter().flatten().copied());
    }
    None
}

/// The message of a layer whose compile-time values hang on dynamic dimension `s`: what the
/// layer said, the dimension and its Parameter, and the pin to write.
pub(super) fn pinned_message(g: &Graph, said: Message, s: u32) -> Message {
    let (Some(sym), Some(p)) = (g.symbols.get(s as usize), g.symbol_param(s)) else { return said };
    let text = format!(
        "{}: it is computed from dimension {} of Parameter {:?}, which is dynamic",
        said.words, sym.axis, sym.param
    );
    Message::new(text).fix(g.pin_fix(p, sym.axis)).code(crate::diag::Code::Dynamic)
}
