//! The kernels the benchmarks time: cellc's generated code for each configuration and
//! strategy, Rust and C (built by `build.rs`), and a naive Rust implementation of the same
//! cells with the same weights, written the obvious way: one dot product per output row.
#![allow(missing_docs, unreachable_pub)]

pub mod machine;
pub mod rounds;

// The generated kernels: what every benchmark but the machine's floors and the kernel
// benchmarks (`conv`) times, and slow to build (each configuration, each strategy, each level).
#[cfg(feature = "kernels")]
mod kernels;
#[cfg(feature = "kernels")]
pub use kernels::*;

#[cfg(all(rtneural, feature = "kernels"))]
pub mod peer;
