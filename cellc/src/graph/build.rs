//! Building a graph node by node, each output's fact inferred by its op's own rule: what
//! the passes use to add the ops they lower to, and what tests use to make graphs.
use super::{Data, Elem, Fact, Graph, NodeId, Sym, TensorId};
use crate::ops::{Op, OpError, infer};
use crate::vocab::{Dim, Origin};

/// An origin named `name`, of kind `op`, at no position in a file.
pub fn origin(name: &str, op: &str) -> Origin {
    Origin { pos: None, name: name.to_owned(), op: op.to_owned() }
}

/// Known dimensions of `shape`.
pub fn known(shape: &[usize]) -> Vec<Sym> {
    shape.iter().map(|&d| Sym::known(d as i64)).collect()
}

/// Adds a node computing `op` from `inputs` (its one output's fact inferred by the op's
/// rule); the op's refusal is the error, and then nothing is added.
pub fn apply(g: &mut Graph, origin: Origin, op: Op, inputs: &[TensorId]) -> Result<TensorId, OpError> {
    let fact = infer_one(g, &op, inputs)?;
    Ok(add_inferred(g, origin, op, inputs, fact))
}

/// The fact of the one output of `op` over `inputs`, by the op's rule.
pub fn infer_one(g: &Graph, op: &Op, inputs: &[TensorId]) -> Result<Fact, OpError> {
    let facts: Vec<Option<&Fact>> = inputs.iter().map(|&t| Some(&g.tensors[t].fact)).collect();
    infer(op, &facts, 1)?.pop().ok_or(OpError::NotInferred)
}

/// Adds a node computing `op` from `inputs`, its one output of fact `fact` (as
/// [`infer_one`] gives it).
pub fn add_inferred(g: &mut Graph, origin: Origin, op: Op, inputs: &[TensorId], fact: Fact) -> TensorId {
    let id = g.add(op, origin, inputs.iter().map(|&t| Some(t)).collect(), 1);
    let t = g.nodes[id].outputs[0];
    g.tensors[t].fact = fact;
    t
}

/// Adds a constant of `elem` and `shape` holding `value`.
pub fn constant(g: &mut Graph, origin: Origin, elem: Elem, shape: &[usize], value: Data) -> TensorId {
    let id = g.add(Op::Const { src: None }, origin, Vec::new(), 1);
    let t = g.nodes[id].outputs[0];
    g.tensors[t].fact = Fact::constant(elem, known(shape), value);
    t
}

/// Adds an i64 constant of shape `[v.len()]`.
pub fn ints(g: &mut Graph, v: &[i64]) -> TensorId {
    let data = Data::Int(v.iter().map(|&x| Sym::known(x)).collect());
    constant(g, origin("ints", "Const"), Elem::I64, &[v.len()], data)
}

/// Adds a Parameter named `name` of `elem` and static `shape`, the next input of the model.
pub fn parameter(g: &mut Graph, name: &str, elem: Elem, shape: &[usize]) -> TensorId {
    let dims = shape.iter().map(|&n| Dim::Static(n as u64)).collect();
    let id = g.add(Op::Parameter { elem, shape: dims }, origin(name, "Parameter"), Vec::new(), 1);
    let t = g.nodes[id].outputs[0];
    g.tensors[t].fact = Fact::new(elem, known(shape));
    g.tensors[t].names = vec![name.to_owned()];
    g.params.push(id);
    t
}

/// Adds a Result reading `t`, the next output of the model, named `name` if given.
pub fn result(g: &mut Graph, t: TensorId, name: Option<&str>) -> NodeId {
    let r = g.add(Op::Result, origin(name.unwrap_or("result"), "Result"), vec![Some(t)], 0);
    g.results.push(r);
    g.result_names.push(name.map(str::to_owned));
    r
}
