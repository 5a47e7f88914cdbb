//! Conformance machinery shared by the `cellc-conformance` runner and the integration
//! tests: loading cases, and building generated Rust for real in a scratch crate under
//! `target/` (and generated C with the system's compiler) and running it on inputs from files.
pub mod case;
pub mod cscratch;
pub mod scratch;

/// Largest absolute difference between two equally long sequences (infinite if their
/// lengths differ, NaN-aware: a NaN on either side counts as infinite).
pub fn max_abs_err(got: &[f32], want: &[f64]) -> f64 {
    if got.len() != want.len() {
        return f64::INFINITY;
    }
    got.iter()
        .zip(want)
        .map(|(&g, &w)| {
            let d = (g as f64 - w).abs();
            if d.is_nan() { f64::INFINITY } else { d }
        })
        .fold(0.0, f64::max)
}
