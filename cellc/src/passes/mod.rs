//! Compile-time passes over the [`crate::graph::Graph`], each a function of the graph in
//! its own module: [`fold()`] (shape inference and constant folding), [`simplify()`].
pub mod fold;
pub mod simplify;

pub use fold::fold;
pub use simplify::simplify;
