//! Recurrent cells as graph nodes: their attributes as read, and the shapes of their
//! outputs. Their arithmetic is `check`'s and the emitters' (the validated [`crate::ir`]).
use super::error::{OpError, refuse};
use super::tensor::{input, input_shape};
use crate::diag::Pos;
use crate::vocab::{Activation, ActivationError, AttrError, CellKind, CellOp, Direction};
use crate::vocab::{Fact, Sym};

/// A cell's attributes, resolved by the front-end that read them (see
/// [`crate::vocab::resolve_activations`]); one that did not resolve holds its error, which
/// the check reports at the attribute.
#[derive(Clone, Debug, PartialEq)]
pub struct CellAttrs {
    /// Which cell.
    pub op: CellOp,
    /// The Sequence form (`GRUSequence`, …).
    pub sequence: bool,
    /// `direction` (a Cell form runs forward).
    pub direction: Result<Direction, AttrError>,
    /// `hidden_size`.
    pub hidden_size: i64,
    /// `activations` with their `alpha` and `beta` (the op's defaults where none are written).
    pub activations: Result<Vec<Activation>, ActivationError>,
    /// `clip`: `None` for none.
    pub clip: Result<Option<f32>, AttrError>,
    /// `linear_before_reset`.
    pub linear_before_reset: bool,
    /// How `W`, `R` and `B` are laid out (OpenVINO's for every op a file holds; a
    /// declaration may name another tool's).
    pub layout: crate::vocab::Layout,
    /// Where attributes are written.
    pub attr_pos: Vec<(&'static str, Pos)>,
}

/// Keys of [`CellAttrs::attr_pos`] for where single activations are written (a
/// declaration knows; an IR file writes the list in one attribute).
pub const ACTIVATION_KEYS: [&str; 3] = ["activations.0", "activations.1", "activations.2"];

impl CellAttrs {
    /// Directions run: 2 for `bidirectional`, else 1.
    pub fn directions(&self) -> i64 {
        if self.direction == Ok(Direction::Bidirectional) { 2 } else { 1 }
    }

    /// The kind of cell.
    pub fn kind(&self) -> CellKind {
        Self::kind_of(self.op, self.linear_before_reset)
    }

    /// The kind of cell of `op`, with `linear_before_reset` for a GRU.
    pub fn kind_of(op: CellOp, linear_before_reset: bool) -> CellKind {
        match op {
            CellOp::Gru => CellKind::Gru { linear_before_reset },
            CellOp::Rnn => CellKind::Rnn,
            CellOp::Lstm => CellKind::Lstm,
        }
    }

    /// Input ports, in order, by role. `sequence_lengths` may be unconnected: every row
    /// then runs every step. `B` may be absent or unconnected: zero. An LSTM's `P` (its
    /// peepholes, which only an ONNX file gives) may be absent or unconnected: none.
    pub fn input_roles(&self) -> &'static [&'static str] {
        match (self.op, self.sequence) {
            (CellOp::Lstm, true) => {
                &["X", "initial_hidden_state", "initial_cell_state", "sequence_lengths", "W", "R", "B", "P"]
            }
            (_, true) => &["X", "initial_hidden_state", "sequence_lengths", "W", "R", "B"],
            (CellOp::Lstm, false) => &["X", "initial_hidden_state", "initial_cell_state", "W", "R", "B", "P"],
            (_, false) => &["X", "initial_hidden_state", "W", "R", "B"],
        }
    }
}

pub(super) fn infer(c: &CellAttrs, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    let x = input(ins, 0, "X")?;
    let sx = input_shape(ins, 0, "X")?;
    let states = if c.op == CellOp::Lstm { 2 } else { 1 };
    let outputs = states + usize::from(c.sequence);
    // A hidden_size out of range gives outputs of unknown shape; `check` reports it.
    if !(1..=crate::limits::MAX_CELL_SIZE as i64).contains(&c.hidden_size) {
        return Ok(vec![Fact { elem: x.elem, shape: None, value: None }; outputs]);
    }
    let h = Sym::known(c.hidden_size);
    let rank = if c.sequence { 3 } else { 2 };
    if sx.len() != rank {
        return Err(refuse!("X has {} dimensions; expected {rank}", sx.len()));
    }
    let batch = sx[0];
    let mut out = Vec::new();
    if c.sequence {
        let d = Sym::known(c.directions());
        out.push(Fact::new(x.elem, vec![batch, d, sx[1], h]));
        out.extend((0..states).map(|_| Fact::new(x.elem, vec![batch, d, h])));
    } else {
        out.extend((0..states).map(|_| Fact::new(x.elem, vec![batch, h])));
    }
    Ok(out)
}
