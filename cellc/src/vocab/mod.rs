//! The words every part of cellc shares, below all of them: element types and symbolic
//! dimensions, what is known of a tensor, where a node came from and the dimensions it
//! declares, the kinds of cell with their activations, and the elementwise functions
//! generated code computes. It imports nothing of cellc but `diag` and `limits`.
mod cell;
mod cell_attr;
mod declared;
mod decode;
mod elem;
mod fact;
mod format;
mod func;
mod layout;
mod sym;
mod windows;

pub use cell::{Activation, CellKind, CellOp, Direction};
pub use cell_attr::{
    ActivationError, AttrError, resolve_activations, resolve_activations_of, resolve_clip, resolve_direction,
};
pub use declared::{Dim, Origin, WeightData, Weights, show_dims};
pub use decode::decode_data;
pub use elem::{Carried, Elem, ElemType};
pub use fact::{ConstSrc, Data, Fact, known_len};
pub use format::Format;
pub use func::{Arg, Binary, Chain, Compare, Instr, MapFn, MathFn, ReduceKind, Unary};
pub use layout::Layout;
pub use sym::{Sym, show_syms};
pub use windows::{Pooling, Windows};
