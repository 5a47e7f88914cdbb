//! What `inspect` reads off the graph itself, compiled or not: the Parameters and Results,
//! the cells with their attributes, the layers by type, the ones cellc does not compile, and
//! a cut that leaves them out.
use super::report::{CellInfo, OpCount, Size, TensorInfo, WeightInfo};
use crate::diag::{Diagnostics, Pos};
use crate::graph::{Graph, NodeId, Sym, TensorId};
use crate::ops::Op;
use std::collections::{BTreeMap, BTreeSet};

/// A dimension as users write it: a size, `?` for a dynamic one (its interval, `1..10`,
/// where the model bounds it), else its expression.
fn dim(g: &Graph, s: &Sym) -> Size {
    match (u64::try_from(s.c), s.k) {
        (Ok(c), 0) => Size::Known(c),
        (_, 1) if s.c == 0 => {
            let allowed = g.symbols.get(s.s as usize).map_or(crate::vocab::Dim::Dynamic, |x| x.allowed);
            Size::Dynamic(allowed.to_string())
        }
        _ => Size::Dynamic(s.to_string()),
    }
}

/// A tensor's shape as the passes know it, else as its port declares it (a model refused
/// before the passes reached it still shows the shapes the file gives).
fn shape(g: &Graph, t: TensorId) -> Option<Vec<Size>> {
    let tensor = &g.tensors[t];
    match &tensor.fact.shape {
        Some(s) => Some(s.iter().map(|d| dim(g, d)).collect()),
        None if !tensor.declared.is_empty() => Some(
            tensor
                .declared
                .iter()
                .map(|d| match d {
                    crate::vocab::Dim::Static(n) => Size::Known(*n),
                    crate::vocab::Dim::Dynamic => Size::Dynamic("?".to_owned()),
                    d @ crate::vocab::Dim::Interval { .. } => Size::Dynamic(d.to_string()),
                })
                .collect(),
        ),
        None => None,
    }
}

pub(super) fn live(g: &Graph) -> impl Iterator<Item = NodeId> + '_ {
    (0..g.nodes.len()).filter(|&n| !g.nodes[n].dead)
}

/// The Parameters still in the graph, in order.
pub(super) fn params(g: &Graph) -> Vec<TensorInfo> {
    g.params
        .iter()
        .filter(|&&n| !g.nodes[n].dead)
        .filter_map(|&n| {
            let t = *g.nodes[n].outputs.first()?;
            let elem = g.tensors[t].fact.elem.name().to_owned();
            Some(TensorInfo { name: g.nodes[n].origin.name.clone(), shape: shape(g, t), elem })
        })
        .collect()
}

/// The Results, in order, named as the model names them.
pub(super) fn results(g: &Graph) -> Vec<TensorInfo> {
    g.results
        .iter()
        .enumerate()
        .filter(|&(_, &n)| !g.nodes[n].dead)
        .map(|(i, &n)| {
            let name = g.result_names.get(i).cloned().flatten().unwrap_or_else(|| g.nodes[n].origin.name.clone());
            let t = g.nodes[n].inputs.first().copied().flatten();
            let elem = t.map_or_else(|| "?".to_owned(), |t| g.tensors[t].fact.elem.name().to_owned());
            TensorInfo { name, shape: t.and_then(|t| shape(g, t)), elem }
        })
        .collect()
}

/// The recurrent cells, with their attributes and weights as the model has them.
pub(super) fn cells(g: &Graph) -> Vec<CellInfo> {
    let mut out = Vec::new();
    for n in live(g) {
        let node = &g.nodes[n];
        let Op::Cell(a) = &node.op else { continue };
        let roles = a.input_roles();
        let port =
            |role: &str| roles.iter().position(|r| *r == role).and_then(|i| node.inputs.get(i).copied().flatten());
        let weights = ["W", "R", "B"]
            .iter()
            .map(|&w| match port(w) {
                None => {
                    WeightInfo { name: w.to_owned(), source: "absent".to_owned(), shape: None, elem: String::new() }
                }
                Some(t) => {
                    let tensor = &g.tensors[t];
                    let source = match g.nodes[tensor.producer.0].op {
                        Op::Parameter { .. } => "parameter",
                        _ if tensor.fact.value.is_some() => "constant",
                        _ => "computed",
                    };
                    let elem = tensor.stored.unwrap_or(tensor.fact.elem).name().to_owned();
                    WeightInfo { name: w.to_owned(), source: source.to_owned(), shape: shape(g, t), elem }
                }
            })
            .collect();
        let gru = matches!(a.op, crate::vocab::CellOp::Gru);
        out.push(CellInfo {
            name: g.code_name(n),
            layer: node.origin.name.clone(),
            op: node.origin.op.clone(),
            line: node.origin.pos.and_then(Pos::line),
            hidden_size: a.hidden_size,
            input_size: port("X").and_then(|x| shape(g, x)).and_then(|s| s.last().cloned()),
            direction: a.sequence.then(|| match &a.direction {
                Ok(d) => d.name().to_owned(),
                Err(e) => e.found.clone().unwrap_or_default(),
            }),
            activations: a
                .activations
                .as_ref()
                .map_or_else(|_| Vec::new(), |v| v.iter().map(ToString::to_string).collect()),
            clip: match a.clip {
                Ok(c) => c.unwrap_or(0.0),
                Err(_) => f32::NAN,
            },
            linear_before_reset: gru.then_some(a.linear_before_reset),
            weights,
        });
    }
    out
}

/// The live nodes cellc does not compile: ops it does not know, and the others a problem
/// names (a `Gather` of indices known only at run time, …), but not the cells, Parameters,
/// Results or constants a problem is about.
pub(super) fn unsupported(g: &Graph, problems: Option<&Diagnostics>) -> Vec<NodeId> {
    let named: BTreeSet<(&str, &str)> = problems
        .iter()
        .flat_map(|d| d.0.iter())
        .filter_map(|d| d.layer.as_ref())
        .map(|l| (l.name.as_str(), l.op.as_str()))
        .collect();
    live(g)
        .filter(|&n| {
            let node = &g.nodes[n];
            match node.op {
                Op::Unknown => true,
                Op::Cell(_) | Op::Parameter { .. } | Op::Result | Op::Const { .. } => false,
                _ => named.contains(&(node.origin.name.as_str(), node.origin.op.as_str())),
            }
        })
        .collect()
}

/// Every node of `g` and of the graphs inside its nodes (an `If`'s branches), walked
/// without recursion.
fn all_nodes(g: &Graph) -> Vec<&crate::graph::Node> {
    let mut out = Vec::new();
    let mut stack = vec![g];
    while let Some(g) = stack.pop() {
        for n in &g.nodes {
            out.push(n);
            stack.extend(n.bodies.iter().map(|b| &b.graph));
        }
    }
    out
}

/// The layers by type: how many the model has (`read`, before the passes) and what the
/// passes made of them (`g`). Parameters, Results and constants are not counted. A layer
/// that became several nodes (an ONNX node read as an op and its layout glue, a lowering)
/// counts once, as run if any of them runs.
pub(super) fn counts(read: &Graph, g: &Graph, unsupported: &[NodeId]) -> Vec<OpCount> {
    let counted = |n: &crate::graph::Node| !matches!(n.op, Op::Parameter { .. } | Op::Result | Op::Const { .. });
    let key = |n: &crate::graph::Node| (n.origin.name.clone(), format!("{:?}", n.origin.pos));
    let mut by_op: BTreeMap<&str, OpCount> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for n in all_nodes(read).into_iter().filter(|n| !n.dead && counted(n)) {
        if seen.insert((n.origin.op.as_str(), key(n))) {
            by_op.entry(&n.origin.op).or_insert_with(|| OpCount::new(&n.origin.op)).read += 1;
        }
    }
    let mut ran = BTreeSet::new();
    let mut refused = BTreeSet::new();
    for n in live(g).filter(|&n| counted(&g.nodes[n])) {
        let k = (g.nodes[n].origin.op.as_str(), key(&g.nodes[n]));
        if unsupported.contains(&n) {
            refused.insert(k)
        } else {
            ran.insert(k)
        };
    }
    for (op, k) in &refused {
        by_op.entry(op).or_insert_with(|| OpCount::new(op)).unsupported += 1;
        ran.remove(&(*op, k.clone()));
    }
    for (op, _) in &ran {
        by_op.entry(op).or_insert_with(|| OpCount::new(op)).run += 1;
    }
    by_op
        .into_values()
        .map(|mut c| {
            c.folded = c.read.saturating_sub(c.run + c.unsupported);
            c
        })
        .filter(|c| c.read > 0)
        .collect()
}

impl OpCount {
    fn new(op: &str) -> OpCount {
        OpCount { op: op.to_owned(), read: 0, run: 0, folded: 0, unsupported: 0 }
    }
}
