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
pub mod graph;
pub mod inspect;
pub mod ir;
pub mod layout;
pub mod limits;
pub mod ops;
pub mod options;
pub mod output;
pub mod passes;
pub mod reference;

pub use builder::Builder;
pub use diag::{Diag, Diagnostics};
pub use options::{Language, Options, Simd, Strategy, WeightType, WeightsMode};

use std::path::{Path, PathBuf};

/// Reads and checks an OpenVINO IR model. `weights` overrides the `.bin` path.
pub fn load_ir(model: &Path, weights: Option<&Path>) -> Result<ir::Model, Diagnostics> {
    let raw = front::openvino::read(model, weights)?;
    check::check(&raw)
}

/// Compiles an OpenVINO IR model to Rust source (whatever `opts.language` says).
pub fn compile_file(model: &Path, opts: &Options) -> Result<String, Diagnostics> {
    let m = load_ir(model, opts.weights.as_deref())?;
    emit::rust::emit(&m, opts)
}

/// Compiles an OpenVINO IR model to the files of `opts.language` whose main file is `out`:
/// for Rust, `out` alone; for C, the header (`out` with the extension `.h`, which the
/// source includes) and then the source `out`. Returns each path with its text.
pub fn compile_to(model: &Path, opts: &Options, out: &Path) -> Result<Vec<(PathBuf, String)>, Diagnostics> {
    let m = load_ir(model, opts.weights.as_deref())?;
    match opts.language {
        Language::Rust => Ok(vec![(out.to_path_buf(), emit::rust::emit(&m, opts)?)]),
        Language::C => {
            let header = out.with_extension("h");
            let name = header.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if header == out || out.file_name().is_none() {
                let msg = "the C output must be the source file (NAME.c); its header NAME.h is written beside it";
                return Err(Diag::new(&out.display().to_string(), None, msg).into());
            }
            let files = emit::c::emit(&m, opts, &name)?;
            Ok(vec![(header, files.header), (out.to_path_buf(), files.source)])
        }
    }
}
