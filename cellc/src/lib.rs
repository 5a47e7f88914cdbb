//! cellc: an ahead-of-time compiler for recurrent models (ONNX or OpenVINO IR) to Rust and C.
//!
//! One pipeline, `front → passes → check → emit`: a front-end (ONNX, IR, macro) reads a model into a
//! graph, the passes fold and simplify it, the check validates it and plans its steps, and
//! an emitter writes specialised source for it. The public API is what the doors use:
//! [`compile_file`] and [`compile_to`] run the whole pipeline with [`Options`],
//! [`Builder`] does it from a build script, and [`inspect::inspect`] describes a model.
//! The modules below them are public for cellc's own crates (the macros, the test suites)
//! and hidden from the documentation: they change without notice.
pub mod builder;
#[doc(hidden)]
pub mod check;
#[cfg(feature = "cli")]
pub mod cli;
pub mod diag;
mod door;
#[doc(hidden)]
pub mod emit;
#[doc(hidden)]
pub mod expand;
#[doc(hidden)]
pub mod front;
#[doc(hidden)]
pub mod graph;
pub mod inspect;
#[doc(hidden)]
pub mod ir;
#[doc(hidden)]
pub mod limits;
#[doc(hidden)]
pub mod ops;
pub mod options;
#[doc(hidden)]
pub mod output;
#[doc(hidden)]
pub mod passes;
mod pipeline;
#[doc(hidden)]
pub mod reference;
#[doc(hidden)]
pub mod vocab;

pub use builder::Builder;
pub use diag::{Diag, Diagnostics};
pub use options::{InputShape, Language, Options, Simd, Strategy, Threads, WeightTables, WeightType, WeightsMode};
pub use pipeline::{auto_states, compile_file, compile_to};
#[doc(hidden)]
pub use pipeline::{check_passed, load_graph, load_ir, model_of, read_graph, run_passes};
