//! The integration tests that build generated code for real (scratch crates of Rust and C
//! programs), in one test binary: one build and one link instead of one per file. `cargo
//! test` runs the README's snippet; the others are long, and `.ci/run` runs them (`cargo
//! test -p cellc-conformance --test it -- --ignored`, the property tests over more cells and graphs).
mod c_activations;
mod dense;
mod drift;
mod graph_props;
mod included;
mod inlined;
mod inspect_bytes;
mod properties;
mod readme;
mod split;
mod stateful;
mod streaming;
mod tables;
mod two_fronts;
