//! Front-ends: each reads one kind of source into the unchecked [`crate::ir::raw`] model.
pub mod decl;
pub mod files;
pub mod openvino;
