//! The macros' tests, one binary (one link) for all.
mod compile_fail;
mod declare;
mod equivalence;
mod include_model;
