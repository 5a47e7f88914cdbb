//! What `cellc inspect` reports, as data: the text and JSON forms are renderings of it.
use super::model::Compiled;
use crate::diag::Diag;

/// What `cellc inspect` reports of a model.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Report {
    /// The model file, as given.
    pub file: String,
    /// The model's name.
    pub model: String,
    /// Whether cellc compiles it (with the options given).
    pub compiles: bool,
    /// The Parameters, after the passes.
    pub inputs: Vec<TensorInfo>,
    /// The Results, after the passes.
    pub outputs: Vec<TensorInfo>,
    /// The recurrent cells read, with their attributes and weights as the model has them.
    pub cells: Vec<CellInfo>,
    /// The layers read, by type, and what the passes made of them.
    pub layers: Vec<OpCount>,
    /// Every problem, as compiling would report it.
    pub problems: Vec<Problem>,
    /// What would make the model compile.
    pub advice: Vec<Advice>,
    /// The compiled model: its steps, and the bytes its weights take as they will be stored.
    pub compiled: Option<Compiled>,
}

/// One dimension as `inspect` reports it: a size (a number in JSON), or `?` (or the
/// expression of other dimensions it is known to be) where it is dynamic.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(untagged))]
pub enum Size {
    /// A size known at compile time.
    Known(u64),
    /// A dynamic size: `?`, or an expression such as `2*d0`.
    Dynamic(String),
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Size::Known(n) => write!(f, "{n}"),
            Size::Dynamic(s) => f.write_str(s),
        }
    }
}

/// A Parameter or a Result.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TensorInfo {
    /// Its name.
    pub name: String,
    /// Its dimensions: sizes, `?` where dynamic (`null` where even the rank is unknown).
    pub shape: Option<Vec<Size>>,
    /// Its element type.
    pub elem: String,
}

/// A recurrent cell as read.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CellInfo {
    /// The name generated code gives it (its types and identifiers follow it): its layer's
    /// name where that survives a re-export, else its position (`gru0`), or the user's
    /// `--cell-name`.
    pub name: String,
    /// The layer's name.
    pub layer: String,
    /// Its type (`GRUSequence`, `LSTMCell`, …).
    pub op: String,
    /// Its line in the model file.
    pub line: Option<u32>,
    /// `hidden_size`.
    pub hidden_size: i64,
    /// The input size, when known.
    pub input_size: Option<Size>,
    /// `direction` (Sequence forms).
    pub direction: Option<String>,
    /// The activations, with their parameters (the op's defaults where none are written);
    /// empty when they do not resolve (the problems say why).
    pub activations: Vec<String>,
    /// `clip` (0: none; NaN when it is not a valid clip, which the problems say).
    pub clip: f32,
    /// `linear_before_reset` (GRU).
    pub linear_before_reset: Option<bool>,
    /// `W`, `R` and `B`.
    pub weights: Vec<WeightInfo>,
}

/// One of a cell's weight inputs as read.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WeightInfo {
    /// `W`, `R` or `B`.
    pub name: String,
    /// `constant`, `parameter` (given at run time), `computed` or `absent`.
    pub source: String,
    /// Its dimensions, when known.
    pub shape: Option<Vec<Size>>,
    /// The element type the model stores it in (`f16` for a compressed IR).
    pub elem: String,
}

/// The layers of one type.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct OpCount {
    /// The layer type.
    pub op: String,
    /// How many the model has.
    pub read: usize,
    /// How many run in the generated code (or would).
    pub run: usize,
    /// How many the passes computed at compile time, fused into others, or removed.
    pub folded: usize,
    /// How many cellc does not compile (at run time).
    pub unsupported: usize,
}

/// A problem, as compiling reports it.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Problem {
    /// Its stable code (`C0201`, docs/DIAGNOSTICS.md).
    pub code: &'static str,
    /// The message.
    pub message: String,
    /// The file it is in.
    pub file: String,
    /// Line and column, when known.
    pub line: Option<u32>,
    /// Column, when known.
    pub column: Option<u32>,
    /// The layer it is about.
    pub layer: Option<String>,
    /// That layer's type.
    pub op: Option<String>,
}

/// Something that would make the model compile.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Advice {
    /// What to do, and why.
    pub text: String,
    /// The arguments to add to the command line.
    pub args: Vec<String>,
    /// Whether the model compiles with them (checked by compiling it).
    pub compiles: bool,
}

impl Problem {
    pub(super) fn of(d: &Diag) -> Problem {
        Problem {
            code: d.code.id(),
            message: d.said(&|s| s.to_string()),
            file: d.file.clone(),
            line: d.pos.and_then(crate::diag::Pos::line),
            column: d.pos.and_then(crate::diag::Pos::col),
            layer: d.layer.as_ref().map(|l| l.name.clone()),
            op: d.layer.as_ref().map(|l| l.op.clone()),
        }
    }
}
