//! A cell node checked and planned: its attributes (through the same rules as every cell),
//! the shapes of its inputs against `hidden_size` and `X`, its weights (constants, or
//! Parameters given at run time), its sequence lengths and initial states (constants or
//! values of the graph), and the places of its outputs.
use super::checker::{Checker, Mode, input_tensor};
use super::lower::Lowering;
use crate::diag::Code;
use crate::graph::{Data, Elem, NodeId, Sym, TensorId};
use crate::ir::steps::CellStep;
use crate::ir::{self, CellKind, CellSpec, Direction, ElemType, Lengths, ParamRole, Seq, Step, WeightSrc};
use crate::limits::{MAX_BATCH, MAX_CELL_SIZE, MAX_CELLS, MAX_STEPS};
use crate::ops::CellAttrs;
use crate::vocab::Layout;

/// A weight tensor (`bias` for `B`) in the kernels' layout, direction block by direction
/// block. Weights given at run time are converted by generated code as it packs them (see
/// [`Layout::bias_terms`]).
fn relayout(layout: Layout, kind: CellKind, h: usize, dirs: usize, w: WeightSrc, bias: bool) -> WeightSrc {
    match w {
        WeightSrc::Embedded { values, stored } if layout != Layout::OpenVino => {
            let block = values.len() / dirs.max(1);
            let values = values
                .chunks(block.max(1))
                .flat_map(|d| if bias { layout.bias(kind, h, d) } else { layout.weights(kind, d) })
                .collect();
            WeightSrc::Embedded { values, stored }
        }
        other => other,
    }
}

/// An optional input as read: `None` when it was given but refused (reported), else
/// `Some` of what it holds (`None` when it was not given).
fn optional<T>(read: Option<Option<T>>) -> Option<Option<T>> {
    match read {
        None => Some(None),
        Some(v) => v.map(Some),
    }
}

/// `input {role}`, for messages: by role, as every format names the cell's inputs (their
/// positions are the op's own, not the file's).
fn label(a: &CellAttrs, port: usize) -> String {
    format!("input {}", a.input_roles().get(port).copied().unwrap_or("past the last"))
}

impl Lowering<'_> {
    pub(super) fn cell(&mut self, c: &mut Checker<'_>, id: NodeId, a: &CellAttrs) {
        if self.cells.len() >= MAX_CELLS {
            if !std::mem::replace(&mut self.too_many_cells, true) {
                let msg =
                    format!("the model has more than {MAX_CELLS} recurrent cells; cellc compiles at most {MAX_CELLS}");
                c.err(Code::Limit, id, None, msg);
            }
            return;
        }
        let pos = |k: &str| a.attr_pos.iter().find(|(n, _)| *n == k).map(|(_, p)| *p);
        let kind = a.kind();
        if let Some(why) = a.layout.refuses(kind) {
            c.err(Code::Layer, id, pos("layout"), format!("the {} layout: {why}", a.layout));
            return;
        }
        let clip = a.clip.as_ref().map_err(|m| c.err(Code::Layer, id, pos("clip"), m.to_string())).ok().copied();
        let direction =
            a.direction.as_ref().map_err(|m| c.err(Code::Layer, id, pos("direction"), m.to_string())).ok().copied();
        let activations = a
            .activations
            .as_ref()
            .map_err(|e| {
                // At the activation at fault, where the front-end knows where it is written.
                let key = e.at().and_then(|i| crate::ops::cells::ACTIVATION_KEYS.get(i).copied());
                c.err(Code::Layer, id, key.and_then(pos).or_else(|| pos("activations")), e.to_string())
            })
            .ok()
            .cloned();
        if a.hidden_size <= 0 || a.hidden_size as u64 > MAX_CELL_SIZE {
            c.err(
                Code::Layer,
                id,
                pos("hidden_size"),
                format!("`hidden_size` is {}; expected 1 to {MAX_CELL_SIZE}", a.hidden_size),
            );
            return;
        }
        let h = a.hidden_size as usize;
        let sp = if kind.has_cell_state() { 3 } else { 2 };
        let wp = sp + usize::from(a.sequence);
        let n_in = self.g.nodes[id].inputs.len();
        let most = a.input_roles().len();
        if !(wp + 2..=most).contains(&n_in) {
            let names = a.input_roles();
            let more = if most == wp + 4 { " or with P" } else { "" };
            let msg = format!(
                "has {n_in} inputs; expected {} ({}), or {} (with B){more}",
                wp + 2,
                names[..wp + 2].join(", "),
                wp + 3
            );
            c.err(Code::Layer, id, None, msg);
            return;
        }
        let Some(x) = self.data(c, id, a, 0) else { return };
        let xs = self.g.tensors[x].fact.shape.clone().unwrap_or_default();
        let dims_ok = |n: &Sym, max: u64| n.size().is_some_and(|v| (1..=max).contains(&v));
        let (steps, input) = match (a.sequence, xs.as_slice()) {
            (false, [_, i]) if dims_ok(i, MAX_CELL_SIZE) => (None, i.c as usize),
            (true, [_, l, i]) if dims_ok(i, MAX_CELL_SIZE) && dims_ok(l, MAX_STEPS) => {
                (Some(l.c as usize), i.c as usize)
            }
            _ => {
                let want = if a.sequence {
                    format!(
                        "[batch, steps, input_size] with static steps of 1 to {MAX_STEPS} and an input_size of 1 to {MAX_CELL_SIZE}"
                    )
                } else {
                    format!("[batch, input_size] with a static input_size of 1 to {MAX_CELL_SIZE}")
                };
                let msg = crate::diag::Message::new(format!(
                    "input X has shape {}; expected {want}",
                    super::checker::dims_text(&xs)
                ));
                let dynamic_steps = a.sequence && xs.get(1).is_some_and(|l| !l.is_known());
                c.err(
                    Code::Layer,
                    id,
                    None,
                    if dynamic_steps {
                        msg.fix(crate::diag::Fix::new("pin dynamic steps with", crate::diag::Setting::key("input")))
                    } else {
                        msg
                    },
                );
                return;
            }
        };
        let batch = xs[0];
        let rows = match (self.mode, batch.size()) {
            (Mode::Whole, Some(b)) if (1..=MAX_BATCH).contains(&b) => b as usize,
            (Mode::Rows(_), None) if self.is_batch(&batch) => 1,
            _ => {
                c.err(
                    Code::Layer,
                    id,
                    None,
                    format!("the batch of X is {batch}; expected 1 to {MAX_BATCH}, or the model's one dynamic batch"),
                );
                return;
            }
        };
        let dirs = direction.map_or(1, Direction::count);
        let g3 = kind.gates() * h;
        let per_dir = |rest: &[usize]| -> Vec<usize> {
            if a.sequence { std::iter::once(dirs).chain(rest.iter().copied()).collect() } else { rest.to_vec() }
        };
        let mut ok = clip.is_some() && direction.is_some() && activations.is_some();
        // Initial states: [batch, dirs, H] (Sequence forms) or [batch, H].
        let mut states = Vec::new();
        for port in 1..sp {
            let Some(t) = self.data(c, id, a, port) else {
                ok = false;
                continue;
            };
            ok &= self.expect(c, id, a, port, t, Some(batch), &per_dir(&[h]));
            states.push(t);
        }
        let lengths = match steps {
            Some(l) if a.sequence => self.lengths(c, id, a, sp, l, rows),
            _ => Some(Lengths::Const(Vec::new())),
        };
        let w = self.weights(c, id, a, wp, &per_dir(&[g3, input]));
        let r = self.weights(c, id, a, wp + 1, &per_dir(&[g3, h]));
        let given = |port: usize| input_tensor(self.g, id, port).is_some();
        let b = given(wp + 2).then(|| self.weights(c, id, a, wp + 2, &per_dir(&[a.layout.bias_blocks(kind) * h])));
        let p = given(wp + 3).then(|| self.peepholes(c, id, a, wp + 3, &per_dir(&[3 * h])));
        let (Some(w), Some(r), Some(lengths)) = (w, r, lengths) else { return };
        let (Some(b), Some(p)) = (optional(b), optional(p)) else { return };
        if !ok {
            return;
        }
        let (Some(clip), Some(direction), Some(activations)) = (clip, direction, activations) else { return };
        // Weights in another tool's layout become the kernels' layout here, once, now that
        // their shapes are known to fit it.
        let (w, r, b) = (
            relayout(a.layout, kind, h, dirs, w, false),
            relayout(a.layout, kind, h, dirs, r, false),
            b.map(|b| relayout(a.layout, kind, h, dirs, b, true)),
        );
        let p = p.map(|p| {
            let values = p.chunks((3 * h).max(1)).flat_map(|d| a.layout.peepholes(d)).collect();
            WeightSrc::Embedded { values, stored: ElemType::F32 }
        });
        let ins: Vec<Option<ir::Operand>> =
            std::iter::once(x).chain(states.iter().copied()).map(|t| self.operand(t)).collect();
        let Some(ins) = ins.into_iter().collect::<Option<Vec<_>>>() else { return };
        let outs = self.g.nodes[id].outputs.clone();
        let Some(out) = outs.iter().map(|&t| self.place(t)).collect::<Option<Vec<_>>>() else { return };
        let seq = steps.map(|steps| Seq { direction, steps, lengths });
        let spec = CellSpec { kind, hidden: h, input, activations, clip };
        let name = self.g.code_name(id);
        self.cells.push(ir::Cell { name, spec, w, r, b, p, seq, layout: a.layout });
        self.steps.push(Step::Cell(CellStep {
            cell: self.cells.len() - 1,
            rows,
            x: ins[0],
            h: ins[1],
            c: ins.get(2).copied(),
            out,
        }));
    }

    /// A data input (X or a state): an f32 tensor computed by the graph or constant.
    fn data(&mut self, c: &mut Checker<'_>, id: NodeId, a: &CellAttrs, port: usize) -> Option<TensorId> {
        let Some(t) = input_tensor(self.g, id, port) else {
            c.err(
                Code::Layer,
                id,
                self.g.nodes[id].input_pos.get(port).copied().flatten(),
                format!("{} is not connected", label(a, port)),
            );
            return None;
        };
        let f = &self.g.tensors[t].fact;
        f.shape.as_ref()?;
        if f.elem != Elem::F32 {
            let msg = format!(
                "{} is {}; cellc generates f32 kernels and compiles only f32 cells",
                label(a, port),
                f.elem.name()
            );
            c.err(Code::Layer, id, None, msg);
            return None;
        }
        if f.value.is_none() {
            self.use_param(c, id, t, ParamRole::Data);
        }
        Some(t)
    }

    /// Checks an input's shape: `batch` first (when given), then `rest`.
    #[allow(clippy::too_many_arguments)]
    fn expect(
        &self,
        c: &mut Checker<'_>,
        id: NodeId,
        a: &CellAttrs,
        port: usize,
        t: TensorId,
        batch: Option<Sym>,
        rest: &[usize],
    ) -> bool {
        let Some(shape) = self.g.tensors[t].fact.shape.as_deref() else { return false };
        let want: Vec<Sym> = batch.into_iter().chain(rest.iter().map(|&n| Sym::known(n as i64))).collect();
        let text = |d: Sym| if d.is_known() { d.c.to_string() } else { "dynamic".to_owned() };
        if let (Some(b), Some(got)) = (batch, shape.first())
            && shape.len() == want.len()
            && shape[1..] == want[1..]
            && *got != b
        {
            let msg = format!(
                "the batch of {} is {}, but X's is {}; a cell's inputs share one batch, static and equal or dynamic",
                label(a, port),
                text(*got),
                text(b)
            );
            c.err(Code::Layer, id, self.g.nodes[id].input_pos.get(port).copied().flatten(), msg);
            return false;
        }
        if shape != want.as_slice() {
            let msg = format!(
                "{} has shape {}; expected {}",
                label(a, port),
                super::checker::dims_text(shape),
                super::checker::dims_text(&want)
            );
            c.err(Code::Layer, id, self.g.nodes[id].input_pos.get(port).copied().flatten(), msg);
            return false;
        }
        true
    }

    /// `W`, `R` or `B`: a constant (its values, and the type they were stored in), or a
    /// Parameter given at run time.
    fn weights(
        &mut self,
        c: &mut Checker<'_>,
        id: NodeId,
        a: &CellAttrs,
        port: usize,
        want: &[usize],
    ) -> Option<WeightSrc> {
        let Some(t) = input_tensor(self.g, id, port) else {
            c.err(Code::Layer, id, None, format!("{} is not connected", label(a, port)));
            return None;
        };
        if !self.expect(c, id, a, port, t, None, want) {
            return None;
        }
        let tensor = &self.g.tensors[t];
        match &tensor.fact.value {
            Some(Data::Float(v)) => {
                let stored =
                    tensor.stored.and_then(Elem::float).filter(|e| *e != ElemType::F64).unwrap_or(ElemType::F32);
                Some(WeightSrc::Embedded { values: v.iter().map(|&x| x as f32).collect(), stored })
            }
            Some(Data::Int(_)) => {
                c.err(Code::Layer, id, None, format!("{} holds whole numbers; expected float weights", label(a, port)));
                None
            }
            None if matches!(self.g.nodes[tensor.producer.0].op, crate::ops::Op::Parameter { .. }) => {
                self.use_param(c, id, t, ParamRole::Weights).map(WeightSrc::Runtime)
            }
            // A constant that could not be read is reported where it is.
            None if matches!(self.g.nodes[tensor.producer.0].op, crate::ops::Op::Const { .. }) => None,
            None => {
                let p = &self.g.nodes[tensor.producer.0].origin;
                let msg = format!(
                    "{} is computed at run time by layer {:?} ({}); expected a constant or a Parameter",
                    label(a, port),
                    p.name,
                    p.op
                );
                c.err(Code::Layer, id, None, msg);
                None
            }
        }
    }

    /// An LSTM's `P`: constants (its values; a Parameter is refused, because peepholes are
    /// packed at compile time).
    fn peepholes(
        &mut self,
        c: &mut Checker<'_>,
        id: NodeId,
        a: &CellAttrs,
        port: usize,
        want: &[usize],
    ) -> Option<Vec<f32>> {
        match self.weights(c, id, a, port, want)? {
            WeightSrc::Embedded { values, .. } => Some(values),
            WeightSrc::Runtime(_) => {
                let msg = format!(
                    "{} is a Parameter; cellc takes an LSTM's peephole weights as constants only",
                    label(a, port)
                );
                c.err(Code::Layer, id, None, msg);
                None
            }
        }
    }

    /// `sequence_lengths`: constants from 0 to the steps (one per row, or one for all), or a
    /// Parameter; unconnected, the steps for every row.
    fn lengths(
        &mut self,
        c: &mut Checker<'_>,
        id: NodeId,
        a: &CellAttrs,
        port: usize,
        steps: usize,
        rows: usize,
    ) -> Option<Lengths> {
        // Without lengths (ONNX's `sequence_lens` is optional) every row runs every step.
        let Some(t) = input_tensor(self.g, id, port) else { return Some(Lengths::Const(vec![steps])) };
        let tensor = &self.g.tensors[t];
        match &tensor.fact.value {
            Some(v) => {
                let Some(values) = v.known_ints() else {
                    c.err(
                        Code::Layer,
                        id,
                        None,
                        format!("{} are not whole numbers known at compile time", label(a, port)),
                    );
                    return None;
                };
                if let Some(bad) = values.iter().find(|&&v| v < 0 || v as usize > steps) {
                    // Reported at the constant when the lengths are one.
                    let at = match self.g.nodes[tensor.producer.0].op {
                        crate::ops::Op::Const { .. } => tensor.producer.0,
                        _ => id,
                    };
                    c.err(
                        Code::Layer,
                        at,
                        None,
                        format!("a sequence length is {bad}; expected 0 to {steps} (the steps of X)"),
                    );
                    return None;
                }
                let per_row = match self.mode {
                    Mode::Whole => values.len() == rows,
                    Mode::Rows(_) => values.len() == 1,
                };
                if !per_row {
                    let (n, s) = (values.len(), if values.len() == 1 { "" } else { "s" });
                    let why = match self.mode {
                        Mode::Whole => format!("batch {rows}"),
                        Mode::Rows(_) => "dynamic batch: give the lengths as a Parameter, or pin the batch".to_owned(),
                    };
                    let msg = format!(
                        "{} holds {n} value{s}; expected one length per row of the model's {why}",
                        label(a, port)
                    );
                    c.err(Code::Layer, id, None, msg);
                    return None;
                }
                Some(Lengths::Const(values.into_iter().map(|v| v as usize).collect()))
            }
            None if matches!(self.g.nodes[tensor.producer.0].op, crate::ops::Op::Parameter { .. }) => {
                self.use_param(c, id, t, ParamRole::Lengths).map(Lengths::Param)
            }
            None => {
                c.err(
                    Code::Layer,
                    id,
                    None,
                    format!("{} are computed at run time; expected constants or a Parameter", label(a, port)),
                );
                None
            }
        }
    }
}
