//! Code emitters. Each takes only a validated [`crate::ir::Model`].
pub mod c;
pub(crate) mod plan;
pub mod rust;
