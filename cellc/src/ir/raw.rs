//! A model as a front-end read it, before any semantic check: attribute values are parsed
//! to numbers and lists, but nothing is yet known to be consistent. `check` turns this into
//! the validated [`crate::ir::Model`].
use crate::diag::Pos;

/// Where a node came from, for diagnostics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// Position of the node in the source.
    pub pos: Option<Pos>,
    /// Its name.
    pub name: String,
    /// Its operation (`GRUCell`, `Parameter`, …).
    pub op: String,
}

/// A dimension as declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// A known size.
    Static(u64),
    /// `?` or `-1`.
    Dynamic,
}

/// Declared dimensions as messages show them: `[1, ?, 16]`.
pub fn show_dims(dims: &[Dim]) -> String {
    let parts: Vec<String> = dims
        .iter()
        .map(|d| match d {
            Dim::Static(n) => n.to_string(),
            Dim::Dynamic => "?".to_owned(),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// A Parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Node origin.
    pub origin: Origin,
    /// Tensor name (first of the output port's `names`), if any.
    pub tensor_name: Option<String>,
    /// Declared element type, as written.
    pub elem: String,
    /// Declared shape.
    pub shape: Vec<Dim>,
}

/// A constant in the weights file, with the `Convert` nodes folded into it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Const {
    /// Node origin (the `Const` layer).
    pub origin: Origin,
    /// Element type stored in the file, as written.
    pub elem: String,
    /// Declared shape.
    pub shape: Vec<u64>,
    /// Byte offset in the weights file.
    pub offset: u64,
    /// Byte size in the weights file.
    pub size: u64,
    /// `Convert` nodes applied in order: destination type as written, and the node.
    pub converts: Vec<(String, Origin)>,
    /// Where `element_type`, `offset` and `size` are written.
    pub attr_pos: Vec<(&'static str, Pos)>,
}

impl Const {
    /// Where attribute `key` is written, else where the constant is.
    pub fn attr_pos(&self, key: &str) -> Option<Pos> {
        self.attr_pos.iter().find(|(k, _)| *k == key).map(|(_, p)| *p).or(self.origin.pos)
    }
}

/// Where a cell input or a Result takes its value from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Parameter by index.
    Param(usize),
    /// Constant by index.
    Const(usize),
    /// Output `port` (0 for the hidden state, 1 for an LSTM's cell state) of the cell with
    /// this index.
    Cell(usize, usize),
    /// Nothing is connected to the port.
    Missing,
    /// A node cellc does not compile.
    Unsupported(Origin),
}

/// One input port of a cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// What feeds it.
    pub source: Source,
    /// The dimensions declared on the port.
    pub dims: Vec<Dim>,
    /// The port's position in the source.
    pub pos: Option<Pos>,
}

/// The kind of a cell as read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellOp {
    /// `GRUCell`.
    Gru,
    /// `RNNCell`.
    Rnn,
    /// `LSTMCell` (opset4).
    Lstm,
}

/// A recurrent cell with its attributes as read.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Node origin.
    pub origin: Origin,
    /// Which cell.
    pub op: CellOp,
    /// Whether it is the Sequence form (`GRUSequence`, …): inputs `[batch, steps, …]`,
    /// a `sequence_lengths` input, weights per direction.
    pub sequence: bool,
    /// `direction` (Sequence forms), as written.
    pub direction: Option<String>,
    /// Where the attributes that `check` reports on are written.
    pub attr_pos: Vec<(&'static str, Pos)>,
    /// `hidden_size`.
    pub hidden_size: i64,
    /// `activations`, as written; `None` when absent (defaults apply).
    pub activations: Option<Vec<String>>,
    /// `activations_alpha`, by position in `activations` (`None`: the function's default).
    pub alpha: Vec<Option<f32>>,
    /// `activations_beta`, by position in `activations`.
    pub beta: Vec<Option<f32>>,
    /// `clip`; 0 means none.
    pub clip: f32,
    /// `linear_before_reset` (GRU only).
    pub linear_before_reset: bool,
    /// How `W`, `R` and `B` are laid out (always OpenVINO's for IR).
    pub layout: crate::layout::Layout,
    /// Input ports in port order.
    pub inputs: Vec<Input>,
    /// Dimensions declared on each output port, in port order.
    pub output_dims: Vec<Vec<Dim>>,
    /// Where each output port is written.
    pub output_pos: Vec<Option<Pos>>,
    /// Element type of the output port, as written (`FP32`, …), if declared.
    pub precision: Option<String>,
}

impl Cell {
    /// Where attribute `key` is written, else where the cell is.
    pub fn attr_pos(&self, key: &str) -> Option<Pos> {
        self.attr_pos.iter().find(|(k, _)| *k == key).map(|(_, p)| *p).or(self.origin.pos)
    }

    /// Where activation `i` is written, when a front-end knows (a declaration does), else
    /// where `activations` is.
    pub fn activation_pos(&self, i: usize) -> Option<Pos> {
        let key = ACTIVATION_KEYS.get(i).copied().unwrap_or("activations");
        self.attr_pos.iter().find(|(k, _)| *k == key).map(|(_, p)| *p).or_else(|| self.attr_pos("activations"))
    }
}

/// Keys of [`Cell::attr_pos`] for the positions of single activations.
pub const ACTIVATION_KEYS: [&str; 3] = ["activations.0", "activations.1", "activations.2"];

/// A Result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    /// Node origin.
    pub origin: Origin,
    /// Tensor name, if any.
    pub tensor_name: Option<String>,
    /// What it returns.
    pub source: Source,
}

/// The weights file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Path as shown to the user.
    pub path: String,
    /// What was read of it, or why it could not be read.
    pub data: Result<WeightData, String>,
}

impl Weights {
    /// A weights file held whole in memory.
    pub fn whole(path: &str, bytes: Vec<u8>) -> Self {
        Weights { path: path.to_owned(), data: Ok(WeightData::whole(bytes)) }
    }
}

/// The parts of a weights file that were read: the byte ranges constants name (or the whole
/// file), and the file's length, against which the other ranges are reported.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WeightData {
    len: u64,
    ranges: std::collections::BTreeMap<(u64, u64), Vec<u8>>,
    whole: Option<Vec<u8>>,
}

impl WeightData {
    /// Nothing read yet of a file of `len` bytes.
    pub fn new(len: u64) -> Self {
        WeightData { len, ..WeightData::default() }
    }

    /// A whole file.
    pub fn whole(bytes: Vec<u8>) -> Self {
        WeightData { len: bytes.len() as u64, ranges: Default::default(), whole: Some(bytes) }
    }

    /// Records the bytes read at `offset`.
    pub fn insert(&mut self, offset: u64, bytes: Vec<u8>) {
        self.ranges.insert((offset, bytes.len() as u64), bytes);
    }

    /// The file's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes `offset..offset + size`, if they were read.
    pub fn get(&self, offset: u64, size: u64) -> Option<&[u8]> {
        if let Some(b) = self.ranges.get(&(offset, size)) {
            return Some(b);
        }
        let (start, end) = (usize::try_from(offset).ok()?, usize::try_from(offset.checked_add(size)?).ok()?);
        self.whole.as_ref()?.get(start..end)
    }
}

/// A model as read.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// The source file, as shown to the user.
    pub file: String,
    /// The model's name.
    pub name: String,
    /// Parameters, in the model's order.
    pub params: Vec<Param>,
    /// Constants.
    pub consts: Vec<Const>,
    /// Cells, each after the cells it reads.
    pub cells: Vec<Cell>,
    /// Results, in the model's order.
    pub outputs: Vec<Output>,
    /// Layers of ops cellc does not compile that a cell or a Result depends on, in the order
    /// they were found.
    pub unsupported: Vec<Origin>,
    /// The weights file.
    pub weights: Weights,
}
