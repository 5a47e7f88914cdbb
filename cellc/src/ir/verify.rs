//! A check of a planned model against itself, independent of how it was planned: every
//! value a step touches lies inside its operand and every operand inside its home, for
//! every row a run loops over; no step reads a value another one has overwritten in the
//! meantime; each step's sizes agree with its cell or dense layer. The planner's bugs would
//! otherwise reach users as a panic or an out-of-bounds read in their program.
use super::steps::{CellStep, Copy, DenseStep, Map, MatMul, Reduce, RowCopy, Softmax};
use super::{Batch, Dim, Home, Lengths, Model, Operand, Step};

/// A planned model that has passed [`Model::verify`]: what the emitters take, so that no
/// code is written for a plan that fails its own check. It reads as the [`Model`] it holds.
#[derive(Clone, Debug)]
pub struct Verified(Model);

impl Verified {
    /// `model`, when it passes [`Model::verify`] with the planner's `trace` (empty: the
    /// values read are not replayed, the bounds of every step are still checked).
    pub fn new(model: Model, trace: &[Touch]) -> Result<Verified, Vec<Fault>> {
        model.verify(trace)?;
        Ok(Verified(model))
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.0
    }

    /// The model, to change it (it must be verified again to be emitted).
    pub fn into_model(self) -> Model {
        self.0
    }
}

impl std::ops::Deref for Verified {
    type Target = Model;
    fn deref(&self) -> &Model {
        &self.0
    }
}

/// Checks that each embedded weight tensor of `cell` holds what its sizes say, in the
/// kernels' layout, so that packing it reads inside it.
fn cell_weights(cell: &super::Cell) -> Result<(), Problem> {
    use super::WeightSrc;
    let (sp, dirs) = (&cell.spec, cell.seq.as_ref().map_or(1, |q| q.direction.count()));
    let per_dir = |n: Option<usize>| n.and_then(|n| n.checked_mul(dirs));
    let gh = sp.kind.gates().checked_mul(sp.hidden);
    let lstm = sp.kind == super::CellKind::Lstm;
    // (tensor, source, values it must hold, whether it may come at run time)
    let wants = [
        ("W", Some(&cell.w), per_dir(gh.and_then(|g| g.checked_mul(sp.input))), true),
        ("R", Some(&cell.r), per_dir(gh.and_then(|g| g.checked_mul(sp.hidden))), true),
        ("B", cell.b.as_ref(), per_dir(sp.kind.bias_blocks().checked_mul(sp.hidden)), true),
        ("P", cell.p.as_ref(), per_dir(3usize.checked_mul(sp.hidden)).filter(|_| lstm), false),
    ];
    for (tensor, src, want, runtime) in wants {
        let ok = match src {
            Some(WeightSrc::Embedded { values, .. }) => Some(values.len()) == want,
            Some(WeightSrc::Runtime(_)) => runtime,
            None => true,
        };
        if !ok {
            return Err(Problem::CellWeights { cell: cell.name.clone(), tensor });
        }
    }
    Ok(())
}

/// What the steps of one node of the graph read and wrote, as the planner placed them: the
/// values (by the planner's number for the storage they share) and where they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Touch {
    /// The steps, `first..end` of [`Model::steps`].
    pub steps: (usize, usize),
    /// The node of the graph they compute (its index), for messages; `None` for the
    /// copies of the model's inputs and outputs.
    pub node: Option<usize>,
    /// The values read.
    pub reads: Vec<(usize, Operand)>,
    /// The values written.
    pub writes: Vec<(usize, Operand)>,
}

/// A problem of a planned model, with the steps it is found in.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    /// The steps, `first..end` of [`Model::steps`].
    pub steps: (usize, usize),
    /// What is wrong there.
    pub problem: Problem,
}

/// What [`Model::verify`] finds wrong.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// A step names a cell, dense layer or variable the model does not have.
    Missing(&'static str),
    /// A cell step's outputs and states do not fit its cell's kind.
    CellPorts {
        /// The cell's name.
        cell: String,
        /// The step's outputs.
        outputs: usize,
    },
    /// A cell's embedded weights are not as many as its sizes say (`P` also when it is not
    /// an LSTM's, or not embedded).
    CellWeights {
        /// The cell's name.
        cell: String,
        /// `W`, `R`, `B` or `P`.
        tensor: &'static str,
    },
    /// A cell holds fewer sequence lengths than the rows it runs over.
    CellLengths {
        /// The cell's name.
        cell: String,
        /// The lengths it holds.
        lengths: usize,
        /// The rows.
        rows: usize,
    },
    /// A dense layer's windows do not fit it (their values a row, their sizes, or the
    /// step's rows, which must be whole entries of positions).
    Windows {
        /// The layer's name.
        layer: String,
    },
    /// A dense layer's weights, bias or slopes are not `K·N`, `N` and `N` values.
    DenseArrays {
        /// The layer's name.
        layer: String,
    },
    /// A pool's windows are not whole: their sizes overflow or do not hold together.
    PoolWindows,
    /// An operand's home does not exist.
    NoHome {
        /// The step's kind.
        kind: &'static str,
        /// The operand.
        operand: Operand,
    },
    /// A step touches more values than its operand holds.
    PastOperand {
        /// The step's kind.
        kind: &'static str,
        /// The values it touches from the operand's start.
        reach: usize,
        /// The operand.
        operand: Operand,
    },
    /// A step reaches past its operand's home.
    PastHome {
        /// The step's kind.
        kind: &'static str,
        /// The value one past the last it reaches.
        end: usize,
        /// What the home holds.
        holds: usize,
        /// The rows of the run.
        rows: usize,
        /// The operand.
        operand: Operand,
    },
    /// A step touches values of a scratch slot or an output that the planner's account of
    /// its node (the trace) does not name: the values it reads or writes there are not
    /// checked, so the step is refused.
    Unaccounted {
        /// Where.
        home: Home,
        /// The values the step's operand covers there, `from..to`.
        from: usize,
        /// One past the last.
        to: usize,
    },
    /// A value read is not the one last written where it lives.
    Stale {
        /// The value read.
        value: usize,
        /// Where it was read.
        home: Home,
        /// The value there (`None`: nothing written yet).
        found: Option<usize>,
    },
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (k, end) = self.steps;
        match &self.problem {
            Problem::Missing(what) => write!(f, "step {k}: a {what} that does not exist"),
            Problem::CellPorts { cell, outputs } => {
                write!(f, "step {k}: cell {cell} has {outputs} outputs and the wrong states for its kind")
            }
            Problem::CellWeights { cell, tensor } => {
                write!(f, "step {k}: cell {cell} holds {tensor} of another size than its sizes say")
            }
            Problem::CellLengths { cell, lengths, rows } => {
                write!(f, "step {k}: cell {cell} has {lengths} sequence lengths for {rows} rows")
            }
            Problem::Windows { layer } => {
                write!(f, "step {k}: the windows of dense layer `{layer}` do not fit its rows")
            }
            Problem::DenseArrays { layer } => {
                write!(
                    f,
                    "step {k}: dense layer `{layer}` does not hold K·N weights and N biases and slopes, its outputs in whole groups (groups only planar)"
                )
            }
            Problem::PoolWindows => write!(f, "step {k}: a pool's windows do not hold together"),
            Problem::NoHome { kind, operand } => write!(f, "step {k} ({kind}): {:?} does not exist", operand.home),
            Problem::PastOperand { kind, reach, operand } => {
                write!(f, "step {k} ({kind}): touches {reach} values of an operand of {} ({operand:?})", operand.len)
            }
            Problem::PastHome { kind, end, holds, rows, operand } => write!(
                f,
                "step {k} ({kind}): reaches value {end} of {:?}, which holds {holds} for {rows} rows ({operand:?})",
                operand.home
            ),
            Problem::Unaccounted { home, from, to } => {
                write!(f, "step {k} touches values {from}..{to} of {home:?}, which no account of its node names")
            }
            Problem::Stale { value, home, found } => {
                let there = found.map_or_else(|| "nothing yet".to_owned(), |w| format!("value {w}"));
                write!(f, "steps {k}..{end} read value {value} in {home:?}, where {there} is")
            }
        }
    }
}

impl std::error::Error for Fault {}

/// How many values from an operand's start a nest of `(count, stride)` axes touches: 0
/// when an axis is empty.
fn span(axes: impl IntoIterator<Item = (usize, usize)>) -> usize {
    let mut reach = 0usize;
    for (count, stride) in axes {
        if count == 0 {
            return 0;
        }
        reach = reach.saturating_add((count - 1).saturating_mul(stride));
    }
    reach.saturating_add(1)
}

/// Values of a tensor of `shape` for `rows` rows.
fn total(shape: &[Dim], rows: usize) -> usize {
    shape.iter().map(|d| if let Dim::Static(n) = d { *n } else { rows }).product()
}

impl Model {
    /// The values home `h` holds when a run covers `rows` rows.
    fn home_len(&self, h: Home, rows: usize) -> Option<usize> {
        Some(match h {
            Home::Param(i) => total(&self.params.get(i)?.shape, rows),
            Home::Output(k) => total(&self.outputs.get(k)?.shape, rows),
            Home::Slot(s) => *self.slots.get(s)?,
            Home::Const(k) => self.consts.get(k)?.len(),
            Home::State(k) => self.states.get(k)?.len,
        })
    }

    /// The operands a step touches, each with how many values from its start it reaches for
    /// one row, and whether it is addressed as a whole tensor (row `n` addressed by the step).
    fn reach(&self, step: &Step, batch: usize) -> Result<Vec<(Operand, usize, bool)>, Problem> {
        let axes3 = |a: &[[usize; 3]], k: usize| span(a.iter().map(|x| (x[0], x[k])));
        Ok(match step {
            Step::Copy(Copy { src, dst, axes }) => vec![(*src, axes3(axes, 1), false), (*dst, axes3(axes, 2), false)],
            Step::Map(Map { dst, args, axes, .. }) => {
                let at = |k: usize| span(axes.iter().map(|x| (x[0], x.get(k).copied().unwrap_or(0))));
                let mut out = vec![(*dst, at(1), false)];
                out.extend(args.iter().enumerate().map(|(k, a)| (*a, at(k + 2), false)));
                out
            }
            Step::MatMul(m) => matmul(m),
            Step::Dense(d) => {
                let dense = self.denses.get(d.dense).ok_or(Problem::Missing("dense layer"))?;
                let DenseStep { x, dst, rows, .. } = d;
                let slopes = match &dense.act {
                    Some(crate::ir::DenseAct::PRelu(s)) => Some(s.len()),
                    Some(crate::ir::DenseAct::Unary(_)) | None => None,
                };
                let n = Some(dense.n);
                // Groups only where the planar kernel reads them, each of as many outputs.
                let grouped =
                    dense.groups == 1 || (dense.is_planar() && dense.group_outputs() * dense.groups == dense.n);
                if dense.k.checked_mul(dense.n) != Some(dense.w.len())
                    || dense.bias.as_ref().is_some_and(|b| Some(b.len()) != n)
                    || slopes.is_some_and(|s| Some(s) != n)
                    || dense.groups == 0
                    || !grouped
                {
                    return Err(Problem::DenseArrays { layer: dense.name.clone() });
                }
                // Over windows, `x` holds whole entries of the input, one per `positions` rows.
                let x_reach = dense.input_len(*rows).ok_or_else(|| Problem::Windows { layer: dense.name.clone() })?;
                vec![(*x, x_reach, false), (*dst, rows * dense.n, false)]
            }
            Step::Softmax(Softmax { src, dst, outer, len, stride, .. }) => {
                let s = span(outer.iter().map(|a| (a[0], a[1])).chain([(*len, *stride)]));
                vec![(*src, s, false), (*dst, s, false)]
            }
            Step::Reduce(Reduce { src, dst, outer, inner, .. }) => vec![
                (*src, span(outer.iter().map(|a| (a[0], a[1])).chain(inner.iter().map(|a| (a[0], a[1])))), false),
                (*dst, span(outer.iter().map(|a| (a[0], a[2]))), false),
            ],
            Step::Rows(RowCopy { src, dst, outer, inner, into_row }) => {
                let (whole, row) = (outer * batch * inner, outer * inner);
                if *into_row {
                    vec![(*src, whole, true), (*dst, row, false)]
                } else {
                    vec![(*src, row, false), (*dst, whole, true)]
                }
            }
            Step::Init(i) => {
                let len = self.states.get(i.state).ok_or(Problem::Missing("variable"))?.len;
                vec![(i.src, len, false), (Operand::whole(Home::State(i.state), len), len, false)]
            }
            Step::Cell(c) => self.cell_reach(c, batch)?,
            Step::TopK(t) => {
                if t.k > t.len {
                    return Err(Problem::Missing("as many values along the axis as TopK takes"));
                }
                let src = span(t.outer.iter().map(|a| (a[0], a[1])).chain([(t.len, t.stride)]));
                let dst = span(t.outer.iter().map(|a| (a[0], a[2])).chain([(t.k, t.dst_stride)]));
                vec![(t.src, src, false), (t.values, dst, false), (t.indices, dst, false)]
            }
            Step::Take(t) => {
                if t.len == 0 {
                    return Err(Problem::Missing("a value along the axis a gather reads"));
                }
                let at = |k: usize| t.axes.iter().map(move |a| (a[0], a[k]));
                vec![
                    (t.src, span(at(1).chain([(t.len, t.stride)])), false),
                    (t.idx, span(at(2)), false),
                    (t.dst, span(at(3)), false),
                ]
            }
            Step::Pick(p) => {
                let each = |n: usize, stride: usize| match p.entries {
                    0 => 0,
                    e => (e - 1).saturating_mul(stride).saturating_add(n),
                };
                vec![
                    (p.src, each(p.src_reach(), p.src_stride), false),
                    (p.dst, each(p.table.len(), p.dst_stride), false),
                ]
            }
            Step::Pool(p) => {
                let w = &p.win;
                let (src, dst) = w
                    .valid()
                    .then(|| {
                        let src = p.entries.checked_mul(w.input_len())?;
                        Some((src, p.entries.checked_mul(w.positions())?.checked_mul(w.channels)?))
                    })
                    .flatten()
                    .ok_or(Problem::PoolWindows)?;
                vec![(p.src, src, false), (p.dst, dst, false)]
            }
        })
    }

    fn cell_reach(&self, s: &CellStep, batch: usize) -> Result<Vec<(Operand, usize, bool)>, Problem> {
        let cell = self.cells.get(s.cell).ok_or(Problem::Missing("cell"))?;
        let (sp, rows) = (&cell.spec, s.rows);
        let dirs = cell.seq.as_ref().map_or(1, |q| q.direction.count());
        let steps = cell.seq.as_ref().map_or(1, |q| q.steps);
        let state = rows * dirs * sp.hidden;
        let mut out = vec![(s.x, rows * steps * sp.input, false), (s.h, state, false)];
        out.extend(s.c.iter().map(|c| (*c, state, false)));
        let lens: &[usize] = match cell.seq {
            Some(_) => &[rows * dirs * steps * sp.hidden, state, state],
            None => &[state, state],
        };
        if s.out.len() > lens.len() || (s.c.is_some() != (sp.kind == super::CellKind::Lstm)) {
            return Err(Problem::CellPorts { cell: cell.name.clone(), outputs: s.out.len() });
        }
        out.extend(s.out.iter().zip(lens).map(|(o, &l)| (*o, l, false)));
        cell_weights(cell)?;
        if let Some(Lengths::Const(v)) = cell.seq.as_ref().map(|q| &q.lengths)
            && v.len() != 1
            && v.len() < batch * rows
        {
            return Err(Problem::CellLengths { cell: cell.name.clone(), lengths: v.len(), rows: batch * rows });
        }
        Ok(out)
    }

    /// Checks the model as described in the module's doc; every problem, each naming the
    /// step. `trace` is what the planner says each node's steps read and wrote (empty: the
    /// values are not checked).
    pub fn verify(&self, trace: &[Touch]) -> Result<(), Vec<Fault>> {
        let mut problems = Vec::new();
        let batches: &[usize] = match self.batch {
            Batch::Static(n) => &[n],
            Batch::Dynamic => &[1, 3],
        };
        for &batch in batches {
            for (k, step) in self.steps.iter().enumerate() {
                match self.reach(step, batch) {
                    Ok(ops) => self.inside(k, step, batch, &ops, &mut problems),
                    Err(problem) => problems.push(Fault { steps: (k, k + 1), problem }),
                }
            }
        }
        if !trace.is_empty() {
            self.accounted(trace, &mut problems);
        }
        self.values(trace, &mut problems);
        problems.sort_by_key(|f| (f.steps, f.to_string()));
        problems.dedup();
        if problems.is_empty() { Ok(()) } else { Err(problems) }
    }

    fn inside(&self, k: usize, step: &Step, batch: usize, ops: &[(Operand, usize, bool)], out: &mut Vec<Fault>) {
        let kind = step_name(step);
        let mut fault = |problem| out.push(Fault { steps: (k, k + 1), problem });
        for &(o, reach, whole) in ops {
            let Some(home) = self.home_len(o.home, batch) else {
                fault(Problem::NoHome { kind, operand: o });
                continue;
            };
            if reach > o.len && !whole {
                fault(Problem::PastOperand { kind, reach, operand: o });
            }
            // A whole-tensor operand is addressed from its start whatever the row.
            let rows = if whole { 1 } else { batch };
            let end = o.offset.saturating_add((rows - 1).saturating_mul(o.row_stride)).saturating_add(reach);
            if end > home {
                fault(Problem::PastHome { kind, end, holds: home, rows: batch, operand: o });
            }
        }
    }

    /// Whether every scratch or output value each step touches (as its operands say, not as
    /// the trace does) lies within what the trace says the step's node reads or writes, so
    /// that the replay of values below sees every access the steps make.
    fn accounted(&self, trace: &[Touch], out: &mut Vec<Fault>) {
        let tracked = |h: Home| matches!(h, Home::Slot(_) | Home::Output(_));
        // The accounts naming each step (a node's steps are a range of their own, so this
        // costs the steps once, not the steps times the accounts).
        let mut covering: Vec<Vec<&Touch>> = vec![Vec::new(); self.steps.len()];
        for t in trace {
            for c in covering.iter_mut().take(t.steps.1).skip(t.steps.0) {
                c.push(t);
            }
        }
        for ((k, step), touches) in self.steps.iter().enumerate().zip(&covering) {
            let Ok(ops) = self.reach(step, 1) else { continue };
            let mut named: Vec<(Home, usize, usize)> = touches
                .iter()
                .flat_map(|t| t.reads.iter().chain(&t.writes))
                .map(|&(_, o)| (o.home, o.offset, o.offset.saturating_add(o.len)))
                .collect();
            named.sort_unstable();
            for (o, _, _) in ops.into_iter().filter(|(o, _, _)| tracked(o.home) && o.len > 0) {
                let (from, to) = (o.offset, o.offset.saturating_add(o.len));
                // The named stretches of the home, in order, must cover `from..to`.
                let mut at = from;
                for &(_, a, b) in named.iter().filter(|(h, _, _)| *h == o.home) {
                    if a <= at && b > at {
                        at = b;
                    }
                }
                if at < to {
                    out.push(Fault { steps: (k, k + 1), problem: Problem::Unaccounted { home: o.home, from, to } });
                }
            }
        }
    }

    /// Replays which value each slot and output holds: a value read must be the one last
    /// written where it lives.
    fn values(&self, trace: &[Touch], out: &mut Vec<Fault>) {
        let tracked = |h: Home| matches!(h, Home::Slot(_) | Home::Output(_));
        let mut held: std::collections::BTreeMap<Home, Runs> = std::collections::BTreeMap::new();
        for t in trace {
            for &(v, o) in t.reads.iter().filter(|(_, o)| tracked(o.home)) {
                let (a, b) = (o.offset, o.offset.saturating_add(o.len));
                let wrong = match held.get(&o.home) {
                    None => (a < b).then_some(None),
                    Some(runs) => runs.first_other(a, b, v),
                };
                if let Some(found) = wrong {
                    out.push(Fault { steps: t.steps, problem: Problem::Stale { value: v, home: o.home, found } });
                }
            }
            for &(v, o) in t.writes.iter().filter(|(_, o)| tracked(o.home)) {
                held.entry(o.home).or_default().write(o.offset, o.offset.saturating_add(o.len), v);
            }
        }
    }
}

/// Which value each stretch of a home holds: runs `start → (end, value)`, disjoint, so that
/// a write or a read costs the runs it meets rather than the values it covers (a model with
/// large tensors replays in microseconds, not in a pass over every value).
#[derive(Default)]
struct Runs(std::collections::BTreeMap<usize, (usize, usize)>);

impl Runs {
    /// Marks `a..b` as holding `v`.
    fn write(&mut self, a: usize, b: usize, v: usize) {
        if a >= b {
            return;
        }
        // A run from before `a` reaching into it keeps its part before `a` (and after `b`).
        if let Some((&s, &(e, w))) = self.0.range(..a).next_back()
            && e > a
        {
            self.0.insert(s, (a, w));
            if e > b {
                self.0.insert(b, (e, w));
            }
        }
        let inside: Vec<usize> = self.0.range(a..b).map(|(&s, _)| s).collect();
        for s in inside {
            if let Some((e, w)) = self.0.remove(&s)
                && e > b
            {
                self.0.insert(b, (e, w));
            }
        }
        self.0.insert(a, (b, v));
    }

    /// Where `a..b` holds something other than `v`: `Some(Some(w))` for another value,
    /// `Some(None)` for a stretch never written; `None` when it all holds `v`.
    fn first_other(&self, a: usize, b: usize, v: usize) -> Option<Option<usize>> {
        if a >= b {
            return None;
        }
        let mut at = a;
        let before = self.0.range(..=a).next_back().filter(|(_, (e, _))| *e > a);
        for (&s, &(e, w)) in before.into_iter().chain(self.0.range(a.saturating_add(1)..b)) {
            if at >= b {
                break;
            }
            if s > at {
                return Some(None);
            }
            if w != v {
                return Some(Some(w));
            }
            at = at.max(e);
        }
        (at < b).then_some(None)
    }
}

fn matmul(m: &MatMul) -> Vec<(Operand, usize, bool)> {
    let batch = |k: usize| m.batch.iter().map(move |a| (a[0], a[k]));
    if m.m == 0 || m.n == 0 || m.k == 0 {
        return vec![(m.a, 0, false), (m.b, 0, false), (m.dst, 0, false)];
    }
    vec![
        (m.a, span(batch(1).chain([(m.m, m.a_strides[0]), (m.k, m.a_strides[1])])), false),
        (m.b, span(batch(2).chain([(m.k, m.b_strides[0]), (m.n, m.b_strides[1])])), false),
        (m.dst, span(batch(3).chain([(m.m, m.dst_row), (m.n, 1)])), false),
    ]
}

fn step_name(s: &Step) -> &'static str {
    match s {
        Step::Cell(_) => "cell",
        Step::Copy(_) => "copy",
        Step::Map(_) => "map",
        Step::MatMul(_) => "matmul",
        Step::Dense(_) => "dense",
        Step::Softmax(_) => "softmax",
        Step::Reduce(_) => "reduce",
        Step::Rows(_) => "rows",
        Step::Init(_) => "init",
        Step::Pick(_) => "pick",
        Step::Pool(_) => "pool",
        Step::Take(_) => "take",
        Step::TopK(_) => "topk",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The faults as the checker's error message lists them.
    fn said(faults: Vec<Fault>) -> String {
        faults.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
    }
    use crate::ir::{Output, Param, ParamRole};

    /// `x [4]` copied into slot 0, then into the output: the plan of an identity.
    fn identity() -> Model {
        let (x, s, y) =
            (Operand::whole(Home::Param(0), 4), Operand::whole(Home::Slot(0), 4), Operand::whole(Home::Output(0), 4));
        let copy = |src, dst| Step::Copy(Copy::new(src, dst, vec![[4, 1, 1]]));
        Model {
            file: "m.xml".into(),
            name: "m".into(),
            batch: Batch::Static(1),
            params: vec![Param {
                name: "x".into(),
                shape: vec![Dim::Static(4)],
                role: ParamRole::Data,
                declared: crate::vocab::Elem::F32,
            }],
            cells: Vec::new(),
            outputs: vec![Output { name: "y".into(), shape: vec![Dim::Static(4)], declared: crate::vocab::Elem::F32 }],
            denses: Vec::new(),
            consts: Vec::new(),
            slots: vec![4],
            steps: vec![copy(x, s), copy(s, y)],
            states: Vec::new(),
        }
    }

    fn touch(k: usize, reads: &[(usize, Operand)], writes: &[(usize, Operand)]) -> Touch {
        Touch { steps: (k, k + 1), node: None, reads: reads.to_vec(), writes: writes.to_vec() }
    }

    #[test]
    fn operands_past_their_homes_are_found() {
        let m = identity();
        assert_eq!(m.verify(&[]), Ok(()));
        let mut short = m.clone();
        short.slots[0] = 3;
        let err = short.verify(&[]).map_err(said).expect_err("slot too short");
        assert!(err.contains("reaches value 4 of Slot(0), which holds 3"), "{err}");
        let mut rows = m;
        rows.batch = Batch::Dynamic;
        rows.params[0].shape = vec![Dim::Batch, Dim::Static(4)];
        // Read as one row's length further for each row, a whole static slot overflows.
        if let Step::Copy(c) = &mut rows.steps[1] {
            c.src.row_stride = 4;
        }
        let err = rows.verify(&[]).map_err(said).expect_err("rows past the slot");
        assert!(err.contains("reaches value 12 of Slot(0), which holds 4 for 3 rows"), "{err}");
    }

    #[test]
    fn a_pool_reaches_its_whole_entries() {
        // A 2×2 max pool of stride 2 over 4×4 positions of 2 channels: 32 values in, 8 out.
        let win = crate::vocab::Windows {
            input: [4, 4],
            output: [2, 2],
            kernel: [2, 2],
            strides: [2, 2],
            dilations: [1, 1],
            pads: [0, 0],
            channels: 2,
        };
        let pool = |win: crate::vocab::Windows| {
            Step::Pool(crate::ir::steps::Pool {
                kind: crate::vocab::Pooling::Max,
                win,
                src: Operand::whole(Home::Param(0), 32),
                dst: Operand::whole(Home::Output(0), 8),
                entries: 1,
            })
        };
        let mut m = identity();
        m.params[0].shape = vec![Dim::Static(32)];
        m.outputs[0].shape = vec![Dim::Static(8)];
        m.slots.clear();
        m.steps = vec![pool(win)];
        assert_eq!(m.verify(&[]), Ok(()));
        let mut wide = m.clone();
        wide.steps = vec![pool(crate::vocab::Windows { input: [4, 5], ..win })];
        let err = wide.verify(&[]).map_err(said).expect_err("past the input");
        assert!(err.contains("touches 40 values of an operand of 32"), "{err}");
        let mut broken = m;
        broken.steps = vec![pool(crate::vocab::Windows { kernel: [0, 2], ..win })];
        let err = broken.verify(&[]).map_err(said).expect_err("no taps");
        assert!(err.contains("a pool's windows do not hold together"), "{err}");
    }

    #[test]
    fn a_dense_layer_holds_its_weights_bias_and_slopes() {
        // 4 inputs to 2 outputs, then a PReLU: x [4] in, y [2] out.
        let dense = crate::ir::Dense {
            name: "d".into(),
            k: 4,
            n: 2,
            w: vec![0.5; 8],
            bias: Some(vec![0.0; 2]),
            act: Some(crate::ir::DenseAct::PRelu(vec![0.25; 2])),
            win: None,
            planar: false,
            groups: 1,
        };
        let mut m = identity();
        m.outputs[0].shape = vec![Dim::Static(2)];
        m.slots.clear();
        m.denses = vec![dense.clone()];
        m.steps = vec![Step::Dense(DenseStep {
            dense: 0,
            x: Operand::whole(Home::Param(0), 4),
            dst: Operand::whole(Home::Output(0), 2),
            rows: 1,
        })];
        assert_eq!(m.verify(&[]), Ok(()));
        let broken = [
            crate::ir::Dense { act: Some(crate::ir::DenseAct::PRelu(vec![0.25; 3])), ..dense.clone() },
            crate::ir::Dense { bias: Some(vec![0.0; 1]), ..dense.clone() },
            crate::ir::Dense { w: vec![0.5; 7], ..dense.clone() },
            // Groups of outputs without the planar kernel's windows.
            crate::ir::Dense { groups: 2, ..dense.clone() },
            crate::ir::Dense { groups: 0, ..dense },
        ];
        for d in broken {
            let mut b = m.clone();
            b.denses = vec![d];
            let err = b.verify(&[]).map_err(said).expect_err("arrays of the wrong lengths");
            assert!(err.contains("dense layer `d` does not hold K·N weights"), "{err}");
        }
    }

    #[test]
    fn runs_hold_the_last_value_written_over_each_stretch() {
        let mut r = Runs::default();
        r.write(0, 10, 1);
        r.write(4, 6, 2);
        assert_eq!(r.first_other(0, 4, 1), None);
        assert_eq!(r.first_other(0, 10, 1), Some(Some(2)));
        assert_eq!(r.first_other(4, 6, 2), None);
        assert_eq!(r.first_other(6, 10, 1), None);
        assert_eq!(r.first_other(8, 12, 1), Some(None), "10..12 was never written");
        r.write(2, 12, 3);
        assert_eq!(r.first_other(2, 12, 3), None);
        assert_eq!(r.first_other(0, 2, 1), None);
        assert_eq!(r.first_other(1, 3, 1), Some(Some(3)));
        r.write(20, 30, 4);
        assert_eq!(r.first_other(11, 21, 3), Some(None), "the gap 12..20");
        assert_eq!(r.first_other(5, 5, 9), None, "an empty read reads nothing");
        // Against a value per position, over random writes.
        let mut r = Runs::default();
        let mut naive = vec![None; 64];
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for v in 0..200 {
            let (a, b) = (next(64), next(64));
            let (a, b) = (a.min(b), a.max(b) + 1);
            if next(2) == 0 {
                r.write(a, b, v);
                naive[a..b].fill(Some(v));
            } else {
                let w = naive[a].unwrap_or(usize::MAX);
                let want = naive[a..b].iter().find(|&&x| x != Some(w)).copied();
                assert_eq!(r.first_other(a, b, w), want, "{a}..{b}");
            }
        }
    }

    #[test]
    fn a_value_overwritten_before_it_is_read_is_found() {
        let m = identity();
        let (s, y) = (Operand::whole(Home::Slot(0), 4), Operand::whole(Home::Output(0), 4));
        assert_eq!(m.verify(&[touch(0, &[], &[(7, s)]), touch(1, &[(7, s)], &[(9, y)])]), Ok(()));
        let clobbered = [touch(0, &[], &[(7, s)]), touch(0, &[], &[(8, s)]), touch(1, &[(7, s)], &[(9, y)])];
        let err = m.verify(&clobbered).map_err(said).expect_err("clobbered");
        assert!(err.contains("read value 7 in Slot(0), where value 8 is"), "{err}");
        let unwritten = m.verify(&[touch(1, &[(7, s)], &[(9, y)])]).map_err(said).expect_err("never written");
        assert!(unwritten.contains("where nothing yet is"), "{unwritten}");
    }

    #[test]
    fn a_step_touching_what_its_account_does_not_name_is_found() {
        // The copy into the output is not in the account of its node: what it writes there
        // would escape the replay of values.
        let m = identity();
        let (s, y) = (Operand::whole(Home::Slot(0), 4), Operand::whole(Home::Output(0), 4));
        let err = m.verify(&[touch(0, &[], &[(7, s)]), touch(1, &[(7, s)], &[])]).map_err(said).expect_err("unnamed");
        assert!(err.contains("step 1 touches values 0..4 of Output(0), which no account of its node names"), "{err}");
        // Named in part only.
        let half = Operand { len: 2, ..y };
        let err = m
            .verify(&[touch(0, &[], &[(7, s)]), touch(1, &[(7, s)], &[(9, half)])])
            .map_err(said)
            .expect_err("in part");
        assert!(err.contains("values 0..4 of Output(0)"), "{err}");
    }
}
