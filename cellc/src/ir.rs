//! The model as cellc understands it: the validated model that `check` produces and that
//! the emitters and the reference interpreter take, with every size known, every
//! activation resolved, every weight either decoded to f32 or bound to a runtime
//! Parameter. It depends on [`crate::vocab`] alone.
mod describe;
pub mod steps;
pub mod verify;

pub use crate::vocab::{Activation, CellKind, Direction, ElemType};
pub use steps::{CellStep, DenseStep, Home, Operand, State, Step};

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
    pub layout: crate::vocab::Layout,
    /// `W`: `[gates·H, I]`.
    pub w: WeightSrc,
    /// `R`: `[gates·H, H]`.
    pub r: WeightSrc,
    /// `B`: `[bias_blocks·H]`, or `None` for zero.
    pub b: Option<WeightSrc>,
    /// An LSTM's peephole weights `P`: `[3·H]`, in the kernels' order f, i, o (whatever the
    /// layout declared), always embedded; `None` for none.
    pub p: Option<WeightSrc>,
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
    /// The element type the model declares: the caller passes its values in f32 (whole
    /// numbers for an integer type, f64 values rounded).
    pub declared: crate::vocab::Elem,
}

/// A validated Result.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// Its name.
    pub name: String,
    /// Its shape.
    pub shape: Vec<Dim>,
    /// The element type the model declares: its values come in f32 (whole numbers for an
    /// integer type, f64 values computed in f32).
    pub declared: crate::vocab::Elem,
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
    pub act: Option<DenseAct>,
    /// The rows are the windows of a convolution, read in place from its input laid out
    /// channels last (`K` = taps × channels): row `e·positions + p` of the step is output
    /// position `p` of input entry `e`.
    pub win: Option<crate::vocab::Windows>,
    /// With `win`: its input is laid out channels first (`[C, height, width]` an entry) and
    /// its outputs are written channels first too (`[N, positions]` an entry, output `j`'s
    /// positions together), read and written by the planar kernel (`cellc_pack::Planar`).
    pub planar: bool,
    /// With `planar`: the input's channels in this many groups of `win`'s channels (an
    /// entry `groups · C · height · width` values), and the outputs in as many groups of
    /// `N / groups`, each group's reading its own channels (a grouped or depthwise
    /// convolution); `K` is then one group's window. 1 otherwise.
    pub groups: usize,
}

impl Dense {
    /// Outputs of a group (all of them with one group).
    pub fn group_outputs(&self) -> usize {
        self.n.checked_div(self.groups).unwrap_or(0)
    }

    /// The input values `rows` of the layer read: over windows whole entries of the input
    /// (one per `positions` rows, each of its groups' channels), else `K` a row; `None`
    /// where the windows do not hold together or the count overflows.
    pub fn input_len(&self, rows: usize) -> Option<usize> {
        match &self.win {
            Some(w) => (w.valid() && w.k() == self.k && rows.is_multiple_of(w.positions()))
                .then(|| (rows / w.positions()).checked_mul(w.input_len())?.checked_mul(self.groups))
                .flatten(),
            None => rows.checked_mul(self.k),
        }
    }

    /// Whether the planar kernel runs it: over windows, channels first.
    pub fn is_planar(&self) -> bool {
        self.planar && self.win.is_some()
    }
}

/// What a dense layer applies after its bias.
#[derive(Clone, Debug, PartialEq)]
pub enum DenseAct {
    /// An activation.
    Unary(crate::vocab::Unary),
    /// `y` if `y ≥ 0`, else `slope[j]·y`, one slope per output (`N` values).
    PRelu(Vec<f32>),
}

impl DenseAct {
    /// The activation of output `j` at `y`, in f64 (the reference's).
    pub fn apply(&self, j: usize, y: f64) -> f64 {
        match self {
            DenseAct::Unary(u) => u.apply(y),
            DenseAct::PRelu(s) => crate::vocab::Binary::PRelu.apply(y, s.get(j).copied().map_or(0.0, f64::from)),
        }
    }

    /// Its name, for comments.
    pub fn name(&self) -> String {
        match self {
            DenseAct::Unary(u) => {
                let s = format!("{u:?}");
                s.split_whitespace().next().unwrap_or_default().to_ascii_lowercase()
            }
            DenseAct::PRelu(_) => "prelu (a slope per output)".to_owned(),
        }
    }
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
                    m.params.push(Param {
                        name: format!("{}_{name}", cell.name),
                        shape,
                        role: ParamRole::Weights,
                        declared: crate::vocab::Elem::F32,
                    });
                    *w = WeightSrc::Runtime(m.params.len() - 1);
                }
            }
            // Embedded values were converted to the kernels' layout when checked.
            if all_embedded {
                cell.layout = crate::vocab::Layout::OpenVino;
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
