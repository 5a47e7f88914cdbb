//! Lowering of `Interpolate` onto gathers and elementwise ops: the zero padding as a
//! [`Pick`], then, for each interpolated axis, one [`Pick`] per tap (the `t`-th input value
//! each output value sums) weighted by a constant along the axis, the terms added in tap
//! order. Nearest modes take one tap of weight 1: a gather alone.
use super::edit::{Decline, Lowered, OrDecline, add, constant, table_too_large, take_over};
use crate::graph::{Data, Fact, Graph, NodeId};
use crate::limits::MAX_PICK_TABLE;
use crate::ops::interpolate::{Interp, Resize};
use crate::ops::pad::{PadMode, Pick, pad_table};
use crate::ops::tensor::{strides, unflatten};
use crate::ops::{Binary, Op};

/// Lowers `Interpolate` node `id`; leaves it (for the checker to report) where its inputs
/// are not known or a table would pass the limit.
pub(super) fn interpolate(g: &mut Graph, id: NodeId, it: &Interp) -> Lowered {
    let node = &g.nodes[id];
    let (Some(Some(x)), Some(&y)) = (node.inputs.first(), node.outputs.first()) else { return Err(Decline::Reported) };
    let mut cur = *x;
    let xs = g.tensors[cur].fact.shape.clone().or_reported()?;
    let facts: Vec<Option<Fact>> = (0..node.inputs.len()).map(|i| g.input_fact(id, i).cloned()).collect();
    let facts: Vec<Option<&Fact>> = facts.iter().map(Option::as_ref).collect();
    // A dynamic first axis (the batch) stays the gathers' leading axis; `resolve` and the
    // shape rule have refused to interpolate or pad it.
    let lead = usize::from(xs.first().is_some_and(|d| d.value().is_none()));
    let ext = xs
        .iter()
        .map(|d| usize::try_from(d.value().unwrap_or(1)).ok())
        .collect::<Option<Vec<usize>>>()
        .or_reported()?;
    let r = it.resolve(&ext, &facts).map_err(|_| Decline::Reported)?;
    let elem = g.tensors[cur].fact.elem;
    if r.pads.iter().any(|&p| p != (0, 0)) {
        let begin: Vec<i64> = r.pads[lead..].iter().map(|p| p.0 as i64).collect();
        let end: Vec<i64> = r.pads[lead..].iter().map(|p| p.1 as i64).collect();
        let (table, shape) =
            pad_table(PadMode::Constant, &ext[lead..], &begin, &end).map_err(|e| Decline::User(e.into()))?;
        let pick = Pick { lead, shape, entry: ext[lead..].iter().product(), table, fill: 0.0 };
        cur = add(g, id, Op::Pick(Box::new(pick)), &[cur])?;
    }
    let mut shape = r.padded.clone();
    for &(a, scale) in &r.axes {
        cur = axis(g, id, (cur, elem), (&shape, lead), a, (&r, scale))?;
        shape[a] = r.out[a];
    }
    take_over(g, y, cur, &[id])
}

/// The resize of `x` (of extents `shape`, its first `lead` axes kept) along `a`.
fn axis(
    g: &mut Graph,
    id: NodeId,
    (x, elem): (crate::graph::TensorId, crate::graph::Elem),
    (shape, lead): (&[usize], usize),
    a: usize,
    (r, scale): (&Resize, f32),
) -> Result<crate::graph::TensorId, Decline> {
    let mut out = shape.to_vec();
    out[a] = r.out[a];
    let n = crate::limits::product(out[lead..].iter().map(|&d| d as u64));
    if n.is_none_or(|n| n > MAX_PICK_TABLE) {
        return Err(table_too_large(&format!("its output along axis {a} ({:?} values)", &out[lead..]), n));
    }
    let taps = r.taps(a, scale);
    let n = n.unwrap_or_default() as usize;
    let st = strides(&shape[lead..]);
    let width = taps.iter().map(Vec::len).max().unwrap_or(0);
    let la = a - lead;
    let mut idx = vec![0; out.len() - lead];
    let mut sum = None;
    for t in 0..width {
        let table: Vec<u32> = (0..n)
            .map(|i| {
                unflatten(i, &out[lead..], &mut idx);
                match taps[idx[la]].get(t) {
                    Some(&(j, _)) => {
                        let at: usize =
                            idx.iter().zip(&st).enumerate().map(|(k, (&v, &s))| if k == la { j } else { v } * s).sum();
                        at as u32
                    }
                    None => Pick::NONE,
                }
            })
            .collect();
        let pick = Pick { lead, shape: out[lead..].to_vec(), entry: shape[lead..].iter().product(), table, fill: 0.0 };
        let mut term = add(g, id, Op::Pick(Box::new(pick)), &[x])?;
        let weights: Vec<f64> = taps.iter().map(|tx| tx.get(t).map_or(0.0, |p| p.1)).collect();
        if weights.iter().any(|&w| w != 1.0) {
            let mut wshape = vec![1; out.len()];
            wshape[a] = taps.len();
            let w = constant(g, id, elem, &wshape, Data::Float(weights));
            term = add(g, id, Op::Binary(Binary::Multiply), &[term, w])?;
        }
        sum = Some(match sum {
            None => term,
            Some(s) => add(g, id, Op::Binary(Binary::Add), &[s, term])?,
        });
    }
    sum.or_internal("an interpolation of no taps")
}
