//! Sets `cellc_unoptimised` when the crate is built at `opt-level = 0` (a debug build).
//!
//! The kernels force their inlining (`#[inline(always)]`) so that each is compiled whole with
//! the vector level dispatched to. An unoptimised build gains nothing from that, and it pays:
//! every kernel, with every block shape it holds, is copied into each call site, which made
//! the crate's unit tests take 13.5 minutes to build on 2 cores (1 minute without). Under
//! `cellc_unoptimised` they are ordinary functions, each instantiation compiled once.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(cellc_unoptimised)");
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var("OPT_LEVEL").is_ok_and(|level| level == "0") {
        println!("cargo::rustc-cfg=cellc_unoptimised");
    }
}
