//! Compile-time passes over the [`crate::graph::Graph`], each a function of the graph in
//! its own module: [`cut()`] (`--inputs`/`--outputs`), [`fold()`] (shape inference and
//! constant folding), [`simplify()`], [`lower()`] (convolutions and pads onto the planner's kernels), [`cancel_transposes()`] (layout glue), [`compose()`] (gathers read through transposes), [`fuse()`] (dense layers), [`make_stateful()`] (`--state`).
mod cause;
mod compose;
mod conv;
pub mod cut;
mod depthwise;
mod edit;
pub mod fold;
pub mod fuse;
mod layout;
pub mod lower;
pub mod pairs;
mod products;
mod resize;
pub mod simplify;
pub mod state;
mod verify;

pub use compose::compose;
pub use cut::{cut, drop_unread};
pub use fold::fold;
pub use fuse::fuse;
pub use layout::cancel_transposes;
pub use lower::lower;
pub use pairs::state_pairs;
pub use simplify::simplify;
pub use state::make_stateful;
