//! Why an op's shape rule refuses its inputs: a value the fold pass and the checker place
//! at the node, so every front-end and door words the node's position its own way.
use crate::vocab::Sym;

/// A refusal of an op's rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpError {
    /// An input the op reads is not connected.
    Unconnected {
        /// Its position among the op's inputs.
        index: usize,
        /// What the op calls it.
        what: String,
    },
    /// An input whose rank the op needs is not known.
    UnknownShape {
        /// Its position among the op's inputs.
        index: usize,
        /// What the op calls it.
        what: String,
    },
    /// An axis outside `[-rank, rank)`.
    Axis {
        /// The axis as given.
        axis: i64,
        /// The rank it indexes.
        rank: usize,
    },
    /// An input the op needs as constants is not computable at compile time.
    NotConstant {
        /// What the op calls it.
        what: String,
    },
    /// Values the op needs known depend on a dynamic dimension.
    Dynamic {
        /// What the op calls them.
        what: String,
        /// The dimension they depend on.
        dim: Sym,
    },
    /// Two shapes that do not broadcast.
    Broadcast {
        /// The first shape.
        a: Vec<Sym>,
        /// The second shape.
        b: Vec<Sym>,
    },
    /// An output with more dimensions than cellc takes.
    Rank {
        /// Its shape.
        shape: Vec<Sym>,
    },
    /// An output with more values than cellc takes.
    Size {
        /// Its shape.
        shape: Vec<Sym>,
    },
    /// The op gives a different number of outputs from what its layer declares.
    Outputs {
        /// What the op gives.
        gives: usize,
        /// What the layer declares.
        declared: usize,
    },
    /// Values the op needs at compile time hang on dynamic dimensions, in words; pinning
    /// the model's inputs fixes it.
    Unpinned(String),
    /// An op the shape rules do not cover (Parameters, constants, Results, `If`s).
    NotInferred,
    /// Any other disagreement between the inputs, the attributes and the op's rule, in words.
    Rule(String),
}

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::limits::{MAX_RANK, MAX_TENSOR_ELEMENTS};
        use crate::vocab::show_syms as show;
        match self {
            // Inputs by role: their positions are the op's own, not the file's.
            OpError::Unconnected { what, .. } => write!(f, "its {what} input is not connected"),
            OpError::UnknownShape { what, .. } => write!(f, "the shape of its {what} input is not known"),
            OpError::Axis { axis, rank } => {
                let r = i64::try_from(*rank).unwrap_or(i64::MAX);
                write!(f, "axis {axis} is out of range for rank {rank}; expected {} to {}", -r, r - 1)
            }
            OpError::NotConstant { what } => write!(f, "{what} must be a constant (computable at compile time)"),
            OpError::Dynamic { what, dim } => {
                write!(f, "{what} depends on a dynamic dimension ({dim})")
            }
            OpError::Broadcast { a, b } => {
                write!(f, "shapes {} and {} do not broadcast (numpy rules)", show(a), show(b))
            }
            OpError::Rank { shape } => write!(
                f,
                "gives a tensor of {} dimensions ({}); cellc takes tensors of at most {MAX_RANK}",
                shape.len(),
                show(shape)
            ),
            OpError::Size { shape } => write!(
                f,
                "gives a tensor of shape {}, more than {MAX_TENSOR_ELEMENTS} values; cellc takes tensors of at most {MAX_TENSOR_ELEMENTS}",
                show(shape)
            ),
            OpError::Outputs { gives, declared } => {
                write!(f, "the op gives {gives} outputs; the layer declares {declared}")
            }
            OpError::NotInferred => f.write_str("not inferred by its op"),
            OpError::Rule(msg) | OpError::Unpinned(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for OpError {}

impl From<OpError> for crate::diag::Message {
    /// The refusal in words, with the fix (pin the inputs) of one that a pin fixes, and the
    /// kind of problem where the error knows it.
    fn from(e: OpError) -> Self {
        use crate::diag::{Code, Fix, Message};
        let m = Message::new(e.to_string());
        match e {
            OpError::Dynamic { .. } | OpError::Unpinned(_) => m.fix(Fix::pin()).code(Code::Dynamic),
            OpError::Rank { .. } | OpError::Size { .. } => m.code(Code::Limit),
            _ => m,
        }
    }
}

/// `refuse!("…", args)`: an [`OpError::Rule`] worded as `format!` words it.
macro_rules! refuse {
    ($($arg:tt)*) => {
        $crate::ops::error::OpError::Rule(format!($($arg)*))
    };
}
pub(crate) use refuse;

/// `unpinned!("…", args)`: an [`OpError::Unpinned`] worded as `format!` words it.
macro_rules! unpinned {
    ($($arg:tt)*) => {
        $crate::ops::error::OpError::Unpinned(format!($($arg)*))
    };
}
pub(crate) use unpinned;
