//! cellc: an ahead-of-time compiler for recurrent neural-network cells.
//!
//! One pipeline, `front → check → emit`: a front-end reads a model into the raw
//! [`ir::raw`] form, [`check`](check::check) validates it into an [`ir::Model`], and an
//! emitter writes specialised source for it. [`compile_file`] runs the whole pipeline.
pub mod builder;
pub mod check;
#[cfg(feature = "cli")]
pub mod cli;
pub mod diag;
pub mod emit;
pub mod expand;
pub mod front;
pub mod inspect;
pub mod ir;
pub mod layout;
pub mod options;
pub mod output;
pub mod reference;

pub use builder::Builder;
pub use diag::{Diag, Diagnostics};
pub use options::{Options, Strategy, WeightsMode};

use std::path::Path;

/// Reads and checks an OpenVINO IR model. `weights` overrides the `.bin` path.
pub fn load_ir(model: &Path, weights: Option<&Path>) -> Result<ir::Model, Diagnostics> {
    let raw = front::openvino::read(model, weights)?;
    check::check(&raw)
}

/// Compiles an OpenVINO IR model to Rust source.
pub fn compile_file(model: &Path, opts: &Options) -> Result<String, Diagnostics> {
    let m = load_ir(model, opts.weights.as_deref())?;
    emit::rust::emit(&m, opts)
}
