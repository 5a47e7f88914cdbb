//! The gate between the passes and the emitters for graph models: every problem left in
//! a folded graph, collected (ops cellc does not compile, dimensions to pin, cells with
//! wrong attributes or shapes), and, when there is none, the validated [`ir::Model`]: the
//! graph's ops in dependency order as steps over operands planned here.
//!
//! A model runs in one of two modes. With every dimension known it runs once over whole
//! tensors (a Transpose is a copy, a cell loops over its batch). With one dynamic
//! dimension, the batch, it runs once per row: each tensor holds one row (the batch axis
//! counts as 1), so only ops that keep rows apart are allowed, and the Parameters and
//! Results must have the batch as their first dimension.
mod cells;
mod checker;
mod plan;
mod steps;

use crate::diag::{Diag, Diagnostics};
use crate::graph::Graph;
use crate::ir;
use checker::Checker;
use plan::Planner;

/// Checks a folded graph and plans its steps. `reported`: the passes reported problems
/// already (what they left unknown is then not a problem of its own).
pub fn check(g: &Graph, reported: bool) -> Result<ir::Model, Diagnostics> {
    let mut c = Checker { g, diags: Vec::new(), tainted: vec![false; g.nodes.len()], reported };
    let (order, cyclic) = g.topo_order();
    if !cyclic.is_empty() {
        // The fold pass reported the cycle.
        return Err(Diagnostics(vec![Diag::new(&g.file, None, "the graph has a cycle; see the layers reported")]));
    }
    // Every unsupported op and every dimension to pin are reported, and then what the
    // planner finds in the rest of the graph (it skips what reads an unsupported op).
    c.unsupported(&order);
    c.empty(&order);
    c.variables(&order);
    let Some((mode, also)) = c.mode(&order) else { return Err(c.finish()) };
    let mut p = Planner::new(g, mode, also);
    p.params(&mut c);
    for &id in &order {
        if c.tainted[id] {
            p.done(id);
            continue;
        }
        p.node(&mut c, id);
    }
    p.outputs(&mut c);
    p.param_types(&mut c);
    p.scratch_size(&mut c);
    if !c.diags.is_empty() {
        return Err(c.finish());
    }
    let (model, trace) = p.finish();
    // In debug and test builds (and the fuzzer's) every plan is checked against itself.
    if cfg!(debug_assertions)
        && let Err(problems) = model.verify(&trace)
    {
        let msg = format!(
            "internal error: the planned model fails its own check ({}); please report it",
            problems.join("; ")
        );
        return Err(Diagnostics(vec![Diag::new(&g.file, None, msg)]));
    }
    Ok(model)
}
