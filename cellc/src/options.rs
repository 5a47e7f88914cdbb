//! The options of one compilation: one set for the command line, the build-script builder
//! and the macros, so the three cannot drift apart.
use std::path::PathBuf;

/// How the matrix products of a cell are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// Unrolled for tiny cells (at most [`Strategy::AUTO_UNROLL_MACS`] multiply–adds per
    /// step), tiled otherwise.
    #[default]
    Auto,
    /// Straight-line code: the whole state is one tile and each input element's column is
    /// one statement, with no loop over the inputs.
    Unrolled,
    /// Loops over weights pre-packed into panels, one tile of outputs at a time.
    Tiled,
}

impl Strategy {
    /// Largest cell (multiply–adds per step) that `Auto` unrolls. Chosen by measurement
    /// (`cargo bench -p cellc-bench`): at 288 multiply–adds (GRU H=8, I=4) the two
    /// strategies are within 2%, and from 816 (GRU H=16, I=1) on the tiled loops are 5–15%
    /// faster.
    pub const AUTO_UNROLL_MACS: usize = 256;

    /// The strategy used for a cell of `macs` multiply–adds.
    pub fn resolve(self, macs: usize) -> Strategy {
        match self {
            Strategy::Auto if macs <= Self::AUTO_UNROLL_MACS => Strategy::Unrolled,
            Strategy::Auto => Strategy::Tiled,
            s => s,
        }
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Auto => "auto",
            Strategy::Unrolled => "unrolled",
            Strategy::Tiled => "tiled",
        }
    }
}

/// Options of one compilation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Name of the generated model type; by default derived from the model's name.
    pub name: Option<String>,
    /// Kernel strategy.
    pub strategy: Strategy,
    /// The weights file, when it is not the model's path with the extension `.bin`.
    pub weights: Option<PathBuf>,
}
