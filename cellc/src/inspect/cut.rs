//! The cut `inspect` proposes for a model with layers cellc does not compile: `--inputs`
//! just after the unsupported layers the cells depend on, `--outputs` just before the ones
//! that depend on the cells, so that what is left holds every cell (in a model without
//! cells, every layer no unsupported one leads to); proposed only once the model is compiled
//! with it, or with the problems that remain.
use super::graph::live;
use super::report::Advice;
use crate::graph::{Graph, NodeId, TensorId};
use crate::ops::Op;
use crate::options::Options;
use std::collections::BTreeSet;
use std::path::Path;

/// Which nodes read each tensor (live nodes only).
fn readers(g: &Graph) -> Vec<Vec<NodeId>> {
    let mut r = vec![Vec::new(); g.tensors.len()];
    for n in live(g) {
        for t in g.nodes[n].inputs.iter().flatten() {
            if let Some(v) = r.get_mut(*t) {
                v.push(n);
            }
        }
    }
    r
}

/// `from` and every node it depends on (`up`) or that depends on it (`!up`), walked
/// without recursion.
fn closure(g: &Graph, readers: &[Vec<NodeId>], from: &[NodeId], up: bool) -> BTreeSet<NodeId> {
    let mut seen: BTreeSet<NodeId> = from.iter().copied().collect();
    let mut stack: Vec<NodeId> = from.to_vec();
    while let Some(n) = stack.pop() {
        let next: Vec<NodeId> = if up {
            g.nodes[n].inputs.iter().flatten().map(|&t| g.tensors[t].producer.0).collect()
        } else {
            g.nodes[n].outputs.iter().flat_map(|&t| readers[t].iter().copied()).collect()
        };
        for m in next {
            if !g.nodes[m].dead && seen.insert(m) {
                stack.push(m);
            }
        }
    }
    seen
}

/// A name `--inputs`/`--outputs` finds the tensor by: its own, or its layer's when it is
/// the layer's only output. `None` when it has neither, or one the comma-separated flags
/// cannot carry.
fn name_of(g: &Graph, t: TensorId) -> Option<String> {
    let tensor = &g.tensors[t];
    let node = &g.nodes[tensor.producer.0];
    let name = match tensor.names.first() {
        Some(n) => n.clone(),
        None if node.outputs.len() == 1 => node.origin.name.clone(),
        None => return None,
    };
    (!name.is_empty() && !name.contains(',')).then_some(name)
}

/// Whether a tensor is worth naming as a cut point: computed at run time, not a
/// Parameter's or a constant's.
fn computed(g: &Graph, t: TensorId) -> bool {
    let tensor = &g.tensors[t];
    tensor.fact.value.is_none() && !matches!(g.nodes[tensor.producer.0].op, Op::Parameter { .. } | Op::Const { .. })
}

/// The tensors produced inside `set` and read outside it (`leaving`), or produced outside
/// it and read inside (`!leaving`), in the order of their producers.
fn frontier(g: &Graph, readers: &[Vec<NodeId>], set: &BTreeSet<NodeId>, leaving: bool) -> Vec<TensorId> {
    let mut out = Vec::new();
    for n in live(g) {
        for &t in &g.nodes[n].outputs {
            let inside = set.contains(&n);
            let read_across = readers[t].iter().any(|r| set.contains(r) != inside);
            if inside == leaving && read_across && computed(g, t) && !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

/// The cut that leaves out `unsupported` and keeps every cell, as arguments, checked by
/// compiling the model with them.
pub(super) fn advice(path: &Path, opts: &Options, g: &Graph, unsupported: &[NodeId]) -> Vec<Advice> {
    // A cut the user already asked for is theirs to change.
    if unsupported.is_empty() || !opts.cut_inputs.is_empty() || !opts.cut_outputs.is_empty() {
        return Vec::new();
    }
    let readers = readers(g);
    let mut cells: Vec<NodeId> = live(g).filter(|&n| matches!(g.nodes[n].op, Op::Cell(_))).collect();
    if cells.is_empty() {
        // Without cells, what to keep is every layer computed at run time that no unsupported
        // one leads to.
        let tainted = closure(g, &readers, unsupported, false);
        cells = live(g)
            .filter(|&n| {
                !tainted.contains(&n) && !matches!(g.nodes[n].op, Op::Parameter { .. } | Op::Const { .. } | Op::Result)
            })
            .filter(|&n| g.nodes[n].outputs.iter().any(|&t| computed(g, t)))
            .collect();
        if cells.is_empty() {
            return Vec::new();
        }
    }
    let feeding_cells = closure(g, &readers, &cells, true);
    let before: Vec<NodeId> = unsupported.iter().copied().filter(|n| feeding_cells.contains(n)).collect();
    let upstream = if before.is_empty() { BTreeSet::new() } else { closure(g, &readers, &before, true) };
    let after: Vec<NodeId> = unsupported.iter().copied().filter(|n| !upstream.contains(n)).collect();
    let downstream = if after.is_empty() { BTreeSet::new() } else { closure(g, &readers, &after, false) };
    let inputs = frontier(g, &readers, &upstream, true);
    let mut outputs = Vec::new();
    if !after.is_empty() {
        // The model's own Results that the cut keeps, then what the left-out layers read.
        for &r in &g.results {
            let t = g.nodes[r].inputs.first().copied().flatten();
            if let Some(t) = t.filter(|t| {
                let p = g.tensors[*t].producer.0;
                !g.nodes[r].dead && !downstream.contains(&p) && !upstream.contains(&p)
            }) {
                outputs.push(t);
            }
        }
        let skip: BTreeSet<NodeId> = downstream.union(&upstream).copied().collect();
        for t in frontier(g, &readers, &downstream, false) {
            if !skip.contains(&g.tensors[t].producer.0) && !outputs.contains(&t) {
                outputs.push(t);
            }
        }
    }
    let names = |ts: &[TensorId]| ts.iter().map(|&t| name_of(g, t)).collect::<Option<Vec<String>>>();
    let (Some(ins), Some(outs)) = (names(&inputs), names(&outputs)) else {
        return Vec::new();
    };
    if ins.is_empty() && outs.is_empty() {
        return Vec::new();
    }
    // The user's own options (pins, states, weights) with the cut: the command as it runs.
    let mut cut = Options { cut_inputs: ins, cut_outputs: outs, ..opts.clone() };
    // Pins of the Parameters the cut leaves out would name Parameters it no longer has.
    if let Ok(part) = crate::pipeline::read_graph(path, &Options { input_shapes: Vec::new(), ..cut.clone() }) {
        let kept = |name: &str| {
            part.params.iter().any(|&p| {
                part.nodes[p].origin.name == name
                    || part.tensors[part.nodes[p].outputs[0]].names.iter().any(|n| n == name)
            })
        };
        cut.input_shapes.retain(|s| kept(&s.name));
    }
    let args = cut.to_args();
    let kept = if live(g).any(|n| matches!(g.nodes[n].op, Op::Cell(_))) { "the cells" } else { "the part kept" };
    let what = match (before.is_empty(), after.is_empty()) {
        (false, false) => format!("the layers before and after {kept}"),
        (false, true) => format!("the layers before {kept}"),
        (true, _) => format!("the layers after {kept}"),
    };
    let result = crate::pipeline::load_graph(path, &cut);
    let text = match &result {
        Ok(_) => format!(
            "compile the part without the layers cellc does not compile ({} of them; checked: it compiles), and compute {what} in your program",
            unsupported.len()
        ),
        Err(d) => {
            const SHOWN: usize = 8;
            let mut left: Vec<String> = d.0.iter().take(SHOWN).map(crate::Diag::headline).collect();
            if d.0.len() > SHOWN {
                left.push(format!("and {} more", d.0.len() - SHOWN));
            }
            format!(
                "cut away the layers cellc does not compile ({} of them); what is left still has {} problem{}: {}",
                unsupported.len(),
                d.0.len(),
                if d.0.len() == 1 { "" } else { "s" },
                left.join("; ")
            )
        }
    };
    vec![Advice { text, args, compiles: result.is_ok() }]
}
