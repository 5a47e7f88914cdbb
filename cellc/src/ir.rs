//! The model as cellc understands it. [`raw`] is what a front-end read, unchecked; the
//! types here are the validated model that `check` produces and that the emitters and the
//! reference interpreter take: every size known, every activation resolved, every weight
//! either decoded to f32 or bound to a runtime Parameter.
pub mod raw;
pub mod steps;
pub mod verify;

pub use steps::{CellStep, DenseStep, Home, Operand, State, Step};

use std::fmt;

/// Element types of constants and Parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType {
    /// IEEE binary32.
    F32,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// IEEE binary64.
    F64,
}

impl ElemType {
    /// Parses an IR `element_type` (`f32`, `f16`, `bf16`, `f64`).
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "f32" | "fp32" => Some(ElemType::F32),
            "f16" | "fp16" => Some(ElemType::F16),
            "bf16" => Some(ElemType::Bf16),
            "f64" | "fp64" => Some(ElemType::F64),
            _ => None,
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            ElemType::F32 => 4,
            ElemType::F16 | ElemType::Bf16 => 2,
            ElemType::F64 => 8,
        }
    }

    /// Rounds an exact value to this type, as a `Convert` to it does.
    pub fn round(self, v: f64) -> f64 {
        match self {
            ElemType::F32 => v as f32 as f64,
            ElemType::F16 => half::f16::from_f64(v).to_f64(),
            ElemType::Bf16 => half::bf16::from_f64(v).to_f64(),
            ElemType::F64 => v,
        }
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ElemType::F32 => "f32",
            ElemType::F16 => "f16",
            ElemType::Bf16 => "bf16",
            ElemType::F64 => "f64",
        })
    }
}

/// An activation function with its parameters resolved: OpenVINO's four and the rest of
/// the ONNX set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Activation {
    /// `max(0, x)`.
    Relu,
    /// `1 / (1 + e^-x)`.
    Sigmoid,
    /// `tanh(x)`.
    Tanh,
    /// `max(0, min(1, alpha·x + beta))` (defaults 0.2, 0.5).
    HardSigmoid {
        /// Slope.
        alpha: f32,
        /// Offset.
        beta: f32,
    },
    /// `alpha·x + beta` (defaults 1, 0).
    Affine {
        /// Slope.
        alpha: f32,
        /// Offset.
        beta: f32,
    },
    /// `x` if `x ≥ 0`, else `alpha·x` (default 0.01).
    LeakyRelu {
        /// Slope below zero.
        alpha: f32,
    },
    /// `x` if `x > alpha`, else 0 (default 1).
    ThresholdedRelu {
        /// Threshold.
        alpha: f32,
    },
    /// `alpha·tanh(beta·x)` (defaults 1, 1).
    ScaledTanh {
        /// Output scale.
        alpha: f32,
        /// Input scale.
        beta: f32,
    },
    /// `x` if `x ≥ 0`, else `alpha·(e^x − 1)` (default 1).
    Elu {
        /// Scale below zero.
        alpha: f32,
    },
    /// `x / (1 + |x|)`.
    Softsign,
    /// `ln(1 + e^x)`.
    Softplus,
}

impl Activation {
    /// Resolves a name (case-insensitive) with optional alpha and beta; the defaults are
    /// OpenVINO's for hardsigmoid and ONNX's for the others. `None` for an unknown name.
    pub fn from_name(name: &str, alpha: Option<f32>, beta: Option<f32>) -> Option<Activation> {
        let a = |d: f32| alpha.unwrap_or(d);
        let b = |d: f32| beta.unwrap_or(d);
        Some(match name.to_ascii_lowercase().as_str() {
            "relu" => Activation::Relu,
            "sigmoid" => Activation::Sigmoid,
            "tanh" => Activation::Tanh,
            "hardsigmoid" => Activation::HardSigmoid { alpha: a(0.2), beta: b(0.5) },
            "affine" => Activation::Affine { alpha: a(1.0), beta: b(0.0) },
            "leakyrelu" => Activation::LeakyRelu { alpha: a(0.01) },
            "thresholdedrelu" => Activation::ThresholdedRelu { alpha: a(1.0) },
            "scaledtanh" => Activation::ScaledTanh { alpha: a(1.0), beta: b(1.0) },
            "elu" => Activation::Elu { alpha: a(1.0) },
            "softsign" => Activation::Softsign,
            "softplus" => Activation::Softplus,
            _ => return None,
        })
    }

    /// Every name [`Activation::from_name`] knows, for messages.
    pub const NAMES: &'static [&'static str] = &[
        "relu",
        "sigmoid",
        "tanh",
        "hardsigmoid",
        "affine",
        "leakyrelu",
        "thresholdedrelu",
        "scaledtanh",
        "elu",
        "softsign",
        "softplus",
    ];

    /// The name used in IR and in generated documentation.
    pub fn name(&self) -> &'static str {
        match self {
            Activation::Relu => "relu",
            Activation::Sigmoid => "sigmoid",
            Activation::Tanh => "tanh",
            Activation::HardSigmoid { .. } => "hardsigmoid",
            Activation::Affine { .. } => "affine",
            Activation::LeakyRelu { .. } => "leakyrelu",
            Activation::ThresholdedRelu { .. } => "thresholdedrelu",
            Activation::ScaledTanh { .. } => "scaledtanh",
            Activation::Elu { .. } => "elu",
            Activation::Softsign => "softsign",
            Activation::Softplus => "softplus",
        }
    }

    /// Applies the activation in f64 (the reference interpreter's arithmetic).
    pub fn apply_f64(&self, x: f64) -> f64 {
        match *self {
            Activation::Relu => x.max(0.0),
            Activation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            Activation::Tanh => x.tanh(),
            Activation::HardSigmoid { alpha, beta } => (alpha as f64 * x + beta as f64).clamp(0.0, 1.0),
            Activation::Affine { alpha, beta } => alpha as f64 * x + beta as f64,
            Activation::LeakyRelu { alpha } => {
                if x >= 0.0 {
                    x
                } else {
                    alpha as f64 * x
                }
            }
            Activation::ThresholdedRelu { alpha } => {
                if x > alpha as f64 {
                    x
                } else {
                    0.0
                }
            }
            Activation::ScaledTanh { alpha, beta } => alpha as f64 * (beta as f64 * x).tanh(),
            Activation::Elu { alpha } => {
                if x >= 0.0 {
                    x
                } else {
                    alpha as f64 * x.exp_m1()
                }
            }
            Activation::Softsign => x / (1.0 + x.abs()),
            Activation::Softplus => x.max(0.0) + (-x.abs()).exp().ln_1p(),
        }
    }
}

impl fmt::Display for Activation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Activation::HardSigmoid { alpha, beta }
            | Activation::Affine { alpha, beta }
            | Activation::ScaledTanh { alpha, beta } => write!(f, "{}(alpha={alpha}, beta={beta})", self.name()),
            Activation::LeakyRelu { alpha } | Activation::ThresholdedRelu { alpha } | Activation::Elu { alpha } => {
                write!(f, "{}(alpha={alpha})", self.name())
            }
            Activation::Relu | Activation::Sigmoid | Activation::Tanh | Activation::Softsign | Activation::Softplus => {
                f.write_str(self.name())
            }
        }
    }
}

/// The kinds of cell cellc compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellKind {
    /// GRUCell-3: gates z, r, h.
    Gru {
        /// Apply the reset gate after the recurrent matrix product (ONNX/PyTorch style).
        linear_before_reset: bool,
    },
    /// RNNCell-3: one gate.
    Rnn,
    /// LSTMCell-4: gates f, i, c, o and a cell state beside the hidden state.
    Lstm,
}

impl CellKind {
    /// Gates stacked in `W` and `R`.
    pub fn gates(self) -> usize {
        match self {
            CellKind::Gru { .. } => 3,
            CellKind::Rnn => 1,
            CellKind::Lstm => 4,
        }
    }

    /// Activations the cell takes (f and g for a GRU, f for an RNN).
    /// f, g and h for an LSTM.
    pub fn activation_count(self) -> usize {
        match self {
            CellKind::Gru { .. } => 2,
            CellKind::Rnn => 1,
            CellKind::Lstm => 3,
        }
    }

    /// The activations OpenVINO applies when the attribute is absent.
    pub fn default_activations(self) -> &'static [&'static str] {
        match self {
            CellKind::Gru { .. } => &["sigmoid", "tanh"],
            CellKind::Rnn => &["tanh"],
            CellKind::Lstm => &["sigmoid", "tanh", "tanh"],
        }
    }

    /// Whether the cell carries a cell state (an LSTM's `C`) beside the hidden state.
    pub fn has_cell_state(self) -> bool {
        matches!(self, CellKind::Lstm)
    }

    /// Length of `B` in units of `hidden_size`.
    pub fn bias_blocks(self) -> usize {
        match self {
            CellKind::Gru { linear_before_reset: true } => 4,
            CellKind::Gru { linear_before_reset: false } => 3,
            CellKind::Rnn => 1,
            CellKind::Lstm => 4,
        }
    }

    /// The IR operation name.
    pub fn op(self) -> &'static str {
        match self {
            CellKind::Gru { .. } => "GRUCell",
            CellKind::Rnn => "RNNCell",
            CellKind::Lstm => "LSTMCell",
        }
    }
}

/// Everything that fixes a cell's arithmetic, apart from its weights.
#[derive(Clone, Debug, PartialEq)]
pub struct CellSpec {
    /// GRU or RNN, with the GRU's reset placement.
    pub kind: CellKind,
    /// Hidden state size `H`.
    pub hidden: usize,
    /// Input size `I`.
    pub input: usize,
    /// f (and g for a GRU), in order.
    pub activations: Vec<Activation>,
    /// Clamp activation inputs to `[-clip, clip]`; `None` for no clipping.
    pub clip: Option<f32>,
}

impl CellSpec {
    /// Multiply–adds of the matrix products in one step of one batch row.
    pub fn macs(&self) -> usize {
        self.kind.gates() * self.hidden * (self.input + self.hidden)
    }
}

/// Which way a sequence is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Steps 0, 1, …, len − 1.
    Forward,
    /// Steps len − 1, …, 0 (within each row's valid length).
    Reverse,
    /// Both, with their own weights, stacked on the direction axis (forward first).
    Bidirectional,
}

impl Direction {
    /// Directions run: 1, or 2 when bidirectional.
    pub fn count(self) -> usize {
        match self {
            Direction::Forward | Direction::Reverse => 1,
            Direction::Bidirectional => 2,
        }
    }

    /// Whether direction slot `d` (0 or 1) runs backwards in time.
    pub fn reversed(self, d: usize) -> bool {
        match self {
            Direction::Forward => false,
            Direction::Reverse => true,
            Direction::Bidirectional => d == 1,
        }
    }

    /// The IR attribute value.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Forward => "forward",
            Direction::Reverse => "reverse",
            Direction::Bidirectional => "bidirectional",
        }
    }
}

/// Where each batch row's number of valid steps comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lengths {
    /// A Parameter (by index) of `[batch]` whole numbers.
    Param(usize),
    /// Constants, one per batch row.
    Const(Vec<usize>),
}

/// What makes a cell the Sequence form of its op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seq {
    /// Which way it runs.
    pub direction: Direction,
    /// Steps `L` in the input (the static sequence length).
    pub steps: usize,
    /// Valid steps per batch row (at most `steps`).
    pub lengths: Lengths,
}

/// The batch dimension shared by every cell of a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Batch {
    /// Fixed at compile time.
    Static(usize),
    /// Read from the input lengths at each call.
    Dynamic,
}

/// A dimension of a Parameter or Result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// Known size.
    Static(usize),
    /// The model's batch.
    Batch,
}

/// Where a weight tensor comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum WeightSrc {
    /// A constant, decoded to f32 bit-exactly (after any `Convert` chain).
    Embedded {
        /// Values in the IR layout (gate-stacked rows, row-major).
        values: Vec<f32>,
        /// Element type stored in the weights file.
        stored: ElemType,
    },
    /// A Parameter of the model (its index): weights given at run time.
    Runtime(usize),
}

/// A validated cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The layer name in the model.
    pub name: String,
    /// Its arithmetic.
    pub spec: CellSpec,
    /// For the Sequence forms: direction, steps and lengths. `W`, `R` and `B` then hold one
    /// block per direction, and `X`, the states and the outputs have the layouts of
    /// OpenVINO's Sequence ops: `X` `[batch, steps, I]`, states `[batch, dirs, H]`, `Y`
    /// `[batch, dirs, steps, H]`.
    pub seq: Option<Seq>,
    /// The layout the weights were declared in; they are held in OpenVINO's.
    pub layout: crate::layout::Layout,
    /// `W`: `[gates·H, I]`.
    pub w: WeightSrc,
    /// `R`: `[gates·H, H]`.
    pub r: WeightSrc,
    /// `B`: `[bias_blocks·H]`, or `None` for zero.
    pub b: Option<WeightSrc>,
}

/// What a Parameter is used for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamRole {
    /// Rows of data (`X` or an initial state), batch first.
    Data,
    /// Weights given at run time.
    Weights,
    /// Sequence lengths: `[batch]` whole numbers (given as f32 to `Model::run`).
    Lengths,
}

/// A validated Parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Its name (the output tensor name when it has one, else the layer name).
    pub name: String,
    /// Its shape.
    pub shape: Vec<Dim>,
    /// Its use.
    pub role: ParamRole,
}

/// A validated Result.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// Its name.
    pub name: String,
    /// Its shape.
    pub shape: Vec<Dim>,
}

/// A model that passed every check: what the emitters and the reference interpreter take.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// The file it was read from, for messages and the generated header.
    pub file: String,
    /// The model's name.
    pub name: String,
    /// The rows a run loops over: a static number, or the batch each call's lengths give
    /// (`Dim::Batch` in the shapes marks its axis).
    pub batch: Batch,
    /// Parameters, in order.
    pub params: Vec<Param>,
    /// Cells; the steps say what they read and write.
    pub cells: Vec<Cell>,
    /// Results, in order.
    pub outputs: Vec<Output>,
    /// Dense layers; the steps say what they read and write.
    pub denses: Vec<Dense>,
    /// Constant tensors the steps read (other than cell and dense weights).
    pub consts: Vec<Vec<f32>>,
    /// Lengths of the scratch slots.
    pub slots: Vec<usize>,
    /// What a run does for each row, in order.
    pub steps: Vec<Step>,
    /// The variables kept between runs (a stateful model; empty otherwise).
    pub states: Vec<State>,
}

/// A dense layer: `y[j] = act(Σₖ x[k]·w[j·K + k] + bias[j])` for each row (a `MatMul` by a
/// constant matrix, with the `Add` and activation the fuse pass joined to it).
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    /// The layer it was made from (its `MatMul`), for comments and messages.
    pub name: String,
    /// Inputs `K` of a row.
    pub k: usize,
    /// Outputs `N` of a row.
    pub n: usize,
    /// The weights, one row of `K` per output (`[N, K]`).
    pub w: Vec<f32>,
    /// The bias (`N` values), when there is one.
    pub bias: Option<Vec<f32>>,
    /// The activation after the bias.
    pub act: Option<crate::ops::Unary>,
}

impl Model {
    /// The model with every embedded weight tensor turned into a Parameter (named
    /// `<cell>_W`, `_R`, `_B`, after the model's own Parameters), holding the values in the
    /// kernels' layout (OpenVINO's). Returns the model and those values, in Parameter order.
    pub fn with_runtime_weights(&self) -> (Model, Vec<Vec<f32>>) {
        let mut m = self.clone();
        let mut values = Vec::new();
        for cell in &mut m.cells {
            let s = &cell.spec;
            let (g, h) = (s.kind.gates() * s.hidden, s.hidden);
            let dirs = cell.seq.as_ref().map(|q| q.direction.count());
            let shape = |rest: &[usize]| -> Vec<Dim> {
                dirs.into_iter().chain(rest.iter().copied()).map(Dim::Static).collect()
            };
            let shapes = [shape(&[g, s.input]), shape(&[g, h]), shape(&[s.kind.bias_blocks() * h])];
            let all_embedded = [Some(&cell.w), Some(&cell.r), cell.b.as_ref()]
                .into_iter()
                .flatten()
                .all(|w| matches!(w, WeightSrc::Embedded { .. }));
            for ((tensor, name), shape) in
                [Some(&mut cell.w), Some(&mut cell.r), cell.b.as_mut()].into_iter().zip(["W", "R", "B"]).zip(shapes)
            {
                let Some(w) = tensor else { continue };
                if let WeightSrc::Embedded { values: v, .. } = w {
                    values.push(std::mem::take(v));
                    m.params.push(Param { name: format!("{}_{name}", cell.name), shape, role: ParamRole::Weights });
                    *w = WeightSrc::Runtime(m.params.len() - 1);
                }
            }
            // Embedded values were converted to the kernels' layout when checked.
            if all_embedded {
                cell.layout = crate::layout::Layout::OpenVino;
            }
        }
        (m, values)
    }

    /// The Parameters a run takes (data and sequence lengths), in order, with their
    /// indices among all Parameters.
    pub fn run_inputs(&self) -> impl Iterator<Item = (usize, &Param)> {
        self.params.iter().enumerate().filter(|(_, p)| p.role != ParamRole::Weights)
    }

    /// The Parameters that hold weights given at run time, in order, with their indices
    /// among all Parameters: set once, before the runs, not passed to each.
    pub fn run_weights(&self) -> impl Iterator<Item = (usize, &Param)> {
        self.params.iter().enumerate().filter(|(_, p)| p.role == ParamRole::Weights)
    }

    /// Where Parameter `p` is among its own kind: its index among the run's inputs, or
    /// among the weights when it holds weights.
    pub fn arg_index(&self, p: usize) -> usize {
        let weights = |q: &Param| q.role == ParamRole::Weights;
        let kind = self.params.get(p).is_some_and(weights);
        self.params.iter().take(p).filter(|q| weights(q) == kind).count()
    }

    /// Values in one row of a tensor of this shape (the batch axis counts 1).
    pub fn row_len(shape: &[Dim]) -> usize {
        shape
            .iter()
            .map(|d| match d {
                Dim::Static(n) => *n,
                Dim::Batch => 1,
            })
            .product()
    }
}
