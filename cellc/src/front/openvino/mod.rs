//! OpenVINO IR (versions 10 and 11): `model.xml` read with quick-xml, the graph lowered to
//! the raw ir, and the `.bin` weights file read whole for `check` to slice.
mod lower;
pub(crate) mod weights;
mod xml;

use crate::diag::{Diag, Diagnostics};
use crate::ir::raw;
use std::path::Path;

/// Reads an IR model. `weights` overrides the `.bin` path, which by default is the model's
/// path with the extension `bin`. A missing or unreadable weights file is not an error here:
/// `check` reports it if a constant needs it.
pub fn read(model: &Path, weights: Option<&Path>) -> Result<raw::Model, Diagnostics> {
    let file = model.display().to_string();
    let text =
        std::fs::read_to_string(model).map_err(|e| Diag::new(&file, None, format!("cannot read the model: {e}")))?;
    let bin = weights.map_or_else(|| model.with_extension("bin"), Path::to_path_buf);
    let weights =
        raw::Weights { path: bin.display().to_string(), bytes: std::fs::read(&bin).map_err(|e| e.to_string()) };
    parse(&file, &text, weights)
}

/// Parses the text of an IR model, with its weights already read.
pub fn parse(file: &str, text: &str, weights: raw::Weights) -> Result<raw::Model, Diagnostics> {
    let net = xml::parse(file, text).map_err(Diagnostics)?;
    lower::lower(file, net, weights)
}
