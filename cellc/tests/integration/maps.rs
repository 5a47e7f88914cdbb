//! Snapshots of elementwise chains where their form depends on what they compute: a chain of
//! polynomial functions compiled at each vector level in Rust, and in C the logarithm's
//! helper and a row of square roots. `tests/models/pt_gru_frame_heads` and
//! `tests/models/silero_vad` check their values against OpenVINO and onnxruntime in both
//! languages; `tests/tests/it/c_activations.rs` checks the C's bits against the runtime's.
use crate::fixtures::{source, step};

#[test]
fn rust_chain_at_each_vector_level() {
    // 672 values through swish, a log-sigmoid and a square root: the loop in a function of
    // its own, called through `dispatch!` (the same bits at every level: no fused
    // multiply-adds in chains).
    insta::assert_snapshot!(step(&source("pt_gru_frame_heads", cellc::Language::Rust), "fn map(", "observe("));
}

#[test]
fn c_chain_with_a_logarithm() {
    // The same chain in C: `net_ln`, the runtime's logarithm operation for operation.
    insta::assert_snapshot!(step(&source("pt_gru_frame_heads", cellc::Language::C), "net_ln(t", "NET_STEP_DONE("));
}

#[test]
fn c_chain_ending_in_a_square_root() {
    // A magnitude, √(a² + b²): the sum of squares into the row, then the row's square roots
    // in vectors.
    insta::assert_snapshot!(step(&source("silero_vad", cellc::Language::C), "net_sqrt_row(&", "NET_STEP_DONE("));
}
