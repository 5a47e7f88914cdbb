//! Procedural macros of cellc. They only hand their tokens to the `cellc` library
//! (`cellc::expand`), which does all the work with the same pipeline as the command line
//! and build scripts. Use them through `cellc-runtime`, which re-exports them.
use proc_macro::TokenStream;
use std::path::PathBuf;

/// The crate's manifest directory, which paths in the macros are relative to.
fn root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(PathBuf::new, PathBuf::from)
}

/// Compiles an OpenVINO IR model (`model.xml` with `model.bin` beside it) at build time,
/// exactly as `cellc model.xml` would, and expands to the generated items. The path is
/// relative to the crate's manifest directory; editing the model or its weights rebuilds
/// the crate. A model cellc cannot compile is a compile error at the path, carrying
/// cellc's diagnostics.
///
/// ```ignore
/// cellc_runtime::include_model!("models/vad.xml");
/// ```
#[proc_macro]
pub fn include_model(input: TokenStream) -> TokenStream {
    cellc::expand::include_model(input.into(), &root()).into()
}

/// Declares a GRU cell (GRUCell-3; GRUSequence-5 with `steps`). See the crate
/// `cellc-runtime` for the keys and what the declared type offers.
#[proc_macro]
pub fn gru_cell(input: TokenStream) -> TokenStream {
    cellc::expand::cell(cellc::ir::raw::CellOp::Gru, input.into(), &root()).into()
}

/// Declares a plain RNN cell (RNNCell-3; RNNSequence-5 with `steps`). See the crate
/// `cellc-runtime` for the keys and what the declared type offers.
#[proc_macro]
pub fn rnn_cell(input: TokenStream) -> TokenStream {
    cellc::expand::cell(cellc::ir::raw::CellOp::Rnn, input.into(), &root()).into()
}

/// Declares an LSTM cell (LSTMCell-4; LSTMSequence-5 with `steps`). See the crate
/// `cellc-runtime` for the keys and what the declared type offers.
#[proc_macro]
pub fn lstm_cell(input: TokenStream) -> TokenStream {
    cellc::expand::cell(cellc::ir::raw::CellOp::Lstm, input.into(), &root()).into()
}
