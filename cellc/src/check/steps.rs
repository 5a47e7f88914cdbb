//! The steps of the ops around the cells: layout ops become copies with fixed strides,
//! elementwise ops maps, `MatMul` matrix products, `SoftMax` softmaxes. In rows mode an op
//! that would mix the rows of the batch is refused with the dimension to pin.
use super::checker::{Checker, input_tensor};
use super::lower::{Lowering, shifted, strides};
use crate::diag::Code;
use crate::graph::{Data, Elem, NodeId, TensorId};
use crate::ir::steps::{Chain, Copy, Map, MapFn, Softmax};
use crate::ir::{Operand, Step};
use crate::limits::MAX_BACKWARD_COPIES;
use crate::ops::{Binary, Op, ReduceKind, Unary, tensor::axis};
use crate::vocab::Carried;

impl Lowering<'_> {
    /// Lowers node `id`.
    pub(super) fn node(&mut self, c: &mut Checker<'_>, id: NodeId) {
        let first = self.steps.len();
        self.plan_node(c, id);
        self.touched(id, first);
    }

    fn plan_node(&mut self, c: &mut Checker<'_>, id: NodeId) {
        let node = &self.g.nodes[id];
        let constant = !node.outputs.is_empty() && node.outputs.iter().all(|&t| self.g.tensors[t].fact.value.is_some());
        match &node.op {
            Op::Parameter { .. } | Op::Const { .. } | Op::Result | Op::Unknown | Op::If => {}
            _ if constant => {}
            Op::Cell(a) => {
                let a = a.clone();
                self.cell(c, id, &a);
            }
            Op::ReadValue { variable, .. } => {
                let v = variable.clone();
                self.read_value(c, id, &v);
            }
            Op::Assign { variable } => {
                let v = variable.clone();
                self.assign(c, id, &v);
            }
            _ if self.is_alias(id) => {
                if let (Some(x), Some(&y)) = (input_tensor(self.g, id, 0), node.outputs.first())
                    && self.operand(x).is_some()
                {
                    self.alias(x, y);
                }
            }
            op => {
                let op = op.clone();
                self.op(c, id, &op);
            }
        }
    }

    /// The batch axis of a tensor's shape, in rows mode.
    pub(super) fn axis_of_batch(&self, t: TensorId) -> Option<usize> {
        self.batch_axis(self.g.tensors[t].fact.shape.as_deref()?)
    }

    /// Refuses an op that would work across the batch's rows along `ax` of tensor `t`.
    pub(super) fn keeps_rows(&self, c: &mut Checker<'_>, id: NodeId, t: TensorId, ax: usize, what: &str) -> bool {
        if self.axis_of_batch(t) == Some(ax) {
            let msg = crate::diag::Message::new(format!(
                "{what} along dimension {ax}, the dynamic batch; cellc runs a dynamic batch row by row"
            ))
            .fix(crate::diag::Fix::pin_batch());
            c.err(Code::Declined, id, None, msg);
            return false;
        }
        true
    }

    fn op(&mut self, c: &mut Checker<'_>, id: NodeId, op: &Op) {
        let outs = self.g.nodes[id].outputs.clone();
        // An output of unknown shape comes from a problem the passes reported.
        if c.reported && outs.iter().any(|&y| self.g.tensors[y].fact.shape.is_none()) {
            return;
        }
        if let Op::Pure(p) = op {
            // GatherElements at run time is a gather; the rest are computed at compile time only.
            if let crate::ops::pure::Pure::GatherElements { axis: a } = p
                && let Some(Some(x)) = self.g.nodes[id].inputs.first().copied()
                && let (Some(xd), Some(xo)) = (self.dims_of(x), self.operand(x))
                && let Ok(a) = axis(*a, xd.len())
            {
                return self.take(c, id, (x, xo, &xd), a, super::gathers::Taking::Elements, outs[0]);
            }
            if let crate::ops::pure::Pure::TopK { axis: a, largest } = p {
                return self.top_k(c, id, (*a, *largest), &outs);
            }
            return self.compile_time_only(c, id, *p);
        }
        for &y in &outs {
            let e = self.g.tensors[y].fact.elem;
            if e.carried() == Carried::No {
                let msg = format!(
                    "computes {} values at run time; cellc computes in f32, and {} only at compile time",
                    e.name(),
                    e.name()
                );
                c.err(Code::Declined, id, None, msg);
                return;
            }
        }
        let whole = outs.first().is_some_and(|&y| self.g.tensors[y].fact.elem.carried() == Carried::Whole);
        let Some(ins) = self.inputs_known(id) else { return };
        let x = ins.first().cloned();
        match op {
            Op::Transpose => {
                let (Some((_, xo, xd)), Some(p)) = (x, self.g.transpose_perm(id)) else { return };
                let Some(y) = self.place(outs[0]) else { return };
                let xs = strides(&xd);
                let yd: Vec<usize> = p.iter().map(|&a| xd[a]).collect();
                let ys = strides(&yd);
                let axes = (0..yd.len()).map(|k| [yd[k], xs[p[k]], ys[k]]).collect();
                self.steps.push(Step::Copy(Copy::new(xo, y, axes)));
            }
            Op::Concat { axis: a } => self.concat(c, id, &ins, *a, outs[0]),
            Op::Slice => self.slice(c, id, &ins, outs[0]),
            Op::StridedSlice(_) => self.strided_slice(c, id, op, &ins, outs[0]),
            Op::Gather { batch_dims } => self.gather(c, id, *batch_dims, &ins, outs[0]),
            Op::Split { .. } | Op::VariadicSplit => self.split(c, id, &ins, &outs),
            Op::Broadcast { .. } => {
                let Some((_, xo, xd)) = x else { return };
                let Some(yd) = self.dims_of(outs[0]) else { return };
                let Some(y) = self.place(outs[0]) else { return };
                let axes =
                    aligned(&xd, &yd).into_iter().zip(strides(&yd)).zip(&yd).map(|((s, d), &n)| [n, s, d]).collect();
                self.steps.push(Step::Copy(Copy::new(xo, y, axes)));
            }
            Op::Tile => {
                let (Some((xt, xo, xd)), Some(reps)) = (x, self.consts(id, 1)) else { return };
                let syms: Vec<crate::graph::Sym> = xd.iter().map(|&d| crate::graph::Sym::known(d as i64)).collect();
                let Ok((dims, reps)) = crate::ops::shape::tile_dims(&syms, &reps) else { return };
                let lead = dims.len() - xd.len();
                for (a, &r) in reps.iter().enumerate() {
                    if r != 1 && a >= lead && !self.keeps_rows(c, id, xt, a - lead, "a tile") {
                        return;
                    }
                }
                let Some(y) = self.place(outs[0]) else { return };
                let xd: Vec<usize> = dims.iter().map(|d| d.value().unwrap_or(1) as usize).collect();
                let (xs, yd) = (strides(&xd), xd.iter().zip(&reps).map(|(&d, &r)| d * r as usize).collect::<Vec<_>>());
                let ys = strides(&yd);
                // Each axis as its repeats (reading the same values again) and its own values.
                let axes =
                    (0..xd.len()).flat_map(|k| [[reps[k] as usize, 0, xd[k] * ys[k]], [xd[k], xs[k], ys[k]]]).collect();
                self.steps.push(Step::Copy(Copy::new(xo, y, axes)));
            }
            Op::Unary(u) => self.map(Chain::single(MapFn::Unary(*u)), &ins, outs[0]),
            // Whole numbers divided in f32 and rounded as the op rounds: exact while the
            // dividend is below 2²⁴ (the quotient's rounding cannot reach the next whole number).
            Op::Binary(b @ Binary::Divide { python }) if whole => {
                let round = if *python { Unary::Floor } else { Unary::Trunc };
                self.map(Chain::then(MapFn::Binary(*b), MapFn::Unary(round)), &ins, outs[0]);
            }
            Op::Binary(b) => self.map(Chain::single(MapFn::Binary(*b)), &ins, outs[0]),
            Op::Reduce { kind: ReduceKind::Mean, .. } if whole => {
                let msg = "a mean of whole numbers at run time, which the op rounds; cellc computes in f32";
                c.err(Code::Declined, id, None, msg);
            }
            Op::Compare(cm) => self.map(Chain::single(MapFn::Compare(*cm)), &ins, outs[0]),
            Op::Select => self.map(Chain::single(MapFn::Select), &ins, outs[0]),
            Op::Chain(ch) => self.map(ch.clone(), &ins, outs[0]),
            Op::MatMul { ta, tb } => self.matmul(c, id, &ins, (*ta, *tb), outs[0]),
            Op::Dense { tb, act, win, planar, groups } => {
                let op = super::products::DenseOp {
                    tb: *tb,
                    act: *act,
                    win: win.as_deref(),
                    planar: *planar,
                    groups: *groups,
                };
                self.dense(c, id, &ins, &op, outs[0])
            }
            Op::Reduce { kind, .. } => self.reduce(c, id, &ins, *kind, outs[0]),
            Op::Pick(p) => self.pick(c, id, p, &ins, outs[0]),
            Op::Windows(w) => self.windows(c, id, w, &ins, outs[0]),
            Op::PoolWindows { win, kind } => self.pool_windows(c, id, (win, *kind), &ins, outs[0]),
            Op::Conv(_)
            | Op::Pad(_)
            | Op::Pool(_)
            | Op::Norm(_)
            | Op::Einsum(_)
            | Op::Scatter(_)
            | Op::Interpolate(_)
                if self.g.nodes[id].declined.is_some() =>
            {
                // The lowering said why it left the layer: word for word.
                c.err(Code::Declined, id, None, self.g.nodes[id].declined.clone().unwrap_or_else(|| "declined".into()));
            }
            Op::Conv(_) | Op::Pad(_) | Op::Pool(_) | Op::Norm(_) | Op::Einsum(_) | Op::Scatter(_) => {
                let what = match op {
                    Op::Conv(_) => "weights known at compile time",
                    Op::Pad(_) => "pads and a pad value known at compile time",
                    Op::Norm(_) => "axes or parameters known at compile time",
                    Op::Einsum(_) => "the sizes of every subscript but the batch's known at compile time",
                    Op::Scatter(_) => "indices, an axis and every shape known at compile time",
                    _ => "indices that nothing reads",
                };
                let msg = format!("cellc compiles {} layers with {what}", self.g.nodes[id].origin.op);
                c.err(Code::Declined, id, None, msg);
            }
            Op::Softmax { axis: a, log } => {
                let Some((xt, xo, xd)) = x else { return };
                let Ok(ax) = axis(*a, xd.len()) else { return };
                if !self.keeps_rows(c, id, xt, ax, "a softmax") {
                    return;
                }
                let Some(y) = self.place(outs[0]) else { return };
                let xs = strides(&xd);
                let outer = (0..xd.len()).filter(|&k| k != ax).map(|k| [xd[k], xs[k]]).collect();
                self.steps.push(Step::Softmax(Softmax {
                    src: xo,
                    dst: y,
                    outer,
                    len: xd[ax],
                    stride: xs[ax],
                    log: *log,
                }));
            }
            // Conversions that change the values generated code holds: to whole numbers
            // (towards zero, as a cast does), to booleans (0 or not); others refused.
            Op::Convert { .. } | Op::ConvertLike if self.conversion(id).is_some() => {
                let Some((from, to)) = self.conversion(id) else { return };
                let f = match (from.carried(), to.carried()) {
                    // A value past the type's range is undefined in ONNX (a quantisation
                    // clamps first): cellc keeps it whole.
                    (Carried::Exact | Carried::Rounded, Carried::Whole) => {
                        Some(Chain::single(MapFn::Unary(Unary::Trunc)))
                    }
                    (_, _) if to == Elem::Bool => {
                        Some(Chain::then(MapFn::Unary(Unary::LogicalNot), MapFn::Unary(Unary::LogicalNot)))
                    }
                    _ => None,
                };
                match f {
                    Some(f) => self.map(f, &ins[..1], outs[0]),
                    None => {
                        let msg = format!(
                            "converts {} values to {} at run time, which wraps them; cellc computes in f32, and converts at run time to floats, to 32- and 64-bit signed integers and to booleans",
                            from.name(),
                            to.name()
                        );
                        c.err(Code::Declined, id, None, msg);
                    }
                }
            }
            // Layout and conversions that are not views of their input here: the rows of a
            // dynamic batch would not stay whole through them.
            Op::Reshape { .. } | Op::Squeeze | Op::Unsqueeze | Op::Identity | Op::Convert { .. } | Op::ConvertLike => {
                let msg = crate::diag::Message::new(format!(
                    "moves values across the dynamic batch's rows ({} at run time); cellc runs a dynamic batch row by row",
                    self.g.nodes[id].origin.op
                ))
                .fix(crate::diag::Fix::pin_batch());
                c.err(Code::Declined, id, None, msg);
            }
            // Computed at compile time only: their inputs are shapes and sizes.
            Op::ShapeOf { .. } | Op::Range { .. } => {
                let what = match op {
                    Op::ShapeOf { .. } => "the shape of its input",
                    _ => "its start, limit and step",
                };
                let msg = format!(
                    "cellc computes {} layers at compile time, from {what} known then",
                    self.g.nodes[id].origin.op
                );
                c.err(Code::Declined, id, None, msg);
            }
            // Reported by the checker's `unsupported` (parameters known only at run time), or
            // by the lowering that declined them (a resize).
            Op::Parametric(_) | Op::Interpolate(_) => {
                if !c.reported {
                    let msg = format!(
                        "cellc compiles {} layers with their sizes and parameters known at compile time",
                        self.g.nodes[id].origin.op
                    );
                    c.err(Code::Declined, id, None, msg);
                }
            }
            // Refused above, by `compile_time_only`.
            Op::Pure(_) => {}
            // Planned by `plan_node` before any step rule.
            Op::Parameter { .. }
            | Op::Const { .. }
            | Op::Result
            | Op::If
            | Op::Unknown
            | Op::Cell(_)
            | Op::ReadValue { .. }
            | Op::Assign { .. } => {}
        }
    }

    /// A `TopK` at run time: one [`crate::ir::steps::TopK`] step (its `k` a constant, at
    /// most [`crate::limits::MAX_TOP_K`]).
    fn top_k(&mut self, c: &mut Checker<'_>, id: NodeId, (a, largest): (i64, bool), outs: &[TensorId]) {
        let Some(Some(x)) = self.g.nodes[id].inputs.first().copied() else { return };
        let (Some(xd), Some(xo)) = (self.dims_of(x), self.operand(x)) else { return };
        let Ok(a) = axis(a, xd.len()) else { return };
        let Some(k) = self.consts(id, 1).and_then(|k| usize::try_from(*k.first()?).ok()) else {
            let msg = "takes a number of values known only at run time; cellc takes a constant k";
            c.err(Code::Declined, id, None, msg);
            return;
        };
        if k == 0 || k > crate::limits::MAX_TOP_K || k > xd[a] {
            let msg = format!(
                "takes {k} of {} values at run time; cellc computes a TopK of 1 to {} values at run time",
                xd[a],
                crate::limits::MAX_TOP_K.min(xd[a])
            );
            c.err(Code::Declined, id, None, msg);
            return;
        }
        if !self.keeps_rows(c, id, x, a, "a TopK") {
            return;
        }
        let [v, i] = outs[..] else { return };
        let Some(yd) = self.dims_of(v) else { return };
        let (Some(vo), Some(io)) = (self.place(v), self.place(i)) else { return };
        let (xs, ys) = (strides(&xd), strides(&yd));
        let outer = (0..xd.len()).filter(|&j| j != a).map(|j| [xd[j], xs[j], ys[j]]).collect();
        self.steps.push(Step::TopK(crate::ir::steps::TopK {
            src: xo,
            values: vo,
            indices: io,
            outer,
            len: xd[a],
            stride: xs[a],
            k,
            dst_stride: ys[a],
            largest,
        }));
    }

    /// A `Convert`'s (or `ConvertLike`'s) types `(from, to)`, when it changes the values
    /// generated code holds (so it is a step, not a view).
    fn conversion(&self, id: NodeId) -> Option<(Elem, Elem)> {
        let node = &self.g.nodes[id];
        let x = (*node.inputs.first()?)?;
        let (from, to) = (self.g.tensors[x].fact.elem, self.g.tensors[*node.outputs.first()?].fact.elem);
        (!to.keeps_held(from)).then_some((from, to))
    }

    /// Refuses an op cellc computes at compile time only, naming the first input whose
    /// values are known only at run time and where they come from.
    fn compile_time_only(&self, c: &mut Checker<'_>, id: NodeId, p: crate::ops::pure::Pure) {
        let node = &self.g.nodes[id];
        let dynamic = node.inputs.iter().enumerate().find_map(|(k, t)| {
            let t = (*t)?;
            (self.g.tensors[t].fact.value.is_none()).then_some((k, t))
        });
        let from = dynamic.map_or_else(String::new, |(k, t)| {
            let producer = &self.g.nodes[self.g.tensors[t].producer.0];
            let name = self.g.tensors[t].names.first().map_or_else(|| format!("input {k}"), |n| format!("{n:?}"));
            format!(
                "; its input {k} ({name}, from {} {:?}) is known only at run time",
                producer.origin.op, producer.origin.name
            )
        });
        let msg = format!("cellc computes {} at compile time only, from values known then{from}", p.name());
        c.err(Code::Declined, id, None, msg);
    }

    /// The data inputs' operands (inputs that must be constants are read from the graph).
    fn inputs_known(&mut self, id: NodeId) -> Option<Vec<(TensorId, Operand, Vec<usize>)>> {
        let data_inputs = match self.g.nodes[id].op {
            Op::Transpose
            | Op::Slice
            | Op::StridedSlice(_)
            | Op::Gather { .. }
            | Op::Split { .. }
            | Op::VariadicSplit
            | Op::Broadcast { .. }
            | Op::Tile
            | Op::Softmax { .. }
            | Op::Reduce { .. }
            | Op::Pick(_)
            | Op::Windows(_)
            | Op::PoolWindows { .. }
            | Op::Dense { .. } => 1,
            _ => self.g.nodes[id].inputs.len(),
        };
        let all = self.g.nodes[id].inputs.clone();
        let mut out = Vec::new();
        for t in all.into_iter().take(data_inputs) {
            let t = t?;
            out.push((t, self.operand(t)?, self.dims_of(t)?));
        }
        Some(out)
    }

    pub(super) fn consts(&self, id: NodeId, i: usize) -> Option<Vec<i64>> {
        self.g.input_fact(id, i)?.value.as_ref().and_then(Data::known_ints)
    }

    fn concat(
        &mut self,
        c: &mut Checker<'_>,
        id: NodeId,
        ins: &[(TensorId, Operand, Vec<usize>)],
        a: i64,
        y: TensorId,
    ) {
        let Some(yd) = self.dims_of(y) else { return };
        let Ok(ax) = axis(a, yd.len()) else { return };
        if ins.iter().any(|(t, _, _)| !self.keeps_rows(c, id, *t, ax, "a concatenation")) {
            return;
        }
        let Some(yo) = self.place(y) else { return };
        let ys = strides(&yd);
        let mut at = 0;
        for (_, xo, xd) in ins {
            let xs = strides(xd);
            let axes = (0..xd.len()).map(|k| [xd[k], xs[k], ys[k]]).collect();
            self.steps.push(Step::Copy(Copy::new(*xo, shifted(yo, at * ys[ax]), axes)));
            at += xd[ax];
        }
    }

    /// Copies a box of `x` (per axis: first index, count, step) into `y`.
    fn boxed(&mut self, xo: Operand, xd: &[usize], ranges: &[(usize, usize, usize)], yo: Operand) {
        let xs = strides(xd);
        let yd: Vec<usize> = ranges.iter().map(|r| r.1).collect();
        let ys = strides(&yd);
        let base: usize = ranges.iter().zip(&xs).map(|(r, s)| r.0 * s).sum();
        // With two values or more the step is within the dimension, so the stride fits; one
        // value (the step may be any size) needs none.
        let step = |k: usize| if ranges[k].1 > 1 { xs[k] * ranges[k].2 } else { 0 };
        let axes = (0..xd.len()).map(|k| [ranges[k].1, step(k), ys[k]]).collect();
        if yd.iter().product::<usize>() > 0 {
            self.steps.push(Step::Copy(Copy::new(shifted(xo, base), yo, axes)));
        }
    }

    fn slice(&mut self, c: &mut Checker<'_>, id: NodeId, ins: &[(TensorId, Operand, Vec<usize>)], y: TensorId) {
        let Some((xt, xo, xd)) = ins.first().cloned() else { return };
        let (Some(start), Some(stop), Some(step)) = (self.consts(id, 1), self.consts(id, 2), self.consts(id, 3)) else {
            return;
        };
        let axes: Vec<usize> = match self.g.nodes[id].inputs.get(4).copied().flatten() {
            Some(_) => match self.consts(id, 4) {
                Some(a) => a.iter().filter_map(|&a| axis(a, xd.len()).ok()).collect(),
                None => return,
            },
            None => (0..start.len()).collect(),
        };
        let mut picks: Vec<Vec<i64>> = xd.iter().map(|&n| (0..n as i64).collect()).collect();
        for (k, &a) in axes.iter().enumerate() {
            let (Some(&s), Some(&e), Some(&st)) = (start.get(k), stop.get(k), step.get(k)) else { return };
            if !self.keeps_rows(c, id, xt, a, "a slice") {
                return;
            }
            picks[a] = crate::ops::shape::slice_range(xd[a] as i64, s, e, st);
        }
        let Some(yo) = self.place(y) else { return };
        self.picked(c, id, xo, &xd, &picks, yo);
    }

    fn strided_slice(
        &mut self,
        c: &mut Checker<'_>,
        id: NodeId,
        op: &Op,
        ins: &[(TensorId, Operand, Vec<usize>)],
        y: TensorId,
    ) {
        let Some((xt, xo, xd)) = ins.first().cloned() else { return };
        let facts: Vec<Option<&crate::graph::Fact>> =
            (0..self.g.nodes[id].inputs.len()).map(|i| self.g.input_fact(id, i)).collect();
        let Op::StridedSlice(m) = op else { return };
        let Ok(plan) = crate::ops::strided::plan_of(m, &facts) else { return };
        let mut picks: Vec<Vec<i64>> = xd.iter().map(|&n| (0..n as i64).collect()).collect();
        for (a, pick) in plan.picks.iter().enumerate() {
            let Some(r) = pick else { continue };
            if !self.keeps_rows(c, id, xt, a, "a slice") {
                return;
            }
            picks[a].clone_from(r);
        }
        let Some(yo) = self.place(y) else { return };
        self.picked(c, id, xo, &xd, &picks, yo);
    }

    /// Copies the indices `picks` of each axis of `x` (dims `xd`), in order, into `y`: one
    /// strided copy when every axis steps forwards, else one for each index of the axes that
    /// step backwards (at most [`MAX_BACKWARD_COPIES`]).
    fn picked(&mut self, c: &mut Checker<'_>, id: NodeId, xo: Operand, xd: &[usize], picks: &[Vec<i64>], yo: Operand) {
        let yd: Vec<usize> = picks.iter().map(Vec::len).collect();
        if yd.iter().product::<usize>() == 0 {
            return;
        }
        let (xs, ys) = (strides(xd), strides(&yd));
        let back: Vec<usize> = (0..picks.len()).filter(|&a| picks[a].len() > 1 && picks[a][1] < picks[a][0]).collect();
        let copies = back.iter().try_fold(1usize, |n, &a| n.checked_mul(picks[a].len()));
        let Some(copies) = copies.filter(|&n| n <= MAX_BACKWARD_COPIES) else {
            let msg = format!(
                "slices backwards along dimensions {back:?}, a copy for each of their indices; cellc compiles at most {MAX_BACKWARD_COPIES}"
            );
            c.err(Code::Limit, id, None, msg);
            return;
        };
        for n in 0..copies {
            // The index taken along each backward axis, the last varying fastest.
            let mut fixed = vec![None; picks.len()];
            let mut rem = n;
            for &a in back.iter().rev() {
                fixed[a] = Some(rem % picks[a].len());
                rem /= picks[a].len();
            }
            let (mut base, mut at, mut axes) = (0, 0, Vec::new());
            for (a, p) in picks.iter().enumerate() {
                match fixed[a] {
                    Some(j) => {
                        base += p[j] as usize * xs[a];
                        at += j * ys[a];
                    }
                    None => {
                        base += p[0] as usize * xs[a];
                        // Two values or more step within the dimension; one needs no stride.
                        let step = if p.len() > 1 { (p[1] - p[0]) as usize * xs[a] } else { 0 };
                        axes.push([p.len(), step, ys[a]]);
                    }
                }
            }
            self.steps.push(Step::Copy(Copy::new(shifted(xo, base), shifted(yo, at), axes)));
        }
    }

    fn reduce(
        &mut self,
        c: &mut Checker<'_>,
        id: NodeId,
        ins: &[(TensorId, Operand, Vec<usize>)],
        kind: crate::ops::ReduceKind,
        y: TensorId,
    ) {
        let Some((xt, xo, xd)) = ins.first().cloned() else { return };
        let Some(axes) = self.consts(id, 1) else { return };
        let Ok(axes) = axes.iter().map(|&a| axis(a, xd.len())).collect::<Result<Vec<usize>, _>>() else { return };
        for &a in &axes {
            if !self.keeps_rows(c, id, xt, a, "a reduction") {
                return;
            }
        }
        let xs = strides(&xd);
        let kept: Vec<usize> = (0..xd.len()).filter(|k| !axes.contains(k)).collect();
        let ys = strides(&kept.iter().map(|&k| xd[k]).collect::<Vec<_>>());
        let outer = kept.iter().zip(&ys).map(|(&k, &d)| vec![xd[k], xs[k], d]).collect();
        let outer = crate::ir::steps::simplify_axes(outer, 3).into_iter().map(|a| [a[0], a[1], a[2]]).collect();
        let inner = (0..xd.len()).filter(|k| axes.contains(k)).map(|k| vec![xd[k], xs[k]]).collect();
        let inner = crate::ir::steps::simplify_axes(inner, 2).into_iter().map(|a| [a[0], a[1]]).collect();
        let Some(dst) = self.place(y) else { return };
        self.steps.push(Step::Reduce(crate::ir::steps::Reduce { kind, src: xo, dst, outer, inner }));
    }

    fn split(&mut self, c: &mut Checker<'_>, id: NodeId, ins: &[(TensorId, Operand, Vec<usize>)], outs: &[TensorId]) {
        let Some((xt, xo, xd)) = ins.first().cloned() else { return };
        let Some(a) = self.consts(id, 1).and_then(|a| axis(*a.first()?, xd.len()).ok()) else { return };
        if !self.keeps_rows(c, id, xt, a, "a split") {
            return;
        }
        let mut from = 0;
        for &y in outs {
            let Some(yd) = self.dims_of(y) else { return };
            let mut ranges: Vec<(usize, usize, usize)> = xd.iter().map(|&n| (0, n, 1)).collect();
            ranges[a] = (from, yd[a], 1);
            from += yd[a];
            let Some(yo) = self.place(y) else { return };
            self.boxed(xo, &xd, &ranges, yo);
        }
    }

    fn map(&mut self, f: Chain, ins: &[(TensorId, Operand, Vec<usize>)], y: TensorId) {
        let Some(yd) = self.dims_of(y) else { return };
        let Some(yo) = self.place(y) else { return };
        let ys = strides(&yd);
        let arg_strides: Vec<Vec<usize>> = ins.iter().map(|(_, _, d)| aligned(d, &yd)).collect();
        let axes = (0..yd.len())
            .map(|k| {
                let mut v = vec![yd[k], ys[k]];
                v.extend(arg_strides.iter().map(|s| s[k]));
                v
            })
            .collect();
        let args = ins.iter().map(|(_, o, _)| *o).collect();
        let axes = crate::ir::steps::simplify_axes(axes, ins.len() + 2);
        self.steps.push(Step::Map(Map { f, dst: yo, args, axes }));
    }
}

impl Lowering<'_> {
    /// A gather by a table, once per entry along the kept axis.
    fn pick(
        &mut self,
        c: &mut Checker<'_>,
        id: NodeId,
        p: &crate::ops::pad::Pick,
        ins: &[(TensorId, Operand, Vec<usize>)],
        y: TensorId,
    ) {
        let [(xt, xo, xd)] = ins else { return };
        if let Some(ax) = self.axis_of_batch(*xt)
            && !(p.lead == 1 && ax == 0)
            && !self.keeps_rows(c, id, *xt, ax, "a gather")
        {
            return;
        }
        let entries = if p.lead == 1 { xd.first().copied().unwrap_or(1) } else { 1 };
        if entries.checked_mul(p.entry) != Some(xd.iter().product()) {
            let msg = format!("internal error: a table over entries of {} values reads {xd:?}", p.entry);
            c.err(Code::Internal, id, None, msg);
            return;
        }
        let Some(dst) = self.place(y) else { return };
        self.steps.push(Step::Pick(crate::ir::steps::Pick {
            src: *xo,
            dst,
            table: p.table.clone(),
            entries,
            src_stride: p.entry,
            dst_stride: p.table.len(),
            fill: p.fill as f32,
        }));
    }
}

impl Lowering<'_> {
    /// Windows that no dense layer reads in place: a gather by the table of their sources.
    fn windows(
        &mut self,
        c: &mut Checker<'_>,
        id: NodeId,
        w: &crate::vocab::Windows,
        ins: &[(TensorId, Operand, Vec<usize>)],
        y: TensorId,
    ) {
        let len = crate::limits::product([w.positions() as u64, w.k() as u64]);
        if len.is_none_or(|n| n > crate::limits::MAX_PICK_TABLE) {
            let msg = format!(
                "gathers the windows of a convolution ({} positions × {} values) through a table larger than the {} entries cellc compiles",
                w.positions(),
                w.k(),
                crate::limits::MAX_PICK_TABLE
            );
            c.err(Code::Declined, id, None, msg);
            return;
        }
        let table = (0..w.positions())
            .flat_map(|p| (0..w.taps()).map(move |t| (p, t)))
            .flat_map(|(p, t)| {
                let at = w.source(p, t);
                (0..w.channels).map(move |ch| at.map_or(crate::ops::pad::Pick::NONE, |a| (a + ch) as u32))
            })
            .collect();
        let p = crate::ops::pad::Pick {
            lead: 1,
            shape: vec![w.positions(), w.k()],
            entry: w.input_len(),
            table,
            fill: 0.0,
        };
        self.pick(c, id, &p, ins, y);
    }

    /// A pool over windows read in place: one step over the entries of a row.
    fn pool_windows(
        &mut self,
        c: &mut Checker<'_>,
        id: NodeId,
        (w, kind): (&crate::vocab::Windows, crate::vocab::Pooling),
        ins: &[(TensorId, Operand, Vec<usize>)],
        y: TensorId,
    ) {
        let [(xt, xo, xd)] = ins else { return };
        let values = xd.iter().product::<usize>();
        let entries = values / w.input_len().max(1);
        if entries.checked_mul(w.input_len()) != Some(values) {
            let msg = format!("internal error: windows over entries of {} values read {xd:?}", w.input_len());
            c.err(Code::Internal, id, None, msg);
            return;
        }
        if let Some(ax) = self.axis_of_batch(*xt)
            && ax != 0
            && !self.keeps_rows(c, id, *xt, ax, "a pool")
        {
            return;
        }
        let Some(dst) = self.place(y) else { return };
        self.steps.push(Step::Pool(crate::ir::steps::Pool { kind, win: *w, src: *xo, dst, entries }));
    }
}

/// The strides of `x` (dims `xd`) read as a tensor of dims `yd` under numpy broadcasting:
/// 0 along the axes it is broadcast on.
pub(super) fn aligned(xd: &[usize], yd: &[usize]) -> Vec<usize> {
    let xs = strides(xd);
    let lead = yd.len() - xd.len().min(yd.len());
    (0..yd.len()).map(|k| if k < lead || xd[k - lead] == 1 && yd[k] != 1 { 0 } else { xs[k - lead] }).collect()
}
