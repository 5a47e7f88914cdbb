//! Snapshots of a reduction across rows (`ir::Reduce::across_rows`): the outputs of a row
//! reduced side by side, in Rust and C. `tests/models/ov_reductions` checks their values
//! against OpenVINO in both languages.
use crate::fixtures::{source, step};

#[test]
fn rust_reduction_across_rows() {
    // An L2 norm over the middle axis of [2, 5, 3]: for each of the 2 outer rows, its 3
    // outputs reduced over 5 rows side by side, then the square root of each.
    insta::assert_snapshot!(step(&source("ov_reductions", cellc::Language::Rust), "row.fill", "observe("));
}

#[test]
fn c_reduction_across_rows() {
    // The same step: the row's outputs summed in place in `dst`, a loop GCC vectorises.
    insta::assert_snapshot!(step(&source("ov_reductions", cellc::Language::C), "float *const row", "NET_STEP_DONE("));
}
