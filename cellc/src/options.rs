//! The options of one compilation: one set for the command line, the build-script builder
//! and the macros, so the three cannot drift apart.
use std::path::PathBuf;

/// How the matrix products of a cell are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// The kernel measured fastest for the cell. Today that is the tiled kernel at every
    /// size: `cargo bench -p cellc-bench` measures it 3–40% faster than the unrolled one for
    /// GRUs from H=4, I=2 (72 multiply–adds per step) to H=128, I=16 (55 296), because
    /// both compute the same lanes and the tile loop compiles to tighter code.
    #[default]
    Auto,
    /// Straight-line code: the whole state is one tile and each input element's column is
    /// one statement, with no loop over the inputs. The easiest kernel to read.
    Unrolled,
    /// Loops over weights pre-packed into panels, one tile of 16 outputs at a time.
    Tiled,
}

impl Strategy {
    /// The strategy a cell is compiled with.
    pub fn resolve(self) -> Strategy {
        match self {
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
