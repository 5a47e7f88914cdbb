//! Front-ends: each reads one kind of source into a [`crate::graph::Graph`], unchecked.
//! [`read_graph`] reads a model file by the front-end of its format.
pub mod decl;
pub mod files;
pub mod onnx;
pub mod openvino;

use crate::diag::{Diag, Diagnostics};
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
        Format::Onnx => {
            let m = onnx::read_model(model).map_err(|d| Diagnostics(vec![d]))?;
            let msg = format!(
                "this is an ONNX file ({}), and this version of cellc reads OpenVINO IR models: convert it first with OpenVINO's `ovc {} --compress_to_fp16=False` (`pip install openvino`), which writes the `.xml` and `.bin` to give cellc instead (`--compress_to_fp16=False` keeps the weights f32, as the ONNX file has them)",
                onnx::describe(&m),
                model.file_name().map_or_else(|| model.display().to_string(), |n| n.to_string_lossy().into_owned())
            );
            Err(Diagnostics(vec![Diag::new(&model.display().to_string(), None, msg)]))
        }
    }
}
