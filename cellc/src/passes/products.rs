//! Matrix products turned to the orientation the packed kernels read: a product whose
//! constant is on the left, `op(A)·op(B)` with `A` a constant matrix, is the transpose of
//! `op(B)ᵀ·op(A)ᵀ`, a product by constant weights on the right, which the fuse pass makes a
//! dense layer. The two transposes are copies of the operand and the result (K·N and M·N
//! values, against M·K·N multiply-adds), and the layout pass cancels those that meet another.
//! Where the planar kernel takes it (few rows of `A`, rows of `B` long enough to fill a
//! vector), `A·B` is instead a pointwise convolution of `B`'s matrices, read channels first
//! as they are: no transposes at all.
use super::edit::{Decline, add, declined, ints, take_over};
use crate::graph::{Data, Elem, Graph, NodeId, TensorId};
use crate::ops::Op;
use crate::ops::conv::{AutoPad, ConvAttrs, Window, WindowRounding};

/// Rewrites every product of `g` by a constant matrix on its left into a product by it on
/// the right between two transposes. Products of two run-time operands, and those whose
/// constant is a stack of matrices (other weights for each index of a batch), stay as they
/// are.
pub(super) fn left_constants(g: &mut Graph) {
    let ids: Vec<NodeId> = (0..g.nodes.len()).filter(|&id| !g.nodes[id].dead).collect();
    // An operand several constants multiply (a DFT's cosines and sines) is transposed once.
    let mut transposed = std::collections::BTreeMap::new();
    for id in ids {
        if let Op::MatMul { ta, tb } = g.nodes[id].op
            && let Some(aby) = left_constant(g, id)
            && let Err(why) = pointwise(g, id, aby, (ta, tb)).and_then(|done| match done {
                true => Ok(()),
                false => flip(g, id, aby, (ta, tb), &mut transposed),
            })
        {
            declined(g, id, why);
        }
    }
}

/// When node `id` (a `MatMul`) multiplies a run-time f32 operand by a constant f32 matrix
/// on its left, of known non-zero sizes: its operands and its output.
fn left_constant(g: &Graph, id: NodeId) -> Option<(TensorId, TensorId, TensorId)> {
    let node = &g.nodes[id];
    let (Some(Some(a)), Some(Some(b)), Some(&y)) = (node.inputs.first(), node.inputs.get(1), node.outputs.first())
    else {
        return None;
    };
    let (fa, fb, fy) = (&g.tensors[*a].fact, &g.tensors[*b].fact, &g.tensors[y].fact);
    let known = |s: &[crate::graph::Sym]| s.iter().all(|d| d.value().is_some_and(|v| v > 0));
    let is = fy.value.is_none()
        && fa.elem == Elem::F32
        && fb.elem == Elem::F32
        && matches!(fa.value, Some(Data::Float(_)))
        && fb.value.is_none()
        && fa.shape.as_deref().is_some_and(|s| s.len() == 2 && known(s))
        && fb.shape.as_deref().is_some_and(|s| !s.is_empty() && known(&s[s.len().saturating_sub(2)..]))
        && fy.shape.is_some();
    is.then_some((*a, *b, y))
}

/// `op(A)·B` as a pointwise convolution of `B`'s matrices (`[…, K, N]` read as `[batch, K, N]`:
/// `K` channels over `N` positions) by `op(A)` as its weights (`[M, K, 1]`), lowered at once
/// onto the planar kernel, when that kernel takes the layer's shape: true when done. A
/// transposed `B` (its matrices rows of positions) and a vector stay for [`flip`].
fn pointwise(
    g: &mut Graph,
    id: NodeId,
    (a, b, y): (TensorId, TensorId, TensorId),
    (ta, tb): (bool, bool),
) -> Result<bool, Decline> {
    let dims = |g: &Graph, t: TensorId| -> Option<Vec<usize>> {
        g.tensors[t].fact.shape.as_ref()?.iter().map(|d| d.value().and_then(|v| usize::try_from(v).ok())).collect()
    };
    let (Some(bs), Some(as_), Some(ys)) = (dims(g, b), dims(g, a), dims(g, y)) else { return Ok(false) };
    let (rank, &[r, c]) = (bs.len(), &as_[..]) else { return Ok(false) };
    if tb || rank < 2 {
        return Ok(false);
    }
    let (k, n, m) = (bs[rank - 2], bs[rank - 1], if ta { c } else { r });
    let Some(batch) = bs[..rank - 2].iter().try_fold(1usize, |p, &d| p.checked_mul(d)) else { return Ok(false) };
    if !super::conv::planar::pointwise_planar(m, k, n) {
        return Ok(false);
    }
    let size = |v: usize| i64::try_from(v).map_err(|_| Decline::Internal("a size past i64".into()));
    let reshape = Op::Reshape { special_zero: false };
    let wa = if ta {
        let p = ints(g, id, &[1, 0]);
        add(g, id, Op::Transpose, &[a, p])?
    } else {
        a
    };
    let ws = ints(g, id, &[size(m)?, size(k)?, 1]);
    let w = add(g, id, reshape.clone(), &[wa, ws])?;
    let xs = ints(g, id, &[size(batch)?, size(k)?, size(n)?]);
    let x = add(g, id, reshape.clone(), &[b, xs])?;
    let attrs = ConvAttrs {
        window: Window {
            strides: vec![1],
            dilations: vec![1],
            pads_begin: vec![0],
            pads_end: vec![0],
            auto_pad: AutoPad::Explicit,
            rounding: WindowRounding::Floor,
        },
        grouped: false,
        transposed: false,
        output_padding: vec![],
        crop: None,
    };
    let conv = add(g, id, Op::Conv(Box::new(attrs.clone())), &[x, w])?;
    let shape: Vec<i64> = ys.iter().map(|&d| size(d)).collect::<Result<_, _>>()?;
    let ys = ints(g, id, &shape);
    let out = add(g, id, reshape, &[conv, ys])?;
    take_over(g, y, out, &[id])?;
    let (node, _) = g.tensors[conv].producer;
    super::conv::conv(g, node, &attrs, &super::fuse::readers(g))?;
    Ok(true)
}

/// `op(A)·op(B)` as `(op(B)ᵀ·op(A)ᵀ)ᵀ`: `op(A)ᵀ` is `A` read with the other transpose flag,
/// `op(B)ᵀ` is `B` itself when it was transposed (else one transpose of its last two axes);
/// a vector `B` needs neither transpose.
fn flip(
    g: &mut Graph,
    id: NodeId,
    (a, b, y): (TensorId, TensorId, TensorId),
    (ta, tb): (bool, bool),
    transposed: &mut std::collections::BTreeMap<TensorId, TensorId>,
) -> Result<(), Decline> {
    let rank = g.tensors[b].fact.shape.as_ref().map_or(0, Vec::len);
    let swap = |g: &mut Graph, t| {
        let perm: Vec<i64> = (0..rank as i64 - 2).chain([rank as i64 - 1, rank as i64 - 2]).collect();
        let p = ints(g, id, &perm);
        add(g, id, Op::Transpose, &[t, p])
    };
    let out = if rank == 1 {
        add(g, id, Op::MatMul { ta: false, tb: !ta }, &[b, a])?
    } else {
        let bt = match transposed.get(&b) {
            _ if tb => b,
            Some(&t) => t,
            None => {
                let t = swap(g, b)?;
                transposed.insert(b, t);
                t
            }
        };
        let p = add(g, id, Op::MatMul { ta: false, tb: !ta }, &[bt, a])?;
        swap(g, p)?
    };
    take_over(g, y, out, &[id])
}
