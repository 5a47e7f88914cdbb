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
pub mod pure;
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

pub use crate::vocab::{Binary, Compare, MathFn, ReduceKind, Unary};
pub use cells::CellAttrs;
pub use elementwise::Parametric;
pub use linear::DenseAct;
pub use shape::BroadcastMode;

use elementwise::Elementwise;
use pad::Gathering;
use reduce::Along;
use shape::Moving;
use tensor::input;

/// An op with its attributes parsed: each variant says what its input ports take (in
/// order; a `?` marks an optional one), what it writes, and what its attributes mean. The
/// front-ends map each format's ops onto these (`front::*::checklist` lists which).
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A model input: no inputs; its output holds the caller's values.
    Parameter {
        /// Declared element type.
        elem: Elem,
        /// Declared shape.
        shape: Vec<vocab::Dim>,
    },
    /// A constant: no inputs; its value is on its output tensor once read. `src` says
    /// where it is in the weights file (`None` for a constant a pass made).
    Const {
        /// Where its bytes are.
        src: Option<Box<crate::vocab::ConstSrc>>,
    },
    /// A model output: input 0 is what the caller reads; no outputs.
    Result,
    /// (data) → data in another element type (float to integer truncates towards zero).
    Convert {
        /// Destination type.
        to: Elem,
    },
    /// (data, like) → data in `like`'s element type.
    ConvertLike,
    /// (data) → data, unchanged (what every op that returns its input becomes).
    Identity,
    /// (data) → its dimensions, a 1-D tensor.
    ShapeOf {
        /// The element type of the output.
        out: Elem,
    },
    /// (data, shape) → data with the dimensions `shape` holds (one of them `-1`, the one
    /// the others leave).
    Reshape {
        /// `special_zero`: 0 in the target copies the input's dimension.
        special_zero: bool,
    },
    /// (data, axes?) → data without the axes of size 1 that `axes` names (every one
    /// without it).
    Squeeze,
    /// (data, axes) → data with an axis of size 1 at each output position `axes` names.
    Unsqueeze,
    /// (data, order) → data with its axes in `order` (reversed when `order` is empty).
    Transpose,
    /// (data…) → the inputs joined along one axis.
    Concat {
        /// The axis joined along (negative from the last).
        axis: i64,
    },
    /// (data, indices, axis) → the slices of `data` along `axis` that `indices` pick, the
    /// first `batch_dims` axes shared by both.
    Gather {
        /// Leading axes of `data` and `indices` taken pairwise, not gathered across.
        batch_dims: i64,
    },
    /// (data, start, stop, step, axes?) → every `step`-th value from `start` to before
    /// `stop` along each axis named (all in order without `axes`), bounds clamped.
    Slice,
    /// (data, begin, end, strides?) → a strided slice, the masks saying which bounds to
    /// ignore and which axes to add, drop or skip.
    StridedSlice(strided::Masks),
    /// (data, axis) → `parts` equal pieces along `axis`.
    Split {
        /// How many pieces.
        parts: u64,
    },
    /// (data, axis, lengths) → one piece along `axis` per length (one of them `-1`, what
    /// the others leave).
    VariadicSplit,
    /// (data, shape, axes?) → data broadcast to `shape` by the rule `mode` names.
    Broadcast {
        /// numpy's, bidirectional, or explicit (through `axes`).
        mode: BroadcastMode,
    },
    /// (data, repeats) → data repeated along each axis.
    Tile,
    /// (x) → an elementwise function of `x`.
    Unary(Unary),
    /// (x, parameters…) → an elementwise function of `x` whose parameters are inputs
    /// (resolved to an [`Op::Unary`] once they are known).
    Parametric(Parametric),
    /// (a, b) → an elementwise function of two tensors, broadcast as numpy does.
    Binary(Binary),
    /// (inputs…) → elementwise functions the fuse pass joined, over inputs broadcast
    /// together.
    Chain(chain::Chain),
    /// (a, b) → an elementwise comparison, broadcast: a boolean tensor.
    Compare(Compare),
    /// (condition, then, else) → `then` where `condition` holds, else `else`, broadcast.
    Select,
    /// (a, b) → the matrix product over the last two axes, the others broadcast (a 1-D
    /// operand a row or a column, as numpy takes it).
    MatMul {
        /// `a`'s last two axes are swapped first.
        ta: bool,
        /// `b`'s last two axes are swapped first.
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
        /// With `win`: `x` is laid out channels first (`[N, C, spatial…]`) and the outputs
        /// are too (`[N, n, positions]`), what the planar kernel reads and writes.
        planar: bool,
        /// With `planar`: `x`'s channels are this many groups of the windows' channels, the
        /// `n` outputs as many groups of `n / groups`, each reading its own group's
        /// windows (`w` is `[n, K]`, `K` one group's window). 1 otherwise.
        groups: usize,
    },
    /// (data `[N, C, spatial…]`, weights) → a convolution (grouped or transposed as its
    /// attributes say), `[N, C_out, spatial…]`.
    Conv(Box<conv::ConvAttrs>),
    /// An op cellc computes at compile time only (its inputs constants): index arithmetic,
    /// tables, and decodings of known values; its inputs are the [`pure::Pure`]'s own.
    Pure(pure::Pure),
    /// (data, indices, updates, axis?) → data with the values or slices the indices
    /// (known at compile time) name replaced by, or combined with, the updates.
    Scatter(scatter::Scatter),
    /// (a, b?) → the sum of products its equation names, one letter an axis.
    Einsum(Box<einsum::Equation>),
    /// (data, parameters…) → a normalisation: by mean and variance over some axes, by the
    /// L2 norm, or by given statistics along the channels.
    Norm(norm::Norm),
    /// (data, sizes or scales, axes?) → data resized along some axes (sizes, scales and
    /// axes known at compile time).
    Interpolate(Box<interpolate::Interp>),
    /// (data `[N, C, spatial…]`) → the largest or the mean of each channel's values under
    /// each window.
    Pool(Box<pool::PoolAttrs>),
    /// (data, pads_begin, pads_end, value?) → data padded along each axis, by `value` (0
    /// without it) or by the data's own edge values.
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
    /// (x) → `e^x` over its sum along one axis (its logarithm with `log`).
    Softmax {
        /// The axis.
        axis: i64,
        /// `LogSoftmax`.
        log: bool,
    },
    /// (data, axes) → data reduced over `axes` (a sum, a mean, a product, an extreme, a
    /// norm…).
    Reduce {
        /// Which reduction.
        kind: ReduceKind,
        /// The reduced axes stay, of size 1.
        keep_dims: bool,
    },
    /// (start, limit, step) → the numbers from `start`, below `limit`, `step` apart:
    /// computed at compile time only.
    Range {
        /// The output's element type; `None`: the start's.
        out: Option<Elem>,
    },
    /// (condition, inputs…) → the outputs of the branch `condition` chooses: the node's
    /// two bodies.
    If,
    /// (initial?) → the value of a variable kept between runs; on the first run (and
    /// after a reset) `initial`'s value, or zeros without it.
    ReadValue {
        /// The variable's name, which its [`Op::Assign`] shares.
        variable: String,
        /// The variable's shape, when given.
        shape: Option<Vec<vocab::Dim>>,
        /// The variable's element type, when given.
        elem: Option<Elem>,
    },
    /// (value) → nothing: stores `value` in a variable for the next run.
    Assign {
        /// The variable's name.
        variable: String,
    },
    /// (x, initial states…, lengths?, weights, recurrent weights, bias?) → a recurrent
    /// cell's states after one step, or a sequence's outputs and last states.
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
    /// [`Op::Pure`].
    Pure,
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

impl OpKind {
    /// Whether a node of this kind can be computed at run time: `false` for the ops cellc
    /// computes at compile time only (shapes, ranges, [`Op::Pure`], an `If`'s condition),
    /// which are refused where their inputs are known only at run time.
    pub fn at_run_time(self) -> bool {
        !matches!(self, OpKind::ShapeOf | OpKind::Range | OpKind::Pure | OpKind::If | OpKind::Unknown)
    }
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
            Op::Pure(_) => OpKind::Pure,
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
        Op::Dense { tb, act, win, planar, groups } => {
            linear::dense(*tb, *act, (win.as_deref(), *planar, *groups), ins)?
        }
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
        Op::Pure(p) => pure::infer(*p, ins)?,
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
