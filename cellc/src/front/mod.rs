//! Front-ends: each reads one kind of source into a [`crate::graph::Graph`], unchecked.
//! [`read_graph`] reads a model file by the front-end of its format.
pub mod decl;
pub mod files;
pub mod onnx;
pub mod openvino;

use crate::diag::Diagnostics;
use std::path::Path;

/// The formats of model files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// OpenVINO IR: an `.xml` file and its `.bin` weights.
    OpenVino,
    /// An ONNX file (`.onnx`).
    Onnx,
}

impl Format {
    /// The format of the model file `path`, by its extension: `.onnx` (in any case) is ONNX;
    /// any other file is read as an OpenVINO IR's XML.
    pub fn of(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("onnx") => Format::Onnx,
            _ => Format::OpenVino,
        }
    }
}

/// Reads the model file `model` as a graph, by the front-end of its format
/// ([`Format::of`]); `weights` overrides where its weights are (an IR's `.bin`).
pub fn read_graph(model: &Path, weights: Option<&Path>) -> Result<crate::graph::Graph, Diagnostics> {
    match Format::of(model) {
        Format::OpenVino => openvino::read_graph(model, weights),
        Format::Onnx => match weights {
            Some(w) => {
                let msg = format!(
                    "a weights file ({}) is given with an ONNX model; an ONNX file holds its weights, or names the files of its external data itself",
                    w.display()
                );
                Err(Diagnostics(vec![crate::diag::Diag::new(&model.display().to_string(), None, msg)]))
            }
            None => onnx::read_graph(model),
        },
    }
}
