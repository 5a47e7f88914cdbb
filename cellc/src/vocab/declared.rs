//! What a front-end reads as it is written: where a node came from, dimensions as
//! declared, and the weights file's bytes.
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
    /// OpenVINO's interval (`1..`, `2..10`, `..8`): dynamic, of a size from `min` to `max`
    /// (no bound above when `None`).
    Interval {
        /// The least size.
        min: u64,
        /// The greatest size, if any.
        max: Option<u64>,
    },
}

impl Dim {
    /// A dimension as far as `d` knows it: its size when known, else dynamic.
    pub fn of_sym(d: super::sym::Sym) -> Dim {
        d.value().and_then(|v| u64::try_from(v).ok()).map_or(Dim::Dynamic, Dim::Static)
    }

    /// The dimension as declared, given a size `v`: whether `v` is one it may take.
    pub fn allows(self, v: i64) -> bool {
        match (self, u64::try_from(v)) {
            (_, Err(_)) => false,
            (Dim::Static(n), Ok(v)) => n == v,
            (Dim::Dynamic, Ok(_)) => true,
            (Dim::Interval { min, max }, Ok(v)) => v >= min && max.is_none_or(|m| v <= m),
        }
    }
}

impl std::fmt::Display for Dim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dim::Static(n) => write!(f, "{n}"),
            Dim::Dynamic => f.write_str("?"),
            Dim::Interval { min, max: Some(max) } => write!(f, "{min}..{max}"),
            Dim::Interval { min, max: None } => write!(f, "{min}.."),
        }
    }
}

/// Declared dimensions as messages show them: `[1, ?, 16]`.
pub fn show_dims(dims: &[Dim]) -> String {
    let parts: Vec<String> = dims.iter().map(Dim::to_string).collect();
    format!("[{}]", parts.join(", "))
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
