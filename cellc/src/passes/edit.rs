//! Edits of the graph that the lowering passes share: a node added with its fact inferred,
//! a constant added, a tensor replaced by another.
use crate::graph::{Data, Elem, Fact, Graph, NodeId, Sym, TensorId};
use crate::ops::Op;

/// Adds a node of one output computed by `op` from `inputs`, with its fact inferred.
pub(super) fn add(g: &mut Graph, like: NodeId, op: Op, inputs: &[TensorId]) -> Option<TensorId> {
    let fact = {
        let facts: Vec<Option<&Fact>> = inputs.iter().map(|&t| Some(&g.tensors[t].fact)).collect();
        crate::ops::infer(&op, &facts, 1).ok()?.remove(0)
    };
    let origin = g.nodes[like].origin.clone();
    let id = g.add(op, origin, inputs.iter().map(|&t| Some(t)).collect(), 1);
    let t = g.nodes[id].outputs[0];
    g.tensors[t].fact = fact;
    Some(t)
}

/// Adds a constant.
pub(super) fn constant(g: &mut Graph, like: NodeId, elem: Elem, shape: &[usize], value: Data) -> TensorId {
    let origin = g.nodes[like].origin.clone();
    let id = g.add(Op::Const { src: None }, origin, Vec::new(), 1);
    let t = g.nodes[id].outputs[0];
    let shape = shape.iter().map(|&d| Sym::known(d as i64)).collect();
    g.tensors[t].fact = Fact::constant(elem, shape, value);
    t
}

/// Makes `new` the tensor `old` was: its readers, names and Results move to it; the nodes
/// `gone` are dead.
pub(super) fn replace(g: &mut Graph, old: TensorId, new: TensorId, gone: &[NodeId]) {
    let producer = g.tensors[new].producer;
    g.tensors[new] = crate::graph::Tensor { producer, fact: g.tensors[new].fact.clone(), ..g.tensors[old].clone() };
    g.replace_uses(old, new);
    for &n in gone {
        g.nodes[n].dead = true;
    }
}
