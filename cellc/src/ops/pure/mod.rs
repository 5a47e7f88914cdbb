//! Ops cellc computes at compile time only, each by its definition in f64 or on whole
//! numbers: the index arithmetic and tables models build from constants (a filterbank's rows,
//! a window, a mask, a one-hot matrix) and the decodings at their ends when what they read
//! is known. Each has a shape rule, so that a node of them whose inputs are known only at
//! run time keeps its place in the graph and is refused by the checker at that node, only
//! when it has to run.
mod common;
mod index;
mod table;

use super::error::OpError;
use crate::vocab::{Elem, Fact};

/// An op computed on constants only.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pure {
    /// (data, indices) → the value of `data` at each index along `axis`, the other
    /// coordinates the index's own (`GatherElements`).
    GatherElements {
        /// The axis.
        axis: i64,
    },
    /// (x, k) → the `k` largest (or smallest) values along `axis` in order, and their
    /// indices (i64); equal values in the order of their indices (`TopK`).
    TopK {
        /// The axis.
        axis: i64,
        /// The largest.
        largest: bool,
    },
    /// (x, axis?) → running sums or products along `axis` (0 without it) (`CumSum`,
    /// `CumProd`).
    Cumulative {
        /// Products.
        product: bool,
        /// Each value leaves itself out.
        exclusive: bool,
        /// From the end.
        reverse: bool,
    },
    /// (x, k?) → `x` with the values below (`upper`) or above its `k`-th diagonal zeroed,
    /// over its last two axes (`Trilu`).
    Trilu {
        /// Keep the upper triangle.
        upper: bool,
    },
    /// (indices, depth, values) → for each index a row of `depth` values inserted at
    /// `axis`: `values[1]` at the index (counted from the end when negative), `values[0]`
    /// elsewhere (`OneHot`).
    OneHot {
        /// Where the new axis goes.
        axis: i64,
    },
    /// (x) → the coordinates of its values other than zero, `[rank, n]` i64 (`NonZero`).
    NonZero,
    /// (x) → a matrix of `x`'s shape with ones on its `k`-th diagonal, zeros elsewhere
    /// (`EyeLike`), of type `elem` (`x`'s without it).
    EyeLike {
        /// The diagonal: 0 the main one, above it when positive.
        k: i64,
        /// The output's type.
        elem: Option<Elem>,
    },
    /// (x) → 1 at the first largest value along `axis`, 0 elsewhere (`Hardmax`).
    Hardmax {
        /// The axis.
        axis: i64,
    },
    /// (x) → booleans: which values are NaN, or infinities of the signs asked for
    /// (`IsNaN`, `IsInf`).
    Class(table::Class),
    /// (size) → a window of `size` values of type `elem` (`HannWindow`, `HammingWindow`,
    /// `BlackmanWindow`).
    Window {
        /// Which window.
        kind: table::WindowKind,
        /// Periodic (one more point, the last dropped) or symmetric.
        periodic: bool,
        /// The output's type.
        elem: Elem,
    },
    /// (a, b?) → bitwise functions and shifts of whole numbers (`BitwiseAnd`, `BitShift`…).
    Bits(table::Bits),
}

pub use table::{Bits, Class, WindowKind};

impl Pure {
    /// The op's name as ONNX writes it (in messages).
    pub fn name(self) -> &'static str {
        match self {
            Pure::GatherElements { .. } => "GatherElements",
            Pure::TopK { .. } => "TopK",
            Pure::Cumulative { product: false, .. } => "CumSum",
            Pure::Cumulative { product: true, .. } => "CumProd",
            Pure::Trilu { .. } => "Trilu",
            Pure::OneHot { .. } => "OneHot",
            Pure::NonZero => "NonZero",
            Pure::EyeLike { .. } => "EyeLike",
            Pure::Hardmax { .. } => "Hardmax",
            Pure::Class(c) => c.name(),
            Pure::Window { kind, .. } => kind.name(),
            Pure::Bits(b) => b.name(),
        }
    }
}

/// The outputs' facts: shapes always (when the inputs' are known), values when every input
/// read is constant.
pub(super) fn infer(op: Pure, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    match op {
        Pure::GatherElements { axis } => index::gather_elements(ins, axis),
        Pure::TopK { axis, largest } => index::top_k(ins, axis, largest),
        Pure::Hardmax { axis } => index::hardmax(ins, axis),
        Pure::OneHot { axis } => index::one_hot(ins, axis),
        Pure::NonZero => index::non_zero(ins),
        Pure::Cumulative { product, exclusive, reverse } => table::cumulative(ins, product, exclusive, reverse),
        Pure::Trilu { upper } => table::trilu(ins, upper),
        Pure::EyeLike { k, elem } => table::eye_like(ins, k, elem),
        Pure::Class(c) => table::class(ins, c),
        Pure::Window { kind, periodic, elem } => table::window(ins, kind, periodic, elem),
        Pure::Bits(b) => table::bits(ins, b),
    }
}
