//! The matrix products of the ops around the cells: a `MatMul` of two operands (stacks of
//! matrices, broadcast over their leading axes), and a dense layer (a product by constant
//! weights, with its bias and activation, that the kernels read packed).
use super::checker::{Checker, Mode};
use super::lower::Lowering;
use super::lower::strides;
use crate::diag::Code;
use crate::graph::{Data, NodeId, TensorId};
use crate::ir::steps::MatMul;
use crate::ir::{DenseStep, Operand, Step};

impl Lowering<'_> {
    /// A `MatMul` of two operands, each transposed or not.
    pub(super) fn matmul(
        &mut self,
        c: &mut Checker<'_>,
        id: NodeId,
        ins: &[(TensorId, Operand, Vec<usize>)],
        (ta, tb): (bool, bool),
        y: TensorId,
    ) {
        let [(at, ao, ad), (bt, bo, bd)] = ins else { return };
        if let Mode::Rows(_) = self.mode {
            let k_axis = if ad.len() == 1 || !ta { ad.len() - 1 } else { ad.len() - 2 };
            if self.axis_of_batch(*bt).is_some() || self.axis_of_batch(*at) == Some(k_axis) {
                let msg = crate::diag::Message::new(
                    "multiplies along the dynamic batch; cellc runs a dynamic batch row by row",
                )
                .fix(crate::diag::Fix::pin_batch());
                c.err(Code::Declined, id, None, msg);
                return;
            }
        }
        let Some(yd) = self.dims_of(y) else { return };
        // Strides of each side as a stack of matrices: [batch…, rows, cols] after its transpose.
        let mat = |d: &[usize], t: bool, left: bool| -> (Vec<usize>, Vec<usize>) {
            let s = strides(d);
            let r = d.len();
            if r == 1 {
                return if left { (vec![1, d[0]], vec![0, 1]) } else { (vec![d[0], 1], vec![1, 0]) };
            }
            let (mut dims, mut st) = (d.to_vec(), s);
            if t {
                dims.swap(r - 1, r - 2);
                st.swap(r - 1, r - 2);
            }
            (dims, st)
        };
        let ((adims, ast), (bdims, bst)) = (mat(ad, ta, true), mat(bd, tb, false));
        let (ra, rb) = (adims.len(), bdims.len());
        let (m, k, n) = (adims[ra - 2], adims[ra - 1], bdims[rb - 1]);
        let batch_dims: Vec<usize> = {
            let nb = (ra - 2).max(rb - 2);
            let pad = |v: &[usize], fill: usize| -> Vec<usize> {
                std::iter::repeat_n(fill, nb - v.len()).chain(v.iter().copied()).collect()
            };
            let (da, db) = (pad(&adims[..ra - 2], 1), pad(&bdims[..rb - 2], 1));
            da.iter().zip(&db).map(|(&x, &z)| x.max(z)).collect()
        };
        let nb = batch_dims.len();
        let bstride = |dims: &[usize], st: &[usize], rank: usize| -> Vec<usize> {
            let lead = nb - (rank - 2);
            (0..nb).map(|i| if i < lead || dims[i - lead] == 1 { 0 } else { st[i - lead] }).collect()
        };
        let (sa, sb) = (bstride(&adims, &ast, ra), bstride(&bdims, &bst, rb));
        let ys = strides(&[batch_dims.clone(), vec![m, n]].concat());
        if yd.iter().product::<usize>() != batch_dims.iter().product::<usize>() * m * n {
            return;
        }
        let Some(yo) = self.place(y) else { return };
        let batch = (0..nb).map(|i| [batch_dims[i], sa[i], sb[i], ys[i]]).collect();
        self.steps.push(Step::MatMul(MatMul {
            a: *ao,
            b: *bo,
            dst: yo,
            batch,
            m,
            k,
            n,
            a_strides: [ast[ra - 2], ast[ra - 1]],
            b_strides: [bst[rb - 2], bst[rb - 1]],
            dst_row: n,
        }));
    }

    /// A dense layer: its weights (and bias) read from the graph's constants into the
    /// model's [`crate::ir::Dense`], which the kernels pack; the rows of `x` in order.
    pub(super) fn dense(
        &mut self,
        c: &mut Checker<'_>,
        id: NodeId,
        ins: &[(TensorId, Operand, Vec<usize>)],
        op: &DenseOp<'_>,
        y: TensorId,
    ) {
        let [(xt, xo, xd)] = ins else { return };
        let Some(&last) = xd.last() else { return };
        let DenseOp { tb, act, win, planar, groups } = *op;
        // Over windows, a row of the model holds whole entries of the input (each of its
        // groups' windows).
        let (k, rows) = match win {
            Some(w) => {
                let entry = w.input_len().saturating_mul(groups).max(1);
                let entries = xd.iter().product::<usize>() / entry;
                if entries * entry != xd.iter().product::<usize>() {
                    c.err(
                        Code::Internal,
                        id,
                        None,
                        format!("internal error: windows over entries of {entry} values read {xd:?}"),
                    );
                    return;
                }
                if let Some(ax) = self.axis_of_batch(*xt)
                    && ax != 0
                    && !self.keeps_rows(c, id, *xt, ax, "a convolution")
                {
                    return;
                }
                let Some(rows) = entries.checked_mul(w.positions()) else {
                    c.err(Code::Limit, id, None, format!("{entries} entries of {} windows overflow", w.positions()));
                    return;
                };
                (w.k(), rows)
            }
            None => {
                if !self.keeps_rows(c, id, *xt, xd.len() - 1, "multiplies") {
                    return;
                }
                (last, xd.iter().product::<usize>() / last.max(1))
            }
        };
        let floats = |i: usize| self.g.input_fact(id, i).and_then(|f| f.value.as_ref()).and_then(Data::floats);
        let Some(w) = floats(1) else { return };
        let bias = match self.g.nodes[id].inputs.get(2).copied().flatten() {
            Some(_) => match floats(2) {
                Some(b) => Some(b),
                None => return,
            },
            None => None,
        };
        let n = w.len().checked_div(k).unwrap_or(0);
        if k == 0 || n == 0 || w.len() != n * k || bias.as_ref().is_some_and(|b| b.len() != n) {
            let msg = format!("internal error: a dense layer of {} weights over rows of {k} values", w.len());
            c.err(Code::Internal, id, None, msg);
            return;
        }
        // The kernels read one row of K weights per output.
        let w: Vec<f32> = if tb {
            w.iter().map(|&v| v as f32).collect()
        } else {
            (0..n * k).map(|i| w[(i % k) * n + i / k] as f32).collect()
        };
        let Some(dst) = self.place(y) else { return };
        let name = self.g.code_name(id);
        let bias = bias.map(|b| b.iter().map(|&v| v as f32).collect());
        let act = match act {
            Some(crate::ops::DenseAct::Unary(u)) => Some(crate::ir::DenseAct::Unary(u)),
            Some(crate::ops::DenseAct::PRelu) => {
                // One slope per output, or one for all.
                let Some(s) = floats(3).filter(|s| s.len() == n || s.len() == 1) else {
                    c.err(
                        Code::Internal,
                        id,
                        None,
                        format!("internal error: a dense layer of {n} outputs without their slopes"),
                    );
                    return;
                };
                Some(crate::ir::DenseAct::PRelu((0..n).map(|j| s[j % s.len()] as f32).collect()))
            }
            None => None,
        };
        self.denses.push(crate::ir::Dense { name, k, n, w, bias, act, win: win.cloned(), planar, groups });
        let dense = self.denses.len() - 1;
        self.steps.push(Step::Dense(DenseStep { dense, x: *xo, dst, rows }));
    }
}

/// The attributes of an [`crate::ops::Op::Dense`], as the lowering reads them.
#[derive(Clone, Copy)]
pub(super) struct DenseOp<'a> {
    pub(super) tb: bool,
    pub(super) act: Option<crate::ops::DenseAct>,
    pub(super) win: Option<&'a crate::vocab::Windows>,
    pub(super) planar: bool,
    pub(super) groups: usize,
}
