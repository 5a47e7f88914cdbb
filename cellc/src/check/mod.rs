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
mod lower;
mod products;
mod slots;
mod steps;

use crate::diag::{Diag, Diagnostics};
use crate::graph::Graph;
use crate::ir::{self, Activation, CellKind, Direction};
use checker::Checker;
use lower::Lowering;

/// Checks a folded graph and plans its steps. `reported`: the passes reported problems
/// already (what they left unknown is then not a problem of its own).
pub fn check(g: &Graph, reported: bool) -> Result<ir::verify::Verified, Diagnostics> {
    let mut c = Checker { g, diags: Vec::new(), tainted: vec![false; g.nodes.len()], reported };
    let (order, cyclic) = g.topo_order();
    if !cyclic.is_empty() {
        // The fold pass reported the cycle.
        return Err(Diagnostics(vec![Diag::new(&g.file, None, "the graph has a cycle; see the layers reported")]));
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
                Some(id) => c.err(id, None, msg),
                None => c.diags.push(Diag::new(&g.file, None, msg)),
            }
        }
        c.finish()
    })
}

/// Why a cell's `activations` cannot be resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ActivationError {
    /// Not as many names as the op takes.
    Count {
        /// The names given.
        given: Vec<String>,
        /// The cell's kind.
        kind: CellKind,
    },
    /// A name that is not an activation.
    Unknown {
        /// Its position in the list.
        at: usize,
        /// The name.
        name: String,
    },
}

impl ActivationError {
    /// The position of the name at fault (`None`: the count).
    pub(crate) fn at(&self) -> Option<usize> {
        match self {
            ActivationError::Count { .. } => None,
            ActivationError::Unknown { at, .. } => Some(*at),
        }
    }
}

impl std::fmt::Display for ActivationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ActivationError::Count { given, kind } => write!(
                f,
                "`activations` lists {} function(s) ({}); {} takes exactly {} ({})",
                given.len(),
                given.join(", "),
                kind.op(),
                kind.activation_count(),
                kind.default_activations().join(", ")
            ),
            ActivationError::Unknown { at, name } => write!(
                f,
                "unknown activation {name:?} at position {at} of `activations`; expected one of {}",
                Activation::NAMES.join(", ")
            ),
        }
    }
}

/// A cell's activations: the names given (or the op's defaults) resolved with their
/// parameters.
pub(crate) fn resolve_activations(
    kind: CellKind,
    names: Option<&[String]>,
    alpha: &[Option<f32>],
    beta: &[Option<f32>],
) -> Result<Vec<Activation>, ActivationError> {
    let defaults = kind.default_activations();
    let names: Vec<String> =
        names.map_or_else(|| defaults.iter().map(|s| (*s).to_owned()).collect(), <[String]>::to_vec);
    let want = kind.activation_count();
    if names.len() != want {
        return Err(ActivationError::Count { given: names, kind });
    }
    let mut out = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let (a, b) = (alpha.get(i).copied().flatten(), beta.get(i).copied().flatten());
        let Some(act) = Activation::from_name(n, a, b) else {
            return Err(ActivationError::Unknown { at: i, name: n.clone() });
        };
        out.push(act);
    }
    Ok(out)
}

/// A Sequence op's `direction`.
pub(crate) fn resolve_direction(d: Option<&str>) -> Result<Direction, AttrError> {
    const EXPECTED: &str = "forward, reverse or bidirectional";
    match d.map(str::to_ascii_lowercase).as_deref() {
        Some("forward") => Ok(Direction::Forward),
        Some("reverse") => Ok(Direction::Reverse),
        Some("bidirectional") => Ok(Direction::Bidirectional),
        Some(d) => Err(AttrError { attr: "direction", found: Some(format!("{d:?}")), expected: EXPECTED }),
        None => Err(AttrError { attr: "direction", found: None, expected: EXPECTED }),
    }
}

/// A cell attribute that is absent or holds a value cellc does not take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AttrError {
    /// The attribute.
    pub attr: &'static str,
    /// Its value as written in messages, or `None` when it is absent.
    pub found: Option<String>,
    /// What it may hold.
    pub expected: &'static str,
}

impl std::fmt::Display for AttrError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let AttrError { attr, found, expected } = self;
        match found {
            Some(v) => write!(f, "`{attr}` is {v}; expected {expected}"),
            None => write!(f, "no `{attr}` attribute; expected {expected}"),
        }
    }
}

/// `clip`: `None` for 0 (or infinity), which clip nothing.
pub(crate) fn resolve_clip(clip: f32) -> Result<Option<f32>, AttrError> {
    if clip.is_nan() || clip < 0.0 {
        let expected = "0 (no clipping) or a positive number";
        Err(AttrError { attr: "clip", found: Some(clip.to_string()), expected })
    } else if clip == 0.0 || clip.is_infinite() {
        Ok(None)
    } else {
        Ok(Some(clip))
    }
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
