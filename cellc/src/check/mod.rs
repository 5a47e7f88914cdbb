//! The gate between the passes and the emitters: every problem left in
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
mod gathers;
mod lower;
mod products;
mod slots;
mod steps;

use crate::diag::{Code, Diag, Diagnostics};
use crate::graph::Graph;
use crate::ir;
use checker::Checker;
use lower::Lowering;

/// Checks a folded graph and plans its steps. `reported`: the passes reported problems
/// already (what they left unknown is then not a problem of its own).
pub fn check(g: &Graph, reported: bool) -> Result<ir::verify::Verified, Diagnostics> {
    let mut c = Checker { g, diags: Vec::new(), tainted: vec![false; g.nodes.len()], reported };
    let (order, cyclic) = g.topo_order();
    if !cyclic.is_empty() {
        // The fold pass reported the cycle.
        return Err(Diagnostics(vec![Diag::new(
            crate::diag::Code::Malformed,
            &g.file,
            None,
            "the graph has a cycle; see the layers reported",
        )]));
    }
    // Every unsupported op and every dimension to pin are reported, and then what the
    // lowering finds in the rest of the graph (it skips what reads an unsupported op).
    c.unsupported(&order);
    c.empty(&order);
    c.variables(&order);
    let Some((mode, also)) = c.mode(&order) else { return Err(c.finish()) };
    let mut p = Lowering::new(g, mode, also);
    p.params(&mut c);
    for &id in &order {
        if !c.tainted[id] {
            p.node(&mut c, id);
        }
    }
    p.outputs(&mut c);
    p.param_types(&mut c);
    if !c.diags.is_empty() {
        return Err(c.finish());
    }
    let (mut model, mut trace) = p.finish();
    slots::share(&mut model, &mut trace);
    c.scratch_size(&model);
    if !c.diags.is_empty() {
        return Err(c.finish());
    }
    #[cfg(test)]
    tests::sabotage(&mut model);
    // Every plan is checked against itself, in every build: a plan that fails its check is
    // an error naming the layers whose steps fail it, never generated code.
    ir::verify::Verified::new(model, &trace).map_err(|faults| {
        for f in faults {
            let msg = format!("internal error: the planned model fails its own check ({f}); please report it");
            let node = trace.iter().filter(|t| (t.steps.0..t.steps.1).contains(&f.steps.0)).find_map(|t| t.node);
            match node {
                Some(id) => c.err(Code::Internal, id, None, msg),
                None => c.diags.push(Diag::new(crate::diag::Code::Internal, &g.file, None, msg)),
            }
        }
        c.finish()
    })
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    thread_local! {
        /// Whether the plans made on this thread get their first slot shortened by one value.
        static SABOTAGE: Cell<bool> = const { Cell::new(false) };
    }

    /// Breaks the plan as a planner's bug would, when the test asked for it.
    pub(super) fn sabotage(m: &mut crate::ir::Model) {
        if SABOTAGE.with(Cell::get)
            && let Some(s) = m.slots.first_mut()
        {
            *s -= 1;
        }
    }

    #[test]
    fn a_plan_that_fails_its_check_is_an_error_naming_the_layer_not_code() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/pt_gru_frame_heads");
        let graph = || crate::front::openvino::read_graph(&dir.join("model.xml"), None).expect("the fixture reads");
        crate::pipeline::model_of(graph()).expect("the fixture compiles");
        SABOTAGE.with(|s| s.set(true));
        let err = crate::pipeline::model_of(graph()).expect_err("a slot too short");
        SABOTAGE.with(|s| s.set(false));
        let text = err.to_string();
        assert!(text.contains("fails its own check") && text.contains("which holds"), "{text}");
        assert!(text.contains("layer \""), "the layer is named: {text}");
    }
}
