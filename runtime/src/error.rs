//! The one error type of generated code: every failure is a wrong length, count or value in
//! what the caller passed, so the variants say which slice and what was expected.
use core::fmt;

/// Why a generated entry point refused its arguments. Generated code never panics on bad
/// lengths; it returns one of these before touching any output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The number of input slices differs from the model's Parameters.
    InputCount {
        /// Parameters the model has.
        expected: usize,
        /// Slices passed.
        got: usize,
    },
    /// The number of output slices differs from the model's Results.
    OutputCount {
        /// Results the model has.
        expected: usize,
        /// Slices passed.
        got: usize,
    },
    /// A slice does not have the length its tensor needs.
    Length {
        /// Name of the tensor (Parameter, Result or weight).
        name: &'static str,
        /// Elements the tensor needs for this batch (rows, for a slice of rows).
        expected: usize,
        /// Elements (rows) passed.
        got: usize,
    },
    /// A sequence length is not a whole number from 0 to the sequence's steps.
    SequenceLength {
        /// Name of the lengths tensor.
        name: &'static str,
        /// Which batch row.
        row: usize,
        /// The most steps the sequence has.
        max: usize,
    },
    /// A slice holding rows of a dynamic batch is not a whole number of rows.
    PartialRow {
        /// Name of the tensor.
        name: &'static str,
        /// Elements in one row.
        row: usize,
        /// Elements passed.
        got: usize,
    },
    /// The number of weight slices differs from the model's weights given at run time.
    WeightCount {
        /// Weight tensors the model takes.
        expected: usize,
        /// Slices passed.
        got: usize,
    },
    /// A model with weights given at run time was run before `set_weights` succeeded.
    WeightsNotSet,
    /// A weight given at run time is too large for the cell's 16-bit weights (f16 holds
    /// magnitudes up to 65504), or not finite for its int8 weights.
    WeightRange {
        /// Name of the weight tensor.
        name: &'static str,
        /// Index of the value in the slice.
        index: usize,
        /// The cell's weight type.
        weight_type: Half,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::InputCount { expected, got } => {
                write!(f, "expected {expected} input slices, got {got}")
            }
            Error::OutputCount { expected, got } => {
                write!(f, "expected {expected} output slices, got {got}")
            }
            Error::Length { name, expected, got } => {
                write!(f, "`{name}` needs {expected} elements, got {got}")
            }
            Error::SequenceLength { name, row, max } => {
                write!(f, "`{name}`[{row}] is not a whole number from 0 to {max}")
            }
            Error::PartialRow { name, row, got } => {
                write!(f, "`{name}` holds rows of {row} elements, but {got} is not a multiple of {row}")
            }
            Error::WeightCount { expected, got } => {
                write!(f, "expected {expected} weight slices, got {got}")
            }
            Error::WeightsNotSet => f.write_str("the model's weights were not set: call set_weights before run"),
            Error::WeightRange { name, index, weight_type: Half::I8 } => {
                write!(f, "`{name}`[{index}] is not finite, which the cell's i8 weights cannot hold")
            }
            Error::WeightRange { name, index, weight_type } => {
                write!(f, "`{name}`[{index}] is too large for the cell's {weight_type} weights")
            }
        }
    }
}

impl core::error::Error for Error {}

/// Checks that `got` equals `expected`, naming the tensor otherwise.
pub fn check_len(name: &'static str, expected: usize, got: usize) -> Result<(), Error> {
    if expected == got { Ok(()) } else { Err(Error::Length { name, expected, got }) }
}

/// A narrow form of weights: 16-bit, or int8 (see [`cellc_pack::int8`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Half {
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// int8 with a scale per column.
    I8,
}

impl fmt::Display for Half {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Half::F16 => "f16",
            Half::Bf16 => "bf16",
            Half::I8 => "i8",
        })
    }
}

/// Checks that weights given at run time fit the cell's narrow weight type, naming the
/// first value that does not.
pub fn check_range(name: &'static str, weight_type: Half, values: &[f32]) -> Result<(), Error> {
    let overflow = match weight_type {
        Half::F16 => cellc_pack::f16_overflow(values),
        Half::Bf16 => cellc_pack::bf16_overflow(values),
        Half::I8 => cellc_pack::int8::i8_unfit(values),
    };
    match overflow {
        Some(index) => Err(Error::WeightRange { name, index, weight_type }),
        None => Ok(()),
    }
}

/// Checks that every sequence length is a whole number in `[0, max]` (lengths travel as
/// f32 with the other inputs; whole numbers up to 2^24 are exact).
pub fn check_lengths(name: &'static str, lengths: &[f32], max: usize) -> Result<(), Error> {
    match lengths.iter().position(|&v| !(v >= 0.0 && v <= max as f32 && v == (v as usize) as f32)) {
        Some(row) => Err(Error::SequenceLength { name, row, max }),
        None => Ok(()),
    }
}

/// The number of rows of `row` elements in a slice of `len` elements.
pub fn rows_of(name: &'static str, row: usize, len: usize) -> Result<usize, Error> {
    if row == 0 || !len.is_multiple_of(row) { Err(Error::PartialRow { name, row, got: len }) } else { Ok(len / row) }
}
