//! Front-ends: each reads one kind of source into a [`crate::graph::Graph`], unchecked.
//! [`read_graph`] reads a model file by the front-end of its format.
pub mod decl;
pub mod files;
pub mod onnx;
pub mod openvino;

use crate::diag::Diagnostics;
use std::path::Path;

pub use crate::vocab::Format;

/// Where an op ([`crate::ops::OpKind`]) comes from in one format: the format's op types
/// that make it, or why none does. Each front-end answers for every kind
/// (`front::openvino::checklist`, `front::onnx::checklist`), so that an op added to cellc
/// fails to compile until each says where it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sources {
    /// The format's op types that make it.
    Types(&'static [&'static str]),
    /// Why no op of the format makes it (a pass makes it, or the format has no such op).
    Not(&'static str),
}

/// The files beside model `model` that reading it reads, which exist: an IR's weights
/// (`weights`, else the `.bin` of the same stem), an ONNX model's external data files. What
/// a build script or a macro tells cargo to watch with the model.
pub fn side_files(model: &Path, weights: Option<&Path>) -> Vec<std::path::PathBuf> {
    match Format::of(model) {
        Format::OpenVino => {
            let w = weights.map_or_else(|| model.with_extension("bin"), Path::to_path_buf);
            vec![w].into_iter().filter(|w| w.exists()).collect()
        }
        Format::Onnx => onnx::external_files(model),
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
                Err(Diagnostics(vec![crate::diag::Diag::new(
                    crate::diag::Code::Conflict,
                    &model.display().to_string(),
                    None,
                    msg,
                )]))
            }
            None => onnx::read_graph(model),
        },
    }
}
