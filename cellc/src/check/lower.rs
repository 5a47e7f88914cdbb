//! The lowering: the graph's ops as steps over operands, and where each tensor lives while
//! the model runs: Parameters in the inputs, a Result's value written straight into its
//! output where it can be, constants baked in, everything else in a scratch slot of its own
//! (which values share a slot is decided afterwards, in [`super::slots`]). Ops that leave
//! the values where they are (Reshape, Squeeze, Unsqueeze, a Transpose that keeps the order
//! of the axes longer than 1) share their input's place.
use super::checker::{Checker, Mode, batch_of, input_tensor, name_fits, param_name, role_text};
use crate::diag::Code;
use crate::graph::{Data, Graph, NodeId, Sym, TensorId};
use crate::ir::{self, Dim, Home, Operand, ParamRole, Step};
use crate::limits::{MAX_TENSOR_ELEMENTS, shown};
use crate::ops::Op;

/// Lowers a graph to steps.
pub(super) struct Lowering<'g> {
    pub(super) g: &'g Graph,
    pub(super) mode: Mode,
    /// Other symbols that stand for the batch.
    also: Vec<u32>,
    pub(super) params: Vec<ir::Param>,
    /// Each Parameter node's index in `params`.
    param_of: Vec<Option<usize>>,
    pub(super) roles: Vec<Option<ParamRole>>,
    homes: Vec<Option<Operand>>,
    /// The Result a tensor should be written into.
    prefer: Vec<Option<usize>>,
    taken: Vec<bool>,
    /// The length of each value kept in scratch, one slot each until [`super::slots`].
    pub(super) slots: Vec<usize>,
    pub(super) consts: Vec<Vec<f32>>,
    const_of: Vec<Option<usize>>,
    pub(super) cells: Vec<ir::Cell>,
    pub(super) denses: Vec<ir::Dense>,
    pub(super) steps: Vec<Step>,
    outputs: Vec<ir::Output>,
    /// Whether the limit on cells was reported.
    pub(super) too_many_cells: bool,
    /// The variables of a stateful model.
    pub(super) states: Vec<ir::State>,
    /// The values stored into variables at the end of a run (with their value's number).
    pub(super) assigns: Vec<(usize, Operand, Option<usize>)>,
    /// The number of the value each tensor was placed in (shared by aliases).
    ids: Vec<Option<usize>>,
    /// Values placed so far.
    values: usize,
    /// What each node's steps read and wrote, for [`ir::Model::verify`].
    pub(super) trace: Vec<ir::verify::Touch>,
}

impl<'g> Lowering<'g> {
    pub(super) fn new(g: &'g Graph, mode: Mode, also: Vec<u32>) -> Self {
        let n = g.tensors.len();
        let mut p = Lowering {
            g,
            mode,
            also,
            params: Vec::new(),
            param_of: vec![None; g.nodes.len()],
            roles: Vec::new(),
            homes: vec![None; n],
            prefer: vec![None; n],
            taken: vec![false; g.results.len()],
            slots: Vec::new(),
            consts: Vec::new(),
            const_of: vec![None; n],
            cells: Vec::new(),
            denses: Vec::new(),
            steps: Vec::new(),
            outputs: Vec::new(),
            too_many_cells: false,
            states: Vec::new(),
            assigns: Vec::new(),
            ids: vec![None; n],
            values: 0,
            trace: Vec::new(),
        };
        p.preferences();
        p
    }

    /// Each Result's value, and what it aliases, prefers to live in the Result's output.
    fn preferences(&mut self) {
        for (k, &r) in self.g.results.iter().enumerate() {
            let mut t = input_tensor(self.g, r, 0);
            let mut hops = 0;
            while let Some(tt) = t {
                if self.prefer[tt].is_none() {
                    self.prefer[tt] = Some(k);
                }
                let (p, _) = self.g.tensors[tt].producer;
                hops += 1;
                t = if self.is_alias(p) && hops <= self.g.nodes.len() { input_tensor(self.g, p, 0) } else { None };
            }
        }
    }

    /// Whether a dimension is the batch itself.
    pub(super) fn is_batch(&self, d: &Sym) -> bool {
        match self.mode {
            Mode::Rows(s) => !d.is_known() && d.c == 0 && d.k == 1 && (d.s == s || self.also.contains(&d.s)),
            Mode::Whole => false,
        }
    }

    /// Values in one row of a shape (in rows mode the batch counts its coefficient), when
    /// the shape allows it and holds at most [`MAX_TENSOR_ELEMENTS`] values (so products of
    /// these dimensions never overflow).
    pub(super) fn row_dims(&self, shape: &[Sym]) -> Option<Vec<usize>> {
        let dims: Vec<usize> = shape
            .iter()
            .map(|d| match (d.value(), self.mode) {
                (Some(v), _) => usize::try_from(v).ok(),
                (None, Mode::Rows(s)) if (d.s == s || self.also.contains(&d.s)) && d.c == 0 && d.k > 0 => {
                    usize::try_from(d.k).ok()
                }
                _ => None,
            })
            .collect::<Option<_>>()?;
        let total = dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d as u64))?;
        (total <= MAX_TENSOR_ELEMENTS).then_some(dims)
    }

    /// The axis of the batch in a shape (rows mode).
    pub(super) fn batch_axis(&self, shape: &[Sym]) -> Option<usize> {
        match self.mode {
            Mode::Rows(s) => shape.iter().position(|d| !d.is_known() && (d.s == s || self.also.contains(&d.s))),
            Mode::Whole => None,
        }
    }

    /// The row dimensions of a tensor.
    pub(super) fn dims_of(&self, t: TensorId) -> Option<Vec<usize>> {
        self.row_dims(self.g.tensors[t].fact.shape.as_deref()?)
    }

    /// Whether an op leaves its input's values where they are (shares its place).
    pub(super) fn is_alias(&self, id: NodeId) -> bool {
        let node = &self.g.nodes[id];
        let (Some(Some(x)), Some(&y)) = (node.inputs.first(), node.outputs.first()) else { return false };
        let (fx, fy) = (&self.g.tensors[*x].fact, &self.g.tensors[y].fact);
        // A conversion that leaves the values generated code holds as they are is a view.
        let converts = matches!(node.op, Op::Convert { .. } | Op::ConvertLike) && fy.elem.keeps_held(fx.elem);
        if (fx.elem != fy.elem && !converts) || fx.value.is_some() {
            return false;
        }
        let (Some(sx), Some(sy)) = (fx.shape.as_deref(), fy.shape.as_deref()) else { return false };
        // Rows stay whole: as many values before the batch on both sides.
        let before = |s: &[Sym]| -> Option<usize> {
            match self.batch_axis(s) {
                Some(a) => self.row_dims(&s[..a]).map(|d| d.iter().product()),
                None => Some(1),
            }
        };
        let rows_kept = before(sx).is_some() && before(sx) == before(sy);
        match &node.op {
            Op::Reshape { .. } | Op::Squeeze | Op::Unsqueeze | Op::Identity | Op::Convert { .. } | Op::ConvertLike => {
                rows_kept
            }
            Op::Transpose => {
                let (Some(perm), Some(dims)) = (self.g.transpose_perm(id), self.row_dims(sx)) else {
                    return false;
                };
                let moved: Vec<usize> = perm.into_iter().filter(|&a| dims[a] != 1).collect();
                rows_kept && moved.windows(2).all(|w| w[0] < w[1])
            }
            _ => false,
        }
    }

    /// The Parameters: names, shapes (the batch marked), and the places of their rows.
    pub(super) fn params(&mut self, c: &mut Checker<'_>) {
        for &p in &self.g.params {
            let t = self.g.nodes[p].outputs[0];
            let name = param_name(self.g, p);
            let Some(shape) = self.g.tensors[t].fact.shape.clone() else { continue };
            let dims = self.ir_dims(c, p, &shape, "Parameter");
            let reported = dims.is_none();
            name_fits(c, p, &name);
            let index = self.params.len();
            self.param_of[p] = Some(index);
            let declared = self.g.tensors[t].fact.elem;
            self.params.push(ir::Param { name, shape: dims.unwrap_or_default(), role: ParamRole::Data, declared });
            self.roles.push(None);
            let Some(len) = self.dims_of(t).map(|d| d.iter().product::<usize>()) else {
                if !reported {
                    let msg = format!("the Parameter holds more than {MAX_TENSOR_ELEMENTS} values a row");
                    c.err(Code::Limit, p, None, msg);
                }
                continue;
            };
            let src = self.io(&shape, Home::Param(index), len);
            match self.split_row(&shape) {
                // The batch is not the first dimension: each row is gathered first.
                Some((outer, inner)) if outer > 1 => {
                    let dst = self.place(t);
                    if let Some(dst) = dst {
                        let src = Operand::whole(Home::Param(index), 0);
                        self.steps.push(Step::Rows(ir::steps::RowCopy { src, dst, outer, inner, into_row: true }));
                        let k = self.steps.len();
                        let writes = self.ids[t].map(|v| (v, dst)).into_iter().collect();
                        self.trace.push(ir::verify::Touch { steps: (k - 1, k), node: None, reads: Vec::new(), writes });
                    }
                }
                _ => self.homes[t] = Some(src),
            }
        }
    }

    /// A Parameter or Result of `shape` as an operand: a row of it for each row of a run in
    /// rows mode when it has the batch, else the whole of it (the same for every row).
    fn io(&self, shape: &[Sym], home: Home, len: usize) -> Operand {
        match self.mode {
            Mode::Rows(_) if self.batch_axis(shape).is_some() => Operand::rows(home, len),
            _ => Operand::whole(home, len),
        }
    }

    /// In rows mode, a row of a shape as runs: the values before the batch axis and after it.
    fn split_row(&self, shape: &[Sym]) -> Option<(usize, usize)> {
        let a = self.batch_axis(shape)?;
        let dims = self.row_dims(shape)?;
        Some((dims[..a].iter().product(), dims[a + 1..].iter().product()))
    }

    /// A Parameter's or Result's shape for the validated model: in rows mode the batch
    /// appears once, as itself.
    fn ir_dims(&self, c: &mut Checker<'_>, id: NodeId, shape: &[Sym], what: &str) -> Option<Vec<Dim>> {
        let too_big = crate::graph::known_len(shape).is_none_or(|n| n as u64 > MAX_TENSOR_ELEMENTS);
        let mut out = Vec::new();
        for d in shape {
            match (d.size(), self.mode) {
                (Some(n), _) => out.push(Dim::Static(n as usize)),
                (None, Mode::Rows(_)) if self.is_batch(d) => out.push(Dim::Batch),
                _ => {
                    let msg = format!(
                        "the {what} has shape {}, which cellc cannot give a fixed row size",
                        super::checker::dims_text(shape)
                    );
                    c.err(Code::Declined, id, None, msg);
                    return None;
                }
            }
        }
        if too_big && self.mode == Mode::Whole {
            c.err(Code::Limit, id, None, format!("the {what} has more than {MAX_TENSOR_ELEMENTS} elements"));
            return None;
        }
        Some(out)
    }

    /// Marks a Parameter as used for `role`; reports a second, different use.
    pub(super) fn use_param(
        &mut self,
        c: &mut Checker<'_>,
        user: NodeId,
        t: TensorId,
        role: ParamRole,
    ) -> Option<usize> {
        let (p, _) = self.g.tensors[t].producer;
        let i = self.param_of[p]?;
        match self.roles[i] {
            Some(r) if r != role => {
                let msg = format!(
                    "reads Parameter {} as {}, which is also used as {}; a Parameter has one use",
                    shown(&self.params[i].name),
                    role_text(role),
                    role_text(r)
                );
                c.err(Code::Declined, user, None, msg);
                None
            }
            _ => {
                self.roles[i] = Some(role);
                self.params[i].role = role;
                Some(i)
            }
        }
    }

    /// Where a tensor is read from: its place, or for a constant, its values baked in.
    pub(super) fn operand(&mut self, t: TensorId) -> Option<Operand> {
        if let Some(o) = self.homes[t] {
            return Some(o);
        }
        let f = &self.g.tensors[t].fact;
        let values: Vec<f32> = match f.value.as_ref()? {
            Data::Float(v) => v.iter().map(|&x| x as f32).collect(),
            Data::Int(v) => v.iter().map(|s| s.value().map(|x| x as f32)).collect::<Option<_>>()?,
        };
        let k = match self.const_of[t] {
            Some(k) => k,
            None => {
                self.consts.push(values);
                self.const_of[t] = Some(self.consts.len() - 1);
                self.consts.len() - 1
            }
        };
        Some(Operand::whole(Home::Const(k), self.consts[k].len()))
    }

    /// A place for a tensor a step writes: its Result's output when it is the first value
    /// there and its rows are laid out as the output's, else a scratch slot of its own.
    pub(super) fn place(&mut self, t: TensorId) -> Option<Operand> {
        let len: usize = self.dims_of(t)?.iter().product();
        let shape = self.g.tensors[t].fact.shape.as_deref()?;
        let first_axis = self.batch_axis(shape).is_none_or(|a| a == 0);
        let home = match self.prefer[t] {
            Some(k) if !self.taken[k] && first_axis && self.output_len(k) == Some(len) => {
                self.taken[k] = true;
                self.io(shape, Home::Output(k), len)
            }
            _ => {
                self.slots.push(len);
                Operand::whole(Home::Slot(self.slots.len() - 1), len)
            }
        };
        self.homes[t] = Some(home);
        self.ids[t] = Some(self.values);
        self.values += 1;
        Some(home)
    }

    fn output_len(&self, k: usize) -> Option<usize> {
        let t = input_tensor(self.g, self.g.results[k], 0)?;
        self.dims_of(t).map(|d| d.iter().product())
    }

    /// Makes `y` share `x`'s place.
    pub(super) fn alias(&mut self, x: TensorId, y: TensorId) {
        self.homes[y] = self.homes[x];
        self.ids[y] = self.ids[x];
    }

    /// Records what the steps of node `id` from `first` on read and wrote.
    pub(super) fn touched(&mut self, id: NodeId, first: usize) {
        if self.steps.len() == first {
            return;
        }
        let node = &self.g.nodes[id];
        let placed = |t: &TensorId| Some((self.ids[*t]?, self.homes[*t]?));
        let reads = node.inputs.iter().flatten().filter_map(placed).collect();
        let writes = node.outputs.iter().filter_map(placed).collect();
        self.trace.push(ir::verify::Touch { steps: (first, self.steps.len()), node: Some(id), reads, writes });
    }

    /// Records that the step just pushed copied tensor `t` into `dst` (a Result's output):
    /// a read of `t`, and a write of a value of its own.
    fn copied_by_last(&mut self, t: TensorId, dst: Operand) {
        let read = self.ids[t].zip(self.homes[t]);
        let k = self.steps.len();
        let written = (self.values, dst);
        self.values += 1;
        self.trace.push(ir::verify::Touch {
            steps: (k - 1, k),
            node: None,
            reads: read.into_iter().collect(),
            writes: vec![written],
        });
    }

    /// The Results: each is written where its value is, or copied there.
    pub(super) fn outputs(&mut self, c: &mut Checker<'_>) {
        for (k, &r) in self.g.results.iter().enumerate() {
            let name =
                self.g.result_names.get(k).cloned().flatten().unwrap_or_else(|| self.g.nodes[r].origin.name.clone());
            name_fits(c, r, &name);
            let Some(t) = input_tensor(self.g, r, 0) else {
                c.err(Code::Layer, r, None, "the Result has no input");
                continue;
            };
            let Some(shape) = self.g.tensors[t].fact.shape.clone() else { continue };
            let elem = self.g.tensors[t].fact.elem;
            if elem.carried() == crate::vocab::Carried::No {
                c.err(
                    Code::Declined,
                    r,
                    None,
                    format!("the Result returns {} values; cellc's outputs are f32, and it holds {} values only at compile time", elem.name(), elem.name()),
                );
                continue;
            }
            let dims = self.ir_dims(c, r, &shape, "Result").unwrap_or_default();
            self.outputs.push(ir::Output { name, shape: dims, declared: elem });
            let Some(src) = self.operand(t) else {
                // What feeds the Result was refused, with a reason; if none was given, the
                // Result would be left unwritten: refuse it here.
                if c.diags.is_empty() && !c.reported {
                    c.err(
                        Code::Internal,
                        r,
                        None,
                        "internal error: the value this Result returns was not planned; please report it",
                    );
                }
                continue;
            };
            if src.home == Home::Output(k) {
                continue;
            }
            if let Some((outer, inner)) = self.split_row(&shape)
                && outer > 1
            {
                let dst = Operand::whole(Home::Output(k), 0);
                self.steps.push(Step::Rows(ir::steps::RowCopy { src, dst, outer, inner, into_row: false }));
                self.copied_by_last(t, dst);
                continue;
            }
            let len = src.len;
            let dst = self.io(&shape, Home::Output(k), len);
            self.steps.push(Step::Copy(ir::steps::Copy { src, dst, axes: vec![[len, 1, 1]] }));
            self.copied_by_last(t, dst);
        }
    }

    /// Reports Parameters whose element type their use does not take: data is f32,
    /// sequence lengths f32 or whole numbers.
    pub(super) fn param_types(&self, c: &mut Checker<'_>) {
        for &p in &self.g.params {
            // A Parameter only unsupported ops read is reported with them.
            let Some(i) = self.param_of[p].filter(|&i| self.roles[i].is_some()) else { continue };
            let elem = self.g.tensors[self.g.nodes[p].outputs[0]].fact.elem;
            let ok = match self.params[i].role {
                ParamRole::Lengths => {
                    matches!(elem, crate::graph::Elem::F32 | crate::graph::Elem::I32 | crate::graph::Elem::I64)
                }
                ParamRole::Data => elem.carried() != crate::vocab::Carried::No,
                ParamRole::Weights => elem == crate::graph::Elem::F32,
            };
            if !ok {
                let msg = format!(
                    "element type {:?} is not supported for {}; cellc generates f32 kernels and takes data in f32 (holding f64 and whole numbers too) but not f16 or bf16, and weights in f32 (sequence lengths in i32, i64 or f32)",
                    elem.name(),
                    role_text(self.params[i].role)
                );
                c.err(Code::Declined, p, None, msg);
            }
        }
    }

    /// The variable named `name` of `len` values, made on first use.
    pub(super) fn variable(&mut self, c: &mut Checker<'_>, id: NodeId, name: &str, len: usize) -> Option<usize> {
        if let Mode::Rows(_) = self.mode {
            let msg = crate::diag::Message::new("a stateful model keeps one value per row of a static batch")
                .fix(crate::diag::Fix::pin_batch());
            c.err(Code::Declined, id, None, msg);
            return None;
        }
        match self.states.iter().position(|s| s.name == name) {
            Some(k) if self.states[k].len == len => Some(k),
            Some(k) => {
                let msg =
                    format!("variable {name:?} holds {} values elsewhere in the model, {len} here", self.states[k].len);
                c.err(Code::Declined, id, None, msg);
                None
            }
            None => {
                self.states.push(ir::State { name: name.to_owned(), len });
                Some(self.states.len() - 1)
            }
        }
    }

    /// A `ReadValue`: its output is the variable itself; on the first run its input (if any)
    /// sets it.
    pub(super) fn read_value(&mut self, c: &mut Checker<'_>, id: NodeId, name: &str) {
        let Some(&y) = self.g.nodes[id].outputs.first() else { return };
        let Some(len) = self.dims_of(y).map(|d| d.iter().product::<usize>()) else { return };
        let Some(k) = self.variable(c, id, name, len) else { return };
        if let Some(init) = input_tensor(self.g, id, 0) {
            let Some(src) = self.operand(init) else { return };
            self.steps.push(Step::Init(ir::steps::Init { state: k, src }));
        }
        self.homes[y] = Some(Operand::whole(Home::State(k), len));
    }

    /// An `Assign`: its input is stored in the variable once every step has read the old
    /// value (its input is kept until then).
    pub(super) fn assign(&mut self, c: &mut Checker<'_>, id: NodeId, name: &str) {
        let Some(x) = input_tensor(self.g, id, 0) else { return };
        let Some(src) = self.operand(x) else { return };
        let Some(k) = self.variable(c, id, name, src.len) else { return };
        self.assigns.push((k, src, self.ids[x]));
    }

    /// The validated model.
    pub(super) fn finish(self) -> (ir::Model, Vec<ir::verify::Touch>) {
        let (mut steps, mut trace) = (self.steps, self.trace);
        for (k, src, id) in self.assigns {
            let dst = Operand::whole(Home::State(k), src.len);
            steps.push(Step::Copy(ir::steps::Copy::new(src, dst, vec![[src.len, 1, 1]])));
            let reads = id.map(|v| (v, src)).into_iter().collect();
            trace.push(ir::verify::Touch {
                steps: (steps.len() - 1, steps.len()),
                node: None,
                reads,
                writes: Vec::new(),
            });
        }
        let model = ir::Model {
            file: self.g.file.clone(),
            name: self.g.code_model_name(),
            batch: batch_of(self.mode),
            params: self.params,
            cells: self.cells,
            outputs: self.outputs,
            denses: self.denses,
            consts: self.consts,
            slots: self.slots,
            steps,
            states: self.states,
        };
        (model, trace)
    }
}

/// Row-major strides.
pub(super) fn strides(dims: &[usize]) -> Vec<usize> {
    let mut s = vec![1; dims.len()];
    for k in (0..dims.len().saturating_sub(1)).rev() {
        s[k] = s[k + 1] * dims[k + 1];
    }
    s
}

/// The operand moved `by` values further.
pub(super) fn shifted(o: Operand, by: usize) -> Operand {
    Operand { offset: o.offset + by, len: o.len.saturating_sub(by), ..o }
}
