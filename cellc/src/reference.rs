//! A plain f64 interpreter of the validated model: the oracle the tests compare generated
//! code against. It follows the OpenVINO formulas literally, one row at a time, with no
//! packing, tiling or reordering, so that it shares no code path with the emitters.
use crate::ir::steps::{CellStep, Copy, DenseStep, Map, MatMul, Pick, Reduce, RowCopy, Softmax, Take, TopK};
use crate::ir::{Activation, Batch, Cell, CellKind, Dense, Dim, Home, Lengths, Model, Operand, Seq, Step, WeightSrc};

/// Values of a tensor of `shape` for `batch` rows.
fn total_len(shape: &[Dim], batch: usize) -> usize {
    shape
        .iter()
        .map(|d| match d {
            Dim::Static(n) => *n,
            Dim::Batch => batch,
        })
        .product()
}

/// Every home's values during a run.
struct Homes<'a> {
    inputs: &'a [Vec<f64>],
    outputs: Vec<Vec<f64>>,
    slots: Vec<Vec<f64>>,
    consts: Vec<Vec<f64>>,
    states: &'a mut Session,
}

/// What a stateful model keeps between runs: its variables, and whether the next run is
/// the first since a reset.
#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    /// The variables' values.
    pub states: Vec<Vec<f64>>,
    /// Whether the next run is the first since a reset.
    pub fresh: bool,
}

impl Session {
    /// The variables of `m` as a reset leaves them.
    pub fn new(m: &Model) -> Session {
        Session { states: m.states.iter().map(|s| vec![0.0; s.len]).collect(), fresh: true }
    }
}

impl Homes<'_> {
    fn get(&self, o: &Operand, n: usize, i: usize) -> f64 {
        let at = o.offset + n * o.row_stride + i;
        match o.home {
            Home::Param(p) => self.inputs[p][at],
            Home::Output(k) => self.outputs[k][at],
            Home::Slot(s) => self.slots[s][at],
            Home::Const(k) => self.consts[k][at],
            Home::State(k) => self.states.states[k][at],
        }
    }

    fn read(&self, o: &Operand, n: usize, from: usize, len: usize) -> Vec<f64> {
        (from..from + len).map(|i| self.get(o, n, i)).collect()
    }

    fn set(&mut self, o: &Operand, n: usize, i: usize, v: f64) {
        let at = o.offset + n * o.row_stride + i;
        match o.home {
            Home::Output(k) => self.outputs[k][at] = v,
            Home::Slot(s) => self.slots[s][at] = v,
            Home::State(k) => self.states.states[k][at] = v,
            // The planner never writes Parameters or constants.
            Home::Param(_) | Home::Const(_) => {}
        }
    }
}

/// Calls `f` with every multi-index of `counts` (row-major).
fn each(counts: &[usize], mut f: impl FnMut(&[usize])) {
    let total: usize = counts.iter().product();
    let mut idx = vec![0; counts.len()];
    for mut i in 0..total {
        for k in (0..counts.len()).rev() {
            idx[k] = i % counts[k].max(1);
            i /= counts[k].max(1);
        }
        f(&idx);
    }
}

fn dot(idx: &[usize], strides: impl Iterator<Item = usize>) -> usize {
    idx.iter().zip(strides).map(|(i, s)| i * s).sum()
}

/// Why the inputs of a run do not fit the model.
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// Not one input per Parameter.
    Count {
        /// The model's Parameters.
        expected: usize,
        /// The inputs given.
        got: usize,
    },
    /// A model with a dynamic batch, none of whose inputs is batched.
    NoBatchedInput,
    /// An input of the wrong length.
    Length {
        /// Its position.
        index: usize,
        /// The Parameter's name.
        name: String,
        /// Its length.
        got: usize,
        /// The length the model takes.
        expected: usize,
    },
    /// A sequence length that is not a whole number from 0 to the sequence's steps.
    SeqLen {
        /// The length given.
        value: f64,
        /// The row it is for.
        row: usize,
        /// The sequence's steps.
        steps: usize,
    },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Count { expected, got } => write!(f, "expected {expected} inputs, got {got}"),
            RunError::NoBatchedInput => f.write_str("a dynamic-batch model without batched inputs"),
            RunError::Length { index, name, got, expected } => {
                write!(f, "input {index} ({name}) has {got} values; expected {expected}")
            }
            RunError::SeqLen { value, row, steps } => {
                write!(f, "sequence length {value} of row {row}; expected 0 to {steps}")
            }
        }
    }
}

impl std::error::Error for RunError {}

/// Runs the model on inputs given in Parameter order (flat, row-major) and returns the
/// Results in order. Errs with a message when input lengths do not fit the model. A
/// stateful model starts from its initial variables.
pub fn run(m: &Model, inputs: &[Vec<f64>]) -> Result<Vec<Vec<f64>>, RunError> {
    run_session(m, inputs, &mut Session::new(m))
}

/// Runs the model once in a session, whose variables it reads and updates.
pub fn run_session(m: &Model, inputs: &[Vec<f64>], session: &mut Session) -> Result<Vec<Vec<f64>>, RunError> {
    if inputs.len() != m.params.len() {
        return Err(RunError::Count { expected: m.params.len(), got: inputs.len() });
    }
    let batch = match m.batch {
        Batch::Static(n) => n,
        Batch::Dynamic => {
            let (p, input) = m
                .params
                .iter()
                .zip(inputs)
                .find(|(p, _)| p.shape.contains(&Dim::Batch))
                .ok_or(RunError::NoBatchedInput)?;
            input.len() / Model::row_len(&p.shape).max(1)
        }
    };
    for (i, (p, input)) in m.params.iter().zip(inputs).enumerate() {
        let want = total_len(&p.shape, batch);
        if input.len() != want {
            return Err(RunError::Length { index: i, name: p.name.clone(), got: input.len(), expected: want });
        }
    }
    let mut homes = Homes {
        inputs,
        outputs: m.outputs.iter().map(|o| vec![0.0; total_len(&o.shape, batch)]).collect(),
        slots: m.slots.iter().map(|&l| vec![0.0; l]).collect(),
        consts: m.consts.iter().map(|v| v.iter().map(|&x| x as f64).collect()).collect(),
        states: session,
    };
    for n in 0..batch {
        for step in &m.steps {
            match step {
                Step::Cell(s) => cell_step(m, &mut homes, s, n)?,
                Step::Copy(c) => copy(&mut homes, c, n),
                Step::Map(mp) => map(&mut homes, mp, n),
                Step::MatMul(mm) => matmul(&mut homes, mm, n),
                Step::Dense(d) => dense(&mut homes, &m.denses[d.dense], d, n),
                Step::Softmax(sm) => softmax(&mut homes, sm, n),
                Step::Reduce(r) => reduce(&mut homes, r, n),
                Step::Rows(r) => rows(&mut homes, r, n, batch),
                Step::Pick(p) => pick(&mut homes, p, n),
                Step::Pool(p) => pool(&mut homes, p, n),
                Step::Take(t) => take(&mut homes, t, n),
                Step::TopK(t) => top_k(&mut homes, t, n),
                Step::Init(i) => {
                    if homes.states.fresh {
                        let v = homes.read(&i.src, n, 0, m.states[i.state].len);
                        homes.states.states[i.state] = v;
                    }
                }
            }
        }
    }
    homes.states.fresh = false;
    Ok(homes.outputs)
}

fn rows(h: &mut Homes<'_>, r: &RowCopy, n: usize, batch: usize) {
    for o in 0..r.outer {
        for j in 0..r.inner {
            let (s, d) = if r.into_row {
                ((o * batch + n) * r.inner, o * r.inner)
            } else {
                (o * r.inner, (o * batch + n) * r.inner)
            };
            // Both operands are whole tensors: row n is addressed here, not by the operand.
            let v = h.get(&r.src, 0, s + j);
            h.set(&r.dst, 0, d + j, v);
        }
    }
}

fn pick(h: &mut Homes<'_>, p: &Pick, n: usize) {
    for e in 0..p.entries {
        for (i, &at) in p.table.iter().enumerate() {
            let v = if at == Pick::NONE { f64::from(p.fill) } else { h.get(&p.src, n, e * p.src_stride + at as usize) };
            h.set(&p.dst, n, e * p.dst_stride + i, v);
        }
    }
}

fn copy(h: &mut Homes<'_>, c: &Copy, n: usize) {
    let counts: Vec<usize> = c.axes.iter().map(|a| a[0]).collect();
    each(&counts, |idx| {
        let v = h.get(&c.src, n, dot(idx, c.axes.iter().map(|a| a[1])));
        h.set(&c.dst, n, dot(idx, c.axes.iter().map(|a| a[2])), v);
    });
}

fn map(h: &mut Homes<'_>, mp: &Map, n: usize) {
    let counts: Vec<usize> = mp.axes.iter().map(|a| a[0]).collect();
    each(&counts, |idx| {
        let args: Vec<f64> =
            mp.args.iter().enumerate().map(|(k, a)| h.get(a, n, dot(idx, mp.axes.iter().map(|x| x[k + 2])))).collect();
        // Each function computes in f32, as the generated code does.
        let v = mp.f.apply(&args);
        h.set(&mp.dst, n, dot(idx, mp.axes.iter().map(|a| a[1])), v);
    });
}

fn matmul(h: &mut Homes<'_>, mm: &MatMul, n: usize) {
    let mut counts: Vec<usize> = mm.batch.iter().map(|a| a[0]).collect();
    counts.extend([mm.m, mm.n]);
    let nb = mm.batch.len();
    each(&counts, |idx| {
        let (bi, i, j) = (&idx[..nb], idx[nb], idx[nb + 1]);
        let (ba, bb, bd) = (
            dot(bi, mm.batch.iter().map(|a| a[1])),
            dot(bi, mm.batch.iter().map(|a| a[2])),
            dot(bi, mm.batch.iter().map(|a| a[3])),
        );
        let acc: f64 = (0..mm.k)
            .map(|q| {
                h.get(&mm.a, n, ba + i * mm.a_strides[0] + q * mm.a_strides[1])
                    * h.get(&mm.b, n, bb + q * mm.b_strides[0] + j * mm.b_strides[1])
            })
            .sum();
        h.set(&mm.dst, n, bd + i * mm.dst_row + j, acc as f32 as f64);
    });
}

fn dense(h: &mut Homes<'_>, d: &Dense, s: &DenseStep, n: usize) {
    let m = d.group_outputs();
    for r in 0..s.rows {
        for grp in 0..d.groups {
            let x: Vec<f64> = match &d.win {
                // A window over the group's channels: each tap's run of channels from the
                // input, or zeros in the padding.
                Some(w) => {
                    let base = (r / w.positions() * d.groups + grp) * w.input_len();
                    let area = w.input_len() / w.channels;
                    (0..d.k)
                        .map(|q| match w.source(r % w.positions(), q / w.channels) {
                            // Laid out channels first: channel `c` of position `at / C`.
                            Some(at) if d.planar => h.get(&s.x, n, base + (q % w.channels) * area + at / w.channels),
                            Some(at) => h.get(&s.x, n, base + at + q % w.channels),
                            None => 0.0,
                        })
                        .collect()
                }
                None => (0..d.k).map(|q| h.get(&s.x, n, r * d.k + q)).collect(),
            };
            for j in grp * m..(grp + 1) * m {
                let w = &d.w[j * d.k..(j + 1) * d.k];
                let acc: f64 = x.iter().zip(w).map(|(a, &b)| a * b as f64).sum();
                let y = (acc + d.bias.as_ref().map_or(0.0, |b| b[j] as f64)) as f32 as f64;
                let y = d.act.as_ref().map_or(y, |a| a.apply(j, y) as f32 as f64);
                // Channels first: output `j` of entry `e`'s positions together.
                let at = match &d.win {
                    Some(w) if d.planar => {
                        let p = w.positions();
                        (r / p) * p * d.n + j * p + r % p
                    }
                    _ => r * d.n + j,
                };
                h.set(&s.dst, n, at, y);
            }
        }
    }
}

/// Each channel of each window reduced in the step's kind, tap by tap, the padding skipped.
fn pool(h: &mut Homes<'_>, p: &crate::ir::steps::Pool, n: usize) {
    let (w, c) = (&p.win, p.win.channels);
    for e in 0..p.entries {
        for q in 0..w.positions() {
            for ch in 0..c {
                let taps = (0..w.taps()).filter_map(|t| w.source(q, t));
                let acc =
                    taps.fold(p.kind.start(), |a, at| p.kind.add(a, h.get(&p.src, n, e * w.input_len() + at + ch)));
                h.set(&p.dst, n, (e * w.positions() + q) * c + ch, acc as f32 as f64);
            }
        }
    }
}

fn reduce(h: &mut Homes<'_>, r: &Reduce, n: usize) {
    let outer: Vec<usize> = r.outer.iter().map(|a| a[0]).collect();
    let inner: Vec<usize> = r.inner.iter().map(|a| a[0]).collect();
    each(&outer, |o| {
        let base = dot(o, r.outer.iter().map(|a| a[1]));
        let mut xs = Vec::new();
        each(&inner, |i| xs.push(h.get(&r.src, n, base + dot(i, r.inner.iter().map(|a| a[1])))));
        h.set(&r.dst, n, dot(o, r.outer.iter().map(|a| a[2])), r.kind.apply(&xs) as f32 as f64);
    });
}

fn take(h: &mut Homes<'_>, t: &Take, n: usize) {
    let counts: Vec<usize> = t.axes.iter().map(|a| a[0]).collect();
    each(&counts, |o| {
        let at = |k: usize| dot(o, t.axes.iter().map(move |a| a[k]));
        let p = t.position(h.get(&t.idx, n, at(2)));
        let v = h.get(&t.src, n, at(1) + p * t.stride);
        h.set(&t.dst, n, at(3), v);
    });
}

fn top_k(h: &mut Homes<'_>, t: &TopK, n: usize) {
    let counts: Vec<usize> = t.outer.iter().map(|a| a[0]).collect();
    each(&counts, |o| {
        let (s, d) = (dot(o, t.outer.iter().map(|a| a[1])), dot(o, t.outer.iter().map(|a| a[2])));
        let xs: Vec<f64> = (0..t.len).map(|i| h.get(&t.src, n, s + i * t.stride)).collect();
        let mut order: Vec<usize> = (0..t.len).collect();
        order.sort_by(|&a, &b| {
            if TopK::before(t.largest, (xs[a], a), (xs[b], b)) {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            }
        });
        for (r, &i) in order.iter().take(t.k).enumerate() {
            h.set(&t.values, n, d + r * t.dst_stride, xs[i]);
            h.set(&t.indices, n, d + r * t.dst_stride, i as f64);
        }
    });
}

fn softmax(h: &mut Homes<'_>, sm: &Softmax, n: usize) {
    let counts: Vec<usize> = sm.outer.iter().map(|a| a[0]).collect();
    each(&counts, |idx| {
        let o = dot(idx, sm.outer.iter().map(|a| a[1]));
        let xs: Vec<f64> = (0..sm.len).map(|q| h.get(&sm.src, n, o + q * sm.stride)).collect();
        for (q, y) in crate::ops::reduce::softmax(&xs, sm.log).into_iter().enumerate() {
            h.set(&sm.dst, n, o + q * sm.stride, y as f32 as f64);
        }
    });
}

/// A cell over its rows within model row `n`.
fn cell_step(m: &Model, homes: &mut Homes<'_>, s: &CellStep, n: usize) -> Result<(), RunError> {
    let cell = &m.cells[s.cell];
    let inputs = homes.inputs;
    // Embedded weights are in the kernels' layout already; runtime weights come in the
    // declared one and are converted here, direction block by block.
    let weights = |w: &WeightSrc, bias: bool| -> Vec<f64> {
        match w {
            WeightSrc::Embedded { values, .. } => values.iter().map(|&v| v as f64).collect(),
            WeightSrc::Runtime(p) if cell.layout == crate::vocab::Layout::OpenVino => inputs[*p].clone(),
            WeightSrc::Runtime(p) => {
                let (kind, h) = (cell.spec.kind, cell.spec.hidden);
                let dirs = cell.seq.as_ref().map_or(1, |q| q.direction.count());
                let v: Vec<f32> = inputs[*p].iter().map(|&x| x as f32).collect();
                let block = v.len() / dirs;
                v.chunks(block.max(1))
                    .flat_map(|d| if bias { cell.layout.bias(kind, h, d) } else { cell.layout.weights(kind, d) })
                    .map(f64::from)
                    .collect()
            }
        }
    };
    let sp = &cell.spec;
    let (w, r) = (weights(&cell.w, false), weights(&cell.r, false));
    let dirs = cell.seq.as_ref().map_or(1, |q| q.direction.count());
    let b = cell
        .b
        .as_ref()
        .map(|b| weights(b, true))
        .unwrap_or_else(|| vec![0.0; dirs * sp.kind.bias_blocks() * sp.hidden]);
    let p = cell.p.as_ref().map(|p| weights(p, false)).unwrap_or_default();
    let all = Weights { w: &w, r: &r, b: &b, p: &p };
    let (xl, hl) = match &cell.seq {
        None => (sp.input, sp.hidden),
        Some(q) => (q.steps * sp.input, dirs * sp.hidden),
    };
    for row in 0..s.rows {
        let x = homes.read(&s.x, n, row * xl, xl);
        let h = homes.read(&s.h, n, row * hl, hl);
        let c = s.c.as_ref().map(|c| homes.read(c, n, row * hl, hl));
        let next = match &cell.seq {
            None => step(cell, &all, &x, &h, c.as_deref()),
            Some(q) => {
                let at = n * s.rows + row;
                let len = match &q.lengths {
                    Lengths::Const(v) if v.len() == 1 => v[0],
                    Lengths::Const(v) => v[at],
                    Lengths::Param(p) => {
                        let v = inputs[*p][at];
                        if v.fract() != 0.0 || v < 0.0 || v > q.steps as f64 {
                            return Err(RunError::SeqLen { value: v, row: at, steps: q.steps });
                        }
                        v as usize
                    }
                };
                sequence(cell, q, len, &all, &x, &h, c.as_deref())
            }
        };
        for (o, vals) in s.out.iter().zip(next) {
            let len = vals.len();
            for (i, v) in vals.into_iter().enumerate() {
                homes.set(o, n, row * len + i, v);
            }
        }
    }
    Ok(())
}

/// One step of a cell on its own embedded weights: the next states `[h', c']` (for tests
/// of the layouts, which compare it with each tool's own formula).
#[cfg(test)]
pub(crate) fn step_for_tests(cell: &Cell, x: &[f64], h: &[f64], c: &[f64]) -> Vec<Vec<f64>> {
    let v = |w: &WeightSrc| match w {
        WeightSrc::Embedded { values, .. } => values.iter().map(|&x| x as f64).collect(),
        WeightSrc::Runtime(_) => Vec::new(),
    };
    let (b, p) = (cell.b.as_ref().map(v).unwrap_or_default(), cell.p.as_ref().map(v).unwrap_or_default());
    let all = Weights { w: &v(&cell.w), r: &v(&cell.r), b: &b, p: &p };
    step(cell, &all, x, h, (!c.is_empty()).then_some(c))
}

/// A cell's weights in the kernels' layout: all directions' blocks, or one direction's.
#[derive(Clone, Copy)]
struct Weights<'a> {
    w: &'a [f64],
    r: &'a [f64],
    b: &'a [f64],
    /// An LSTM's peepholes (f, i, o), or empty for none.
    p: &'a [f64],
}

/// One step of one cell with one direction's weights: the next hidden state, and for an
/// LSTM the next cell state `[h', c']`.
fn step(cell: &Cell, wts: &Weights<'_>, x: &[f64], h: &[f64], c: Option<&[f64]>) -> Vec<Vec<f64>> {
    let s = &cell.spec;
    let Weights { w, r, b, p } = *wts;
    let clip = |v: f64| match s.clip {
        Some(c) => v.clamp(-(c as f64), c as f64),
        None => v,
    };
    let act = |a: &Activation, v: f64| a.apply_f64(clip(v));
    let (hs, is) = (s.hidden, s.input);
    let dot =
        |m: &[f64], row: usize, cols: usize, v: &[f64]| -> f64 { (0..cols).map(|k| m[row * cols + k] * v[k]).sum() };
    let gate = |gi: usize, j: usize| dot(w, gi * hs + j, is, x) + dot(r, gi * hs + j, hs, h) + b[gi * hs + j];
    match s.kind {
        CellKind::Rnn => vec![(0..hs).map(|j| act(&s.activations[0], gate(0, j))).collect()],
        CellKind::Lstm => {
            // Gates f, i, c, o; the new cell state goes through h unclipped.
            let (f, g, hh) = (&s.activations[0], &s.activations[1], &s.activations[2]);
            // With peepholes, f and i also read the old cell state and o the new one.
            let c0 = c.unwrap_or(h);
            let peep = |k: usize, j: usize, c: f64| if p.is_empty() { 0.0 } else { p[k * hs + j] * c };
            let ct: Vec<f64> = (0..hs)
                .map(|j| {
                    let (fg, ig) = (gate(0, j) + peep(0, j, c0[j]), gate(1, j) + peep(1, j, c0[j]));
                    act(f, fg) * c0[j] + act(f, ig) * act(g, gate(2, j))
                })
                .collect();
            let ht = (0..hs).map(|j| act(f, gate(3, j) + peep(2, j, ct[j])) * hh.apply_f64(ct[j])).collect();
            vec![ht, ct]
        }
        CellKind::Gru { linear_before_reset } => {
            let (f, g) = (&s.activations[0], &s.activations[1]);
            let z: Vec<f64> = (0..hs).map(|j| act(f, gate(0, j))).collect();
            let rg: Vec<f64> = (0..hs).map(|j| act(f, gate(1, j))).collect();
            let rh: Vec<f64> = (0..hs).map(|j| rg[j] * h[j]).collect();
            let ht = (0..hs)
                .map(|j| {
                    let xw = dot(w, 2 * hs + j, is, x);
                    let pre = if linear_before_reset {
                        xw + b[2 * hs + j] + rg[j] * (dot(r, 2 * hs + j, hs, h) + b[3 * hs + j])
                    } else {
                        xw + dot(r, 2 * hs + j, hs, &rh) + b[2 * hs + j]
                    };
                    (1.0 - z[j]) * act(g, pre) + z[j] * h[j]
                })
                .collect();
            vec![ht]
        }
    }
}

/// Direction `d`'s block of `n` values.
fn block(v: &[f64], d: usize, n: usize) -> &[f64] {
    &v[d * n..(d + 1) * n]
}

/// A Sequence op over one batch row with `len` valid steps: `[Y, Ho]` (and `Co` for an
/// LSTM), each direction with its own block of weights and initial states.
fn sequence(
    cell: &Cell,
    q: &Seq,
    len: usize,
    wts: &Weights<'_>,
    x: &[f64],
    h0: &[f64],
    c0: Option<&[f64]>,
) -> Vec<Vec<f64>> {
    let s = &cell.spec;
    let (hs, is, steps) = (s.hidden, s.input, q.steps);
    let gh = s.kind.gates() * hs;
    let (nw, nr, nb) = (gh * is, gh * hs, s.kind.bias_blocks() * hs);
    let dirs = q.direction.count();
    let mut y = vec![0.0; dirs * steps * hs];
    let mut ho = vec![0.0; dirs * hs];
    let mut co = vec![0.0; dirs * hs];
    for d in 0..dirs {
        let np = if wts.p.is_empty() { 0 } else { 3 * hs };
        let wd =
            Weights { w: block(wts.w, d, nw), r: block(wts.r, d, nr), b: block(wts.b, d, nb), p: block(wts.p, d, np) };
        let mut h = h0[d * hs..(d + 1) * hs].to_vec();
        let mut c = c0.map(|c| c[d * hs..(d + 1) * hs].to_vec());
        let order: Vec<usize> = if q.direction.reversed(d) { (0..len).rev().collect() } else { (0..len).collect() };
        for t in order {
            let mut next = step(cell, &wd, &x[t * is..(t + 1) * is], &h, c.as_deref());
            if next.len() > 1 {
                c = Some(next.pop().unwrap_or_default());
            }
            h = next.pop().unwrap_or_default();
            y[(d * steps + t) * hs..(d * steps + t + 1) * hs].copy_from_slice(&h);
        }
        // A row of length 0 has zero final states, as OpenVINO computes them.
        if len > 0 {
            ho[d * hs..(d + 1) * hs].copy_from_slice(&h);
            if let Some(c) = &c {
                co[d * hs..(d + 1) * hs].copy_from_slice(c);
            }
        }
    }
    if s.kind.has_cell_state() { vec![y, ho, co] } else { vec![y, ho] }
}
