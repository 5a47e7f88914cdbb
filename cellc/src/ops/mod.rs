//! The ops cellc knows, one module per family. Each op's semantics live in its family
//! module: its shape rule and its evaluation on constants, which the fold pass uses to
//! compute whatever is known at compile time. [`infer`] is the one entry point.
pub mod cells;
pub mod chain;
pub mod conv;
pub mod einsum;
pub mod elementwise;
pub(crate) mod error;
pub mod interpolate;
pub mod linear;
pub mod norm;
pub mod pad;
pub mod pool;
pub mod range;
pub mod reduce;
pub mod scatter;
pub mod shape;
pub mod strided;
pub(crate) mod tensor;

pub use error::OpError;
pub(crate) use error::refuse;

use crate::limits::{MAX_RANK, MAX_TENSOR_ELEMENTS};
use crate::vocab;
use crate::vocab::{Elem, Fact};

pub use crate::vocab::{Binary, Compare, ReduceKind, Unary};
pub use cells::CellAttrs;
pub use elementwise::Parametric;
pub use linear::DenseAct;
pub use shape::BroadcastMode;

use elementwise::Elementwise;
use pad::Gathering;
use reduce::Along;
use shape::Moving;
use tensor::input;

/// An op with its attributes parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A model input.
    Parameter {
        /// Declared element type.
        elem: Elem,
        /// Declared shape.
        shape: Vec<vocab::Dim>,
    },
    /// A constant: its value is on its output tensor once read; `src` says where it is in
    /// the weights file (`None` for a constant a pass made).
    Const {
        /// Where its bytes are.
        src: Option<Box<crate::vocab::ConstSrc>>,
    },
    /// A model output.
    Result,
    /// `Convert`: to another element type.
    Convert {
        /// Destination type.
        to: Elem,
    },
    /// `ConvertLike`: to the element type of the second input.
    ConvertLike,
    /// `Identity` (and other ops that return their input).
    Identity,
    /// `ShapeOf`.
    ShapeOf {
        /// `output_type`.
        out: Elem,
    },
    /// `Reshape`.
    Reshape {
        /// `special_zero`: 0 in the target copies the input's dimension.
        special_zero: bool,
    },
    /// `Squeeze`.
    Squeeze,
    /// `Unsqueeze`.
    Unsqueeze,
    /// `Transpose`.
    Transpose,
    /// `Concat`.
    Concat {
        /// `axis`.
        axis: i64,
    },
    /// `Gather` (opset 1, 7, 8).
    Gather {
        /// `batch_dims`.
        batch_dims: i64,
    },
    /// `Slice` (opset 8): start, stop, step and optional axes as inputs.
    Slice,
    /// `StridedSlice` (opset 1): begin, end and optional strides as inputs.
    StridedSlice(strided::Masks),
    /// `Split`.
    Split {
        /// `num_splits`.
        parts: u64,
    },
    /// `VariadicSplit`.
    VariadicSplit,
    /// `Broadcast`.
    Broadcast {
        /// `mode`.
        mode: BroadcastMode,
    },
    /// `Tile`: the input repeated along each axis (repeats as input 1).
    Tile,
    /// An elementwise function of one tensor.
    Unary(Unary),
    /// An elementwise function of one tensor with parameters as inputs (resolved to a
    /// [`Op::Unary`] once they are known).
    Parametric(Parametric),
    /// An elementwise function of two tensors with numpy broadcasting.
    Binary(Binary),
    /// Elementwise functions joined by the fuse pass, over inputs broadcast together.
    Chain(chain::Chain),
    /// An elementwise comparison (boolean result).
    Compare(Compare),
    /// `Select`: condition ? then : else, broadcast.
    Select,
    /// `MatMul`.
    MatMul {
        /// `transpose_a`.
        ta: bool,
        /// `transpose_b`.
        tb: bool,
    },
    /// A dense layer the fuse pass makes: `act(x · w + bias)`, `w` a constant matrix
    /// (`[K, N]`, or `[N, K]` with `tb`), `bias` (optional third input) a constant of `N`
    /// values along the last axis; a PReLU's slope (fourth input) the same.
    Dense {
        /// `w` is stored `[N, K]` (the `MatMul`'s `transpose_b`).
        tb: bool,
        /// The activation applied after the bias.
        act: Option<linear::DenseAct>,
        /// The rows of `x` are the windows of a convolution read in place ([`Op::Windows`]
        /// absorbed): `x` is that op's input.
        win: Option<Box<crate::vocab::Windows>>,
    },
    /// `Convolution` or `GroupConvolution`.
    Conv(Box<conv::ConvAttrs>),
    /// `ScatterUpdate` or `ScatterNDUpdate` (indices known at compile time).
    Scatter(scatter::Scatter),
    /// `Einsum` of one or two operands.
    Einsum(Box<einsum::Equation>),
    /// `MVN`, `NormalizeL2` or `BatchNormInference`.
    Norm(norm::Norm),
    /// `Interpolate` (sizes, scales and axes known at compile time).
    Interpolate(Box<interpolate::Interp>),
    /// `MaxPool` or `AvgPool`.
    Pool(Box<pool::PoolAttrs>),
    /// `Pad` (pads as inputs 1 and 2, the pad value as input 3).
    Pad(pad::PadMode),
    /// A gather by a constant table, which passes make of windows and padding.
    Pick(Box<pad::Pick>),
    /// The windows of a convolution over `[N, spatial…, C]` values laid out channels last,
    /// as `[N, positions, taps·C]` (zeros in the padding): what a dense layer reads in place.
    Windows(Box<crate::vocab::Windows>),
    /// A pool over the windows of `[N, spatial…, C]` values laid out channels last, read in
    /// place: `[N, positions, C]`, each channel reduced over its window alone (the padding
    /// takes no part).
    PoolWindows {
        /// The windows.
        win: Box<crate::vocab::Windows>,
        /// What each window's values become.
        kind: crate::vocab::Pooling,
    },
    /// `SoftMax` or `LogSoftmax`.
    Softmax {
        /// The axis.
        axis: i64,
        /// `LogSoftmax`.
        log: bool,
    },
    /// `ReduceSum`, `ReduceMean`, … (axes as input 1).
    Reduce {
        /// Which reduction.
        kind: ReduceKind,
        /// `keep_dims`.
        keep_dims: bool,
    },
    /// `Range` (opset 1 and 4; ONNX's): computed at compile time only.
    Range {
        /// `output_type` (opset 4); `None`: the start's type.
        out: Option<Elem>,
    },
    /// `If`: the branches are the node's bodies.
    If,
    /// `ReadValue` (opset 3 and 6): the value of a variable kept between runs; on the first
    /// run (and after a reset) its input's value, or zeros without one.
    ReadValue {
        /// `variable_id`.
        variable: String,
        /// `variable_shape`, when given.
        shape: Option<Vec<vocab::Dim>>,
        /// `variable_type`, when given.
        elem: Option<Elem>,
    },
    /// `Assign` (opset 3 and 6): stores its input in a variable for the next run.
    Assign {
        /// `variable_id`.
        variable: String,
    },
    /// A recurrent cell, in its Cell or Sequence form.
    Cell(Box<CellAttrs>),
    /// An op cellc does not know.
    Unknown,
}

// Each op as a name without its attributes ([`OpKind`]), so that what every op needs —
// its place in each front-end, its lowering or step, its evaluation, its generator in the
// random-graph test — can be listed kind by kind and checked (the op checklist,
// `cellc/tests/integration/checklist.rs`).
/// Declares [`OpKind`] and [`OpKind::ALL`] from one list.
macro_rules! op_kinds {
    ($($(#[$doc:meta])* $kind:ident),* $(,)?) => {
        /// An [`Op`] without its attributes.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum OpKind {
            $($(#[$doc])* $kind),*
        }

        impl OpKind {
            /// Every kind, in the order of [`Op`]'s variants.
            pub const ALL: &[OpKind] = &[$(OpKind::$kind),*];
        }
    };
}

op_kinds! {
    /// [`Op::Parameter`].
    Parameter,
    /// [`Op::Const`].
    Const,
    /// [`Op::Result`].
    Result,
    /// [`Op::Convert`].
    Convert,
    /// [`Op::ConvertLike`].
    ConvertLike,
    /// [`Op::Identity`].
    Identity,
    /// [`Op::ShapeOf`].
    ShapeOf,
    /// [`Op::Reshape`].
    Reshape,
    /// [`Op::Squeeze`].
    Squeeze,
    /// [`Op::Unsqueeze`].
    Unsqueeze,
    /// [`Op::Transpose`].
    Transpose,
    /// [`Op::Concat`].
    Concat,
    /// [`Op::Gather`].
    Gather,
    /// [`Op::Slice`].
    Slice,
    /// [`Op::StridedSlice`].
    StridedSlice,
    /// [`Op::Split`].
    Split,
    /// [`Op::VariadicSplit`].
    VariadicSplit,
    /// [`Op::Broadcast`].
    Broadcast,
    /// [`Op::Tile`].
    Tile,
    /// [`Op::Unary`].
    Unary,
    /// [`Op::Parametric`].
    Parametric,
    /// [`Op::Binary`].
    Binary,
    /// [`Op::Chain`].
    Chain,
    /// [`Op::Compare`].
    Compare,
    /// [`Op::Select`].
    Select,
    /// [`Op::MatMul`].
    MatMul,
    /// [`Op::Dense`].
    Dense,
    /// [`Op::Conv`].
    Conv,
    /// [`Op::Scatter`].
    Scatter,
    /// [`Op::Einsum`].
    Einsum,
    /// [`Op::Norm`].
    Norm,
    /// [`Op::Interpolate`].
    Interpolate,
    /// [`Op::Pool`].
    Pool,
    /// [`Op::Pad`].
    Pad,
    /// [`Op::Pick`].
    Pick,
    /// [`Op::Windows`].
    Windows,
    /// [`Op::PoolWindows`].
    PoolWindows,
    /// [`Op::Softmax`].
    Softmax,
    /// [`Op::Reduce`].
    Reduce,
    /// [`Op::Range`].
    Range,
    /// [`Op::If`].
    If,
    /// [`Op::ReadValue`].
    ReadValue,
    /// [`Op::Assign`].
    Assign,
    /// [`Op::Cell`].
    Cell,
    /// [`Op::Unknown`].
    Unknown,
}

impl Op {
    /// The op without its attributes.
    pub fn kind(&self) -> OpKind {
        match self {
            Op::Parameter { .. } => OpKind::Parameter,
            Op::Const { .. } => OpKind::Const,
            Op::Result => OpKind::Result,
            Op::Convert { .. } => OpKind::Convert,
            Op::ConvertLike => OpKind::ConvertLike,
            Op::Identity => OpKind::Identity,
            Op::ShapeOf { .. } => OpKind::ShapeOf,
            Op::Reshape { .. } => OpKind::Reshape,
            Op::Squeeze => OpKind::Squeeze,
            Op::Unsqueeze => OpKind::Unsqueeze,
            Op::Transpose => OpKind::Transpose,
            Op::Concat { .. } => OpKind::Concat,
            Op::Gather { .. } => OpKind::Gather,
            Op::Slice => OpKind::Slice,
            Op::StridedSlice(_) => OpKind::StridedSlice,
            Op::Split { .. } => OpKind::Split,
            Op::VariadicSplit => OpKind::VariadicSplit,
            Op::Broadcast { .. } => OpKind::Broadcast,
            Op::Tile => OpKind::Tile,
            Op::Unary(_) => OpKind::Unary,
            Op::Parametric(_) => OpKind::Parametric,
            Op::Binary(_) => OpKind::Binary,
            Op::Chain(_) => OpKind::Chain,
            Op::Compare(_) => OpKind::Compare,
            Op::Select => OpKind::Select,
            Op::MatMul { .. } => OpKind::MatMul,
            Op::Dense { .. } => OpKind::Dense,
            Op::Conv(_) => OpKind::Conv,
            Op::Scatter(_) => OpKind::Scatter,
            Op::Einsum(_) => OpKind::Einsum,
            Op::Norm(_) => OpKind::Norm,
            Op::Interpolate(_) => OpKind::Interpolate,
            Op::Pool(_) => OpKind::Pool,
            Op::Pad(_) => OpKind::Pad,
            Op::Pick(_) => OpKind::Pick,
            Op::Windows(_) => OpKind::Windows,
            Op::PoolWindows { .. } => OpKind::PoolWindows,
            Op::Softmax { .. } => OpKind::Softmax,
            Op::Reduce { .. } => OpKind::Reduce,
            Op::Range { .. } => OpKind::Range,
            Op::If => OpKind::If,
            Op::ReadValue { .. } => OpKind::ReadValue,
            Op::Assign { .. } => OpKind::Assign,
            Op::Cell(_) => OpKind::Cell,
            Op::Unknown => OpKind::Unknown,
        }
    }
}

impl Op {
    /// Whether the op only moves or converts the values of its data input(s) (so a
    /// constant keeps the element type it is stored in through it).
    pub fn moves_data(&self) -> bool {
        matches!(
            self,
            Op::Convert { .. }
                | Op::Identity
                | Op::Reshape { .. }
                | Op::Squeeze
                | Op::Unsqueeze
                | Op::Transpose
                | Op::Concat { .. }
                | Op::Gather { .. }
                | Op::Slice
                | Op::StridedSlice(_)
                | Op::Split { .. }
                | Op::VariadicSplit
                | Op::Broadcast { .. }
                | Op::Tile
                | Op::Pad(_)
                | Op::Pick(_)
                | Op::Windows(_)
        )
    }
}

/// What `op` makes of inputs with these facts: the facts of its outputs (values included
/// when every input it reads is constant and the result is small enough), or why the inputs
/// are wrong for it.
pub fn infer(op: &Op, ins: &[Option<&Fact>], outputs: usize) -> Result<Vec<Fact>, OpError> {
    let facts = match op {
        Op::Parameter { .. } | Op::Const { .. } | Op::Result | Op::If | Op::Unknown => {
            return Err(OpError::NotInferred);
        }
        Op::Convert { to } => shape::infer(Moving::Convert(*to), ins, outputs)?,
        Op::ConvertLike => shape::infer(Moving::ConvertLike, ins, outputs)?,
        Op::Identity => shape::infer(Moving::Identity, ins, outputs)?,
        Op::ShapeOf { out } => shape::infer(Moving::ShapeOf(*out), ins, outputs)?,
        Op::Reshape { special_zero } => shape::infer(Moving::Reshape(*special_zero), ins, outputs)?,
        Op::Squeeze => shape::infer(Moving::Squeeze, ins, outputs)?,
        Op::Unsqueeze => shape::infer(Moving::Unsqueeze, ins, outputs)?,
        Op::Transpose => shape::infer(Moving::Transpose, ins, outputs)?,
        Op::Concat { axis } => shape::infer(Moving::Concat(*axis), ins, outputs)?,
        Op::Gather { batch_dims } => shape::infer(Moving::Gather(*batch_dims), ins, outputs)?,
        Op::Slice => shape::infer(Moving::Slice, ins, outputs)?,
        Op::Split { parts } => shape::infer(Moving::Split(*parts), ins, outputs)?,
        Op::VariadicSplit => shape::infer(Moving::VariadicSplit, ins, outputs)?,
        Op::Broadcast { mode } => shape::infer(Moving::Broadcast(*mode), ins, outputs)?,
        Op::Tile => shape::infer(Moving::Tile, ins, outputs)?,
        Op::Range { out } => range::infer(*out, ins)?,
        Op::StridedSlice(m) => strided::infer(m, ins)?,
        Op::Unary(u) => elementwise::infer(Elementwise::Unary(*u), ins)?,
        Op::Parametric(p) => elementwise::infer(Elementwise::Parametric(*p), ins)?,
        Op::Binary(f) => elementwise::infer(Elementwise::Binary(*f), ins)?,
        Op::Compare(c) => elementwise::infer(Elementwise::Compare(*c), ins)?,
        Op::Select => elementwise::infer(Elementwise::Select, ins)?,
        Op::Chain(c) => chain::infer(c, ins)?,
        Op::MatMul { ta, tb } => linear::matmul(*ta, *tb, ins)?,
        Op::Dense { tb, act, win } => linear::dense(*tb, *act, win.as_deref(), ins)?,
        Op::Softmax { axis, log } => reduce::infer(Along::Softmax { axis: *axis, log: *log }, ins)?,
        Op::Reduce { kind, keep_dims } => reduce::infer(Along::Reduce { kind: *kind, keep_dims: *keep_dims }, ins)?,
        Op::Conv(a) => conv::infer(a, ins)?,
        Op::Pad(mode) => pad::infer(Gathering::Pad(*mode), ins)?,
        Op::Pick(p) => pad::infer(Gathering::Pick(p), ins)?,
        Op::Windows(w) => pad::infer(Gathering::Windows(w), ins)?,
        Op::Pool(a) => pool::infer(a, ins)?,
        Op::PoolWindows { win, kind } => pool::windows(win, *kind, ins)?,
        Op::Interpolate(it) => interpolate::infer(it, ins)?,
        Op::Norm(n) => norm::infer(n, ins)?,
        Op::Einsum(eq) => einsum::infer(eq, ins)?,
        Op::Scatter(kind) => scatter::infer(*kind, ins)?,
        Op::Cell(c) => cells::infer(c, ins)?,
        Op::ReadValue { shape, elem, .. } => match ins.first().copied().flatten() {
            Some(init) => {
                variable_agrees(shape.as_deref(), *elem, init, "its initial value")?;
                vec![Fact { value: None, ..init.clone() }]
            }
            None => {
                let dims =
                    shape.as_ref().ok_or_else(|| refuse!("without an initial value, `variable_shape` is required"))?;
                let dims: Vec<crate::vocab::Sym> = dims
                    .iter()
                    .map(|d| match d {
                        vocab::Dim::Static(n) => Ok(crate::vocab::Sym::known(i64::try_from(*n).unwrap_or(i64::MAX))),
                        vocab::Dim::Dynamic | vocab::Dim::Interval { .. } => {
                            Err(OpError::Rule("`variable_shape` must be static without an initial value".to_owned()))
                        }
                    })
                    .collect::<Result<_, _>>()?;
                vec![Fact::new(elem.unwrap_or(Elem::F32), dims)]
            }
        },
        Op::Assign { .. } => vec![Fact { value: None, ..input(ins, 0, "value")?.clone() }],
    };
    if facts.len() != outputs {
        return Err(OpError::Outputs { gives: facts.len(), declared: outputs });
    }
    for f in &facts {
        within_limits(f.shape.as_deref().unwrap_or_default())?;
    }
    Ok(facts)
}

/// Refuses a shape past [`MAX_RANK`] dimensions or [`MAX_TENSOR_ELEMENTS`] values (a
/// dynamic dimension counted as 1), so that nothing of that size is planned or allocated.
pub fn within_limits(shape: &[crate::vocab::Sym]) -> Result<(), OpError> {
    if shape.len() > MAX_RANK {
        return Err(OpError::Rank { shape: shape.to_vec() });
    }
    let n = crate::limits::product(shape.iter().map(|d| d.value().map_or(1, |v| u64::try_from(v).unwrap_or(u64::MAX))));
    if n.is_none_or(|n| n > MAX_TENSOR_ELEMENTS) {
        return Err(OpError::Size { shape: shape.to_vec() });
    }
    Ok(())
}

/// Checks a value against a variable's declared `variable_shape` and `variable_type`
/// (either may be absent, and a dynamic dimension takes any size).
pub(crate) fn variable_agrees(
    shape: Option<&[vocab::Dim]>,
    elem: Option<Elem>,
    v: &Fact,
    what: &str,
) -> Result<(), OpError> {
    if let Some(e) = elem
        && e != v.elem
    {
        return Err(refuse!("`variable_type` is {} but {what} is {}", e.name(), v.elem.name()));
    }
    let (Some(dims), Some(got)) = (shape, v.shape.as_deref()) else { return Ok(()) };
    let differs = dims.len() != got.len()
        || dims.iter().zip(got).any(|(d, g)| match (d, g.value()) {
            (vocab::Dim::Static(n), Some(v)) => i64::try_from(*n).ok() != Some(v),
            _ => false,
        });
    if differs {
        return Err(refuse!(
            "`variable_shape` is {} but {what} has shape {}",
            vocab::show_dims(dims),
            tensor::show(got)
        ));
    }
    Ok(())
}
