//! Recurrent cells: the ops, the kinds cellc compiles, their activation functions and the
//! directions a sequence runs in.
use std::fmt;

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
