//! The integration tests of the library and the `cellc` program, one binary (one link) for all.
mod architecture;
mod c;
mod checklist;
mod cli;
mod decl_weights;
mod diagnostics;
mod emit;
mod graph;
mod graph_edges;
mod hostile;
mod inspect;
mod layout;
mod names;
mod onnx;
mod reductions;
mod window_ops;
