//! The gathers: a `Gather` at constant indices as copies of the slices it picks (a run of
//! evenly stepped indices one copy, runs of one length stepping evenly one copy together), and a
//! `Gather` or `GatherElements` at indices computed at run time as one [`Take`] step.
use super::checker::Checker;
use super::lower::{Lowering, shifted, strides};
use crate::diag::Code;
use crate::graph::{NodeId, TensorId};
use crate::ir::steps::{Copy, Take};
use crate::ir::{Operand, Step};
use crate::ops::tensor::axis;

impl Lowering<'_> {
    pub(super) fn gather(
        &mut self,
        c: &mut Checker<'_>,
        id: NodeId,
        batch_dims: i64,
        ins: &[(TensorId, Operand, Vec<usize>)],
        y: TensorId,
    ) {
        let Some((xt, xo, xd)) = ins.first().cloned() else { return };
        let Some(a) = self.consts(id, 2) else {
            c.err(
                Code::Declined,
                id,
                None,
                "gathers along an axis known only at run time; cellc takes a constant axis",
            );
            return;
        };
        let Some(a) = a.first().and_then(|&a| axis(a, xd.len()).ok()) else { return };
        let Some(idx) = self.consts(id, 1) else {
            return self.take(c, id, (xt, xo, &xd), a, Taking::Gather(batch_dims), y);
        };
        let Some(irank) = self.g.input_fact(id, 1).and_then(|f| f.shape.as_ref()).map(Vec::len) else { return };
        let Ok(b) = crate::ops::shape::gather_batch_dims(batch_dims, irank, a) else { return };
        if !self.keeps_rows(c, id, xt, a, "a gather")
            || (0..b).any(|k| !self.keeps_rows(c, id, xt, k, "a gather's batch"))
        {
            return;
        }
        let dim = xd[a] as i64;
        if let Some(bad) = idx.iter().find(|&&i| !(-dim..dim).contains(&i)) {
            let msg =
                format!("gathers index {bad} of dimension {a}, which has {dim} values; expected -{dim} to {}", dim - 1);
            c.err(Code::Declined, id, None, msg);
            return;
        }
        let Some(yo) = self.place(y) else { return };
        // Per entry of the batch dimensions: `outer` blocks of `xd[a]` slices of `inner`
        // values in x, and `n` of the indices, each taking one slice of every block.
        let batches: usize = xd[..b].iter().product();
        let (outer, inner): (usize, usize) = (xd[b..a].iter().product(), xd[a + 1..].iter().product());
        let n = idx.len() / batches.max(1);
        let (x_batch, y_batch) = (outer * xd[a] * inner, outer * n * inner);
        let idx: Vec<usize> = idx.iter().map(|&i| if i < 0 { i + dim } else { i } as usize).collect();
        for (bb, picks) in idx.chunks(n.max(1)).enumerate() {
            // Each run of indices in steps of one stride is one copy, and runs of one length
            // whose starts step evenly (an unfold's windows) are one copy together.
            let runs = runs_of(picks);
            let slices = [outer, xd[a] * inner, n * inner];
            let (x0, y0) = (bb * x_batch, bb * y_batch);
            match evenly(&runs) {
                Some((starts, len, step)) => {
                    let axes = vec![
                        slices,
                        [runs.len(), starts * inner, len * inner],
                        [len, step * inner, inner],
                        [inner, 1, 1],
                    ];
                    let from = x0 + runs[0].0 * inner;
                    self.steps.push(Step::Copy(Copy::new(shifted(xo, from), shifted(yo, y0), axes)));
                }
                None => {
                    let mut j = 0;
                    for &(first, len, step) in &runs {
                        let axes = vec![slices, [len, step * inner, inner], [inner, 1, 1]];
                        let (from, to) = (x0 + first * inner, y0 + j * inner);
                        self.steps.push(Step::Copy(Copy::new(shifted(xo, from), shifted(yo, to), axes)));
                        j += len;
                    }
                }
            }
        }
    }

    /// A gather at indices computed at run time (a `Gather`'s or a `GatherElements`'s along
    /// axis `a` of `x`): one [`Take`] step over the output's axes.
    pub(super) fn take(
        &mut self,
        c: &mut Checker<'_>,
        id: NodeId,
        x: (TensorId, Operand, &[usize]),
        a: usize,
        how: Taking,
        y: TensorId,
    ) {
        let (xt, xo, xd) = x;
        let Some(Some(it)) = self.g.nodes[id].inputs.get(1).copied() else { return };
        let (Some(id_dims), Some(yd)) = (self.dims_of(it), self.dims_of(y)) else { return };
        if !self.keeps_rows(c, id, xt, a, "a gather") {
            return;
        }
        if xd[a] == 0 {
            c.err(Code::Declined, id, None, format!("gathers along dimension {a}, which holds no values"));
            return;
        }
        let (xs, is, ys) = (strides(xd), strides(&id_dims), strides(&yd));
        // Each output axis: [count, data stride, index stride] (the output's stride added below).
        let axes: Vec<[usize; 3]> = match how {
            Taking::Elements => {
                if id_dims.len() != xd.len() || (0..xd.len()).any(|k| k != a && id_dims[k] > xd[k]) {
                    let msg = format!(
                        "takes indices of shape {id_dims:?} from data of shape {xd:?}; expected the data's rank, each dimension within the data's but along the axis"
                    );
                    c.err(Code::Declined, id, None, msg);
                    return;
                }
                (0..xd.len()).map(|k| [id_dims[k], if k == a { 0 } else { xs[k] }, is[k]]).collect()
            }
            Taking::Gather(batch_dims) => {
                let Ok(b) = crate::ops::shape::gather_batch_dims(batch_dims, id_dims.len(), a) else { return };
                let lead = (0..a).map(|k| [xd[k], xs[k], if k < b { is[k] } else { 0 }]);
                let picked = (b..id_dims.len()).map(|j| [id_dims[j], 0, is[j]]);
                let rest = (a + 1..xd.len()).map(|k| [xd[k], xs[k], 0]);
                lead.chain(picked).chain(rest).collect()
            }
        };
        if axes.len() != yd.len() || axes.iter().zip(&yd).any(|(ax, &n)| ax[0] != n) {
            return;
        }
        let Some(io) = self.operand(it) else { return };
        let Some(yo) = self.place(y) else { return };
        let axes = axes.iter().zip(&ys).map(|(ax, &d)| [ax[0], ax[1], ax[2], d]).collect();
        self.steps.push(Step::Take(Take { src: xo, idx: io, dst: yo, axes, len: xd[a], stride: xs[a] }));
    }
}

/// Which gather a [`Take`] step computes.
#[derive(Clone, Copy)]
pub(super) enum Taking {
    /// ONNX's `Gather` (OpenVINO's), with its batch dimensions.
    Gather(i64),
    /// `GatherElements`.
    Elements,
}

/// `picks` as runs `(first, length, step)`: indices that step by one non-negative stride.
fn runs_of(picks: &[usize]) -> Vec<(usize, usize, usize)> {
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    for &i in picks {
        match runs.last_mut() {
            Some((first, len, step)) if *len == 1 && i >= *first => (*len, *step) = (2, i - *first),
            Some((first, len, step))
                if *len > 1 && Some(i) == step.checked_mul(*len).and_then(|d| first.checked_add(d)) =>
            {
                *len += 1
            }
            _ => runs.push((i, 1, 0)),
        }
    }
    runs
}

/// When `runs` (two or more) have one length and one step and their starts step evenly:
/// `(the starts' step, the length, the step)`.
fn evenly(runs: &[(usize, usize, usize)]) -> Option<(usize, usize, usize)> {
    let [(a, len, step), (b, ..), ..] = runs[..] else { return None };
    let starts = b.checked_sub(a)?;
    let all = runs.iter().enumerate().all(|(r, &(first, l, s))| {
        l == len && s == step && starts.checked_mul(r).and_then(|d| a.checked_add(d)) == Some(first)
    });
    all.then_some((starts, len, step))
}

#[cfg(test)]
mod tests {
    use super::{evenly, runs_of};

    #[test]
    fn indices_become_runs_and_even_runs_one_copy() {
        assert_eq!(runs_of(&[3, 4, 5, 9, 7, 7]), vec![(3, 3, 1), (9, 1, 0), (7, 2, 0)]);
        assert_eq!(runs_of(&[0, 2, 4, 6]), vec![(0, 4, 2)]);
        // An unfold of 3 over 4 positions: windows 0..3, 1..4, 2..5, 3..6.
        let unfold: Vec<usize> = (0..4).flat_map(|p| p..p + 3).collect();
        let runs = runs_of(&unfold);
        assert_eq!(runs, vec![(0, 3, 1), (1, 3, 1), (2, 3, 1), (3, 3, 1)]);
        assert_eq!(evenly(&runs), Some((1, 3, 1)));
        assert_eq!(evenly(&runs_of(&[0, 1, 2, 5, 6])), None);
        assert_eq!(evenly(&runs_of(&[0, 1, 2])), None);
        assert_eq!(evenly(&[(4, 2, 1), (2, 2, 1)]), None);
    }
}
