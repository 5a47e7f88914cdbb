//! Code emitters. Each takes only a validated [`crate::ir::Model`].
pub mod rust;
