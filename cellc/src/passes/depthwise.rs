//! A depthwise convolution (one input channel per group, one output channel per group or
//! several: a channel multiplier; transposed too, of stride 1) as a sum over its taps: for each tap, every output
//! channel's input shifted by the tap (a gather, in runs along the last axis) times that
//! channel's weight for the tap, the terms added. The terms are elementwise over whole
//! channels, which the fuse pass joins into one chain, where a product per group would
//! multiply a matrix of one column per channel.
use super::edit::{Decline, add, constant, take_over};
use crate::graph::{Data, Graph, NodeId, TensorId};
use crate::limits::MAX_PICK_TABLE;
use crate::ops::conv::ConvGeometry;
use crate::ops::pad::Pick;
use crate::ops::tensor::{count, strides, unflatten};
use crate::ops::{Binary, Op};

/// Lowers convolution `id` (geometry `geo`, weights `w` as `[G, C_out/G, 1, K…]`, input `x`,
/// output `y`) when it is depthwise and its shifts' tables are within the limits; whether
/// it did (if not, the convolution is lowered as any other).
pub(super) fn depthwise(
    g: &mut Graph,
    id: NodeId,
    geo: &ConvGeometry,
    w: &[f64],
    (x, y): (TensorId, TensorId),
) -> Result<bool, Decline> {
    // A transposed one of stride 1 is a convolution too (each output position's taps are
    // input positions); a strided one would multiply mostly padding.
    if geo.ci != 1 || geo.groups == 1 || (geo.transposed && geo.strides.iter().any(|&s| s != 1)) {
        return Ok(false);
    }
    // Output channel `c` reads input channel `c / co` (a channel multiplier `co`).
    let (co, inputs) = (geo.co, geo.groups);
    let Some(channels) = inputs.checked_mul(co) else { return Ok(false) };
    let (taps, positions) = (count(&geo.kernel), count(&geo.output));
    let n = channels.checked_mul(positions).filter(|&n| n as u64 <= MAX_PICK_TABLE);
    let Some(n) = n else { return Ok(false) };
    let elem = g.tensors[x].fact.elem;
    let (r, plane) = (geo.input.len(), count(&geo.input));
    // Every table entry is an index into one batch entry of the input.
    if inputs.checked_mul(plane).is_none_or(|e| u32::try_from(e).is_err()) {
        return Ok(false);
    }
    let in_strides = strides(&geo.input);
    let mut out_shape = vec![channels];
    out_shape.extend(&geo.output);
    let mut wshape = vec![channels];
    wshape.resize(r + 1, 1);
    let (mut o_idx, mut k_idx) = (vec![0; r], vec![0; r]);
    let mut sum = None;
    for k in 0..taps {
        unflatten(k, &geo.kernel, &mut k_idx);
        let table: Vec<u32> = (0..n)
            .map(|i| {
                let (c, o) = (i / positions, i % positions);
                unflatten(o, &geo.output, &mut o_idx);
                let at: Option<usize> = (0..r).map(|a| Some(geo.source(a, o_idx[a], k_idx[a])? * in_strides[a])).sum();
                at.map_or(Pick::NONE, |at| ((c / co) * plane + at) as u32)
            })
            .collect();
        let pick = Pick { lead: 1, shape: out_shape.clone(), entry: inputs * plane, table, fill: 0.0 };
        let shifted = add(g, id, Op::Pick(Box::new(pick)), &[x])?;
        let wk: Vec<f64> = (0..channels).map(|c| w[geo.weight(c / co, c % co, 0, k)]).collect();
        let wt = constant(g, id, elem, &wshape, Data::Float(wk));
        let term = add(g, id, Op::Binary(Binary::Multiply), &[shifted, wt])?;
        sum = Some(match sum {
            None => term,
            Some(s) => add(g, id, Op::Binary(Binary::Add), &[s, term])?,
        });
    }
    let Some(s) = sum else { return Err(Decline::Internal("a convolution of no taps".to_owned())) };
    take_over(g, y, s, &[id])?;
    Ok(true)
}
