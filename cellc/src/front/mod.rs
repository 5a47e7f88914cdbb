//! Front-ends: each reads one kind of source into a [`crate::graph::Graph`], unchecked.
pub mod decl;
pub mod files;
pub mod openvino;
