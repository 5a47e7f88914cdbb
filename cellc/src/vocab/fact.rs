//! What is known of a tensor: its element type, its shape (dimensions may be symbolic) and,
//! for a constant, its value; and where a constant's bytes are.
use super::elem::Elem;
use super::sym::Sym;
use crate::diag::Pos;

/// Where a constant's bytes are in the weights file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstSrc {
    /// Element type stored.
    pub elem: Elem,
    /// Declared shape.
    pub shape: Vec<u64>,
    /// Byte offset.
    pub offset: u64,
    /// Byte size.
    pub size: u64,
    /// Where `element_type`, `offset` and `size` are written.
    pub attr_pos: Vec<(&'static str, Pos)>,
}

/// A constant value, row-major.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// Float values, each exactly representable in the tensor's element type.
    Float(Vec<f64>),
    /// Whole numbers (and booleans as 0 and 1), possibly depending on a symbol.
    Int(Vec<Sym>),
}

impl Data {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Data::Float(v) => v.len(),
            Data::Int(v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values as whole numbers (floats must be whole).
    pub fn ints(&self) -> Option<Vec<Sym>> {
        match self {
            Data::Int(v) => Some(v.clone()),
            Data::Float(v) => {
                v.iter().map(|&x| (x.fract() == 0.0 && x.abs() < 9.0e15).then(|| Sym::known(x as i64))).collect()
            }
        }
    }

    /// The values as known whole numbers.
    pub fn known_ints(&self) -> Option<Vec<i64>> {
        self.ints()?.into_iter().map(Sym::value).collect()
    }

    /// The values as floats, when none depends on a symbol.
    pub fn floats(&self) -> Option<Vec<f64>> {
        match self {
            Data::Float(v) => Some(v.clone()),
            Data::Int(v) => v.iter().map(|s| s.value().map(|x| x as f64)).collect(),
        }
    }

    /// Picks the values at `idx`, in order.
    pub fn pick(&self, idx: &[usize]) -> Data {
        match self {
            Data::Float(v) => Data::Float(idx.iter().map(|&i| v[i]).collect()),
            Data::Int(v) => Data::Int(idx.iter().map(|&i| v[i]).collect()),
        }
    }
}

/// What is known of a tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Fact {
    /// Element type.
    pub elem: Elem,
    /// Shape, when its rank is known.
    pub shape: Option<Vec<Sym>>,
    /// Value, when it is a constant.
    pub value: Option<Data>,
}

impl Fact {
    /// A tensor of known type and shape, not constant.
    pub fn new(elem: Elem, shape: Vec<Sym>) -> Fact {
        Fact { elem, shape: Some(shape), value: None }
    }

    /// A constant.
    pub fn constant(elem: Elem, shape: Vec<Sym>, value: Data) -> Fact {
        Fact { elem, shape: Some(shape), value: Some(value) }
    }

    /// The number of elements, when every dimension is known.
    pub fn known_len(&self) -> Option<usize> {
        known_len(self.shape.as_ref()?)
    }
}

/// The number of elements of a shape, when every dimension is known and the product fits.
pub fn known_len(shape: &[Sym]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, d| acc.checked_mul(usize::try_from(d.size()?).ok()?))
}
