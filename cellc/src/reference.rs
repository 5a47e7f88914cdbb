//! A plain f64 interpreter of the validated model: the oracle the tests compare generated
//! code against. It follows the OpenVINO formulas literally, one row at a time, with no
//! packing, tiling or reordering, so that it shares no code path with the emitters.
use crate::ir::{Activation, Batch, Cell, CellKind, Lengths, Model, ParamRole, Seq, Value, WeightSrc};

/// Runs the model on inputs given in Parameter order (flat, row-major) and returns the
/// Results in order. Errs with a message when input lengths do not fit the model.
pub fn run(m: &Model, inputs: &[Vec<f64>]) -> Result<Vec<Vec<f64>>, String> {
    if inputs.len() != m.params.len() {
        return Err(format!("expected {} inputs, got {}", m.params.len(), inputs.len()));
    }
    let batch = match m.batch {
        Batch::Static(n) => n,
        Batch::Dynamic => {
            let (p, input) = m
                .params
                .iter()
                .zip(inputs)
                .find(|(p, _)| p.role == ParamRole::Data)
                .ok_or("a dynamic-batch model without data inputs")?;
            let row = m.row_len(Value::Param(m.params.iter().position(|q| q == p).unwrap_or(0)));
            input.len() / row.max(1)
        }
    };
    for (i, (p, input)) in m.params.iter().zip(inputs).enumerate() {
        let want = match p.role {
            ParamRole::Data | ParamRole::Lengths => m.row_len(Value::Param(i)) * batch,
            ParamRole::Weights => m.row_len(Value::Param(i)),
        };
        if input.len() != want {
            return Err(format!("input {i} ({}) has {} values; expected {want}", p.name, input.len()));
        }
    }
    // Embedded weights are in the kernels' layout already; runtime weights come in the
    // declared one and are converted here, direction block by block.
    let weights = |cell: &Cell, w: &WeightSrc, bias: bool| -> Vec<f64> {
        match w {
            WeightSrc::Embedded { values, .. } => values.iter().map(|&v| v as f64).collect(),
            WeightSrc::Runtime(p) if cell.layout == crate::layout::Layout::OpenVino => inputs[*p].clone(),
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
    let mut outputs: Vec<Vec<f64>> = m.outputs.iter().map(|_| Vec::new()).collect();
    for n in 0..batch {
        // Per cell, its outputs: the hidden state, and an LSTM's cell state.
        let mut states: Vec<Vec<Vec<f64>>> = Vec::with_capacity(m.cells.len());
        let row = |v: Value, states: &[Vec<Vec<f64>>]| -> Vec<f64> {
            match v {
                Value::Param(p) => {
                    let len = m.row_len(v);
                    inputs[p][n * len..(n + 1) * len].to_vec()
                }
                Value::Cell(c, port) => states[c][port].clone(),
            }
        };
        for cell in &m.cells {
            let x = row(cell.x, &states);
            let h = row(cell.h, &states);
            let c = cell.c.map(|c| row(c, &states));
            let (w, r) = (weights(cell, &cell.w, false), weights(cell, &cell.r, false));
            let s = &cell.spec;
            let b = cell.b.as_ref().map(|b| weights(cell, b, true)).unwrap_or_else(|| {
                vec![0.0; cell.seq.as_ref().map_or(1, |q| q.direction.count()) * s.kind.bias_blocks() * s.hidden]
            });
            let next = match &cell.seq {
                None => step(cell, &w, &r, &b, &x, &h, c.as_deref()),
                Some(q) => {
                    let len = match &q.lengths {
                        Lengths::Const(v) => v[n],
                        Lengths::Param(p) => {
                            let v = inputs[*p][n];
                            if v.fract() != 0.0 || v < 0.0 || v > q.steps as f64 {
                                return Err(format!("sequence length {v} of row {n}; expected 0 to {}", q.steps));
                            }
                            v as usize
                        }
                    };
                    sequence(cell, q, len, &w, &r, &b, &x, &h, c.as_deref())
                }
            };
            states.push(next);
        }
        for (o, out) in m.outputs.iter().zip(&mut outputs) {
            out.extend(row(o.value, &states));
        }
    }
    Ok(outputs)
}

/// One step of a cell on its own embedded weights: the next states `[h', c']` (for tests
/// of the layouts, which compare it with each tool's own formula).
#[cfg(test)]
pub(crate) fn step_for_tests(cell: &Cell, x: &[f64], h: &[f64], c: &[f64]) -> Vec<Vec<f64>> {
    let v = |w: &WeightSrc| match w {
        WeightSrc::Embedded { values, .. } => values.iter().map(|&x| x as f64).collect(),
        WeightSrc::Runtime(_) => Vec::new(),
    };
    let b = cell.b.as_ref().map(v).unwrap_or_default();
    step(cell, &v(&cell.w), &v(&cell.r), &b, x, h, (!c.is_empty()).then_some(c))
}

/// One step of one cell with one direction's weights `w`, `r`, `b` (IR layout): the next
/// hidden state, and for an LSTM the next cell state `[h', c']`.
fn step(cell: &Cell, w: &[f64], r: &[f64], b: &[f64], x: &[f64], h: &[f64], c: Option<&[f64]>) -> Vec<Vec<f64>> {
    let s = &cell.spec;
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
            let c0 = c.unwrap_or(h);
            let ct: Vec<f64> =
                (0..hs).map(|j| act(f, gate(0, j)) * c0[j] + act(f, gate(1, j)) * act(g, gate(2, j))).collect();
            let ht = (0..hs).map(|j| act(f, gate(3, j)) * hh.apply_f64(ct[j])).collect();
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

/// A Sequence op over one batch row with `len` valid steps: `[Y, Ho]` (and `Co` for an
/// LSTM), each direction with its own block of weights and initial states.
#[allow(clippy::too_many_arguments)]
fn sequence(
    cell: &Cell,
    q: &Seq,
    len: usize,
    w: &[f64],
    r: &[f64],
    b: &[f64],
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
        let (wd, rd, bd) = (&w[d * nw..(d + 1) * nw], &r[d * nr..(d + 1) * nr], &b[d * nb..(d + 1) * nb]);
        let mut h = h0[d * hs..(d + 1) * hs].to_vec();
        let mut c = c0.map(|c| c[d * hs..(d + 1) * hs].to_vec());
        let order: Vec<usize> = if q.direction.reversed(d) { (0..len).rev().collect() } else { (0..len).collect() };
        for t in order {
            let mut next = step(cell, wd, rd, bd, &x[t * is..(t + 1) * is], &h, c.as_deref());
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
