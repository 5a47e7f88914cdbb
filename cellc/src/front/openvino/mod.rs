//! OpenVINO IR (versions 10 and 11): `model.xml` read with quick-xml into a graph, and of
//! the `.bin` weights file the byte ranges its constants name.
pub mod checklist;
mod graph;
mod known;
mod ops;

mod xml;

use crate::diag::{Diag, Diagnostics};
use crate::vocab;
use std::path::Path;

/// Reads an IR model as a graph. `weights` overrides the `.bin` path, which by default is
/// the model's path with the extension `bin`; of it, only the byte ranges the model's
/// constants (its bodies' included) name are read. A missing or unreadable weights file is
/// not an error here: the check reports it if a constant needs it.
pub fn read_graph(model: &Path, weights: Option<&Path>) -> Result<crate::graph::Graph, Diagnostics> {
    let file = model.display().to_string();
    let text = super::files::read_text(model).map_err(|e| {
        let hint = match e {
            super::files::FileError::NotText => {
                "; an OpenVINO IR model is the XML text of its `.xml` file, its weights the `.bin` beside it"
            }
            _ => "",
        };
        Diag::new(crate::diag::Code::Read, &file, None, format!("cannot read the model: {e}{hint}"))
    })?;
    let bin = weights.map_or_else(|| model.with_extension("bin"), Path::to_path_buf);
    let net = xml::parse(&file, &text).map_err(Diagnostics)?;
    let mut g = graph::build(&file, &net).map_err(Diagnostics)?;
    let mut ranges = Vec::new();
    const_ranges(&g, &mut ranges);
    let data = if ranges.is_empty() {
        Ok(Default::default())
    } else {
        super::files::read_ranges(&bin, &ranges).map_err(|e| e.to_string())
    };
    g.weights = vocab::Weights { path: bin.display().to_string(), data };
    Ok(g)
}

/// Parses the text of an IR model as a graph, with its weights file held in memory.
pub fn parse_graph(file: &str, text: &str, weights: vocab::Weights) -> Result<crate::graph::Graph, Diagnostics> {
    let net = xml::parse(file, text).map_err(Diagnostics)?;
    let mut g = graph::build(file, &net).map_err(Diagnostics)?;
    g.weights = weights;
    Ok(g)
}

/// The byte ranges of every constant of `g` and of the graphs inside its nodes (at most as
/// deep as the XML reader lets bodies nest).
fn const_ranges(g: &crate::graph::Graph, out: &mut Vec<(u64, u64)>) {
    let mut stack = vec![g];
    while let Some(g) = stack.pop() {
        for n in &g.nodes {
            if let crate::ops::Op::Const { src: Some(s) } = &n.op {
                out.push((s.offset, s.size));
            }
            stack.extend(n.bodies.iter().map(|b| &b.graph));
        }
    }
}
