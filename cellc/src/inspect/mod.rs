//! `cellc inspect`: what a model holds and what cellc makes of it, as text or JSON. A model
//! cellc refuses is still described — every cell and op it read, what the passes leave to
//! run, what it does not compile — with each problem and what would make it compile.
mod cut;
mod graph;
mod model;
mod report;
mod text;

#[doc(hidden)]
pub use model::describe;
pub use model::{Compiled, Stored};
pub use report::{Advice, CellInfo, OpCount, Problem, Report, Size, TensorInfo, WeightInfo};

use crate::diag::{Diag, Diagnostics};
use crate::options::Options;
use std::path::Path;

/// Inspects the model at `path` with the options that select its graph and how its weights
/// are stored. Errs only when the model cannot be read at all (malformed XML, missing
/// weights, a bad cut or pin); a model cellc refuses is reported, with its problems.
pub fn inspect(path: &Path, opts: &Options) -> Result<Report, Diagnostics> {
    let read = crate::pipeline::read_graph(path, opts)?;
    let mut g = read.clone();
    let diags = crate::pipeline::run_passes(&mut g);
    // The weights' storage is checked as the emitters check it (a value too large for f16).
    let checked = crate::pipeline::check_passed(&g, diags).and_then(|m| {
        model::compiled(&m, opts)
            .map_err(|e| Diagnostics::one(Diag::new(crate::diag::Code::Conflict, &g.file, None, e.to_string())))
    });
    let (compiled, problems) = match &checked {
        Ok(c) => (Some(c.clone()), Vec::new()),
        Err(d) => (None, d.0.iter().map(Problem::of).collect()),
    };
    let unsupported = graph::unsupported(&g, checked.as_ref().err());
    // While dimensions wait for a pin, the problems say which; a cut would only move them.
    let pins_pending = checked
        .as_ref()
        .err()
        .is_some_and(|d| d.0.iter().any(|d| d.fix.as_deref().is_some_and(crate::diag::Fix::is_pin)));
    let advice =
        if unsupported.is_empty() || pins_pending { Vec::new() } else { cut::advice(path, opts, &g, &unsupported) };
    Ok(Report {
        file: path.display().to_string(),
        // As generated code names it (a converter's default name gives way to the file's).
        model: read.code_model_name(),
        compiles: checked.is_ok(),
        inputs: graph::params(&g),
        outputs: graph::results(&g),
        cells: graph::cells(&g),
        layers: graph::counts(&read, &g, &unsupported),
        problems,
        advice,
        compiled,
    })
}

impl Report {
    /// The report as text, as `cellc inspect` prints it.
    pub fn text(&self) -> String {
        text::render(self)
    }

    /// The report as JSON, as `cellc inspect --json` prints it.
    #[cfg(feature = "serde")]
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
