//! Layout and shape ops: how each moves values without computing on them (`Transpose`,
//! `Reshape`, `Squeeze`, `Unsqueeze`, `Concat`, `Gather`, `Slice`, `Split`,
//! `VariadicSplit`, `Broadcast`), the shape subgraph's `ShapeOf`, and `Convert`.
//! Each op's rule gives the output shapes, and the values when the inputs are constant.
use super::error::{OpError, refuse, unpinned};
use super::tensor::{axis, broadcast, broadcast_map, count, extents, ints, known_ints, show, strides, unflatten};
use super::tensor::{input, input_shape};
use crate::vocab::{Data, Elem, Fact, Sym};

/// `Broadcast`'s `mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BroadcastMode {
    /// The input's dimensions align right with the target's.
    Numpy,
    /// Both shapes broadcast against each other.
    Bidirectional,
    /// Input 2 maps each input axis to an output axis.
    Explicit,
}

/// The ops of this family, as [`infer`] takes them.
#[derive(Clone, Copy, Debug)]
pub(super) enum Moving {
    /// `Convert` to this type.
    Convert(Elem),
    /// `ConvertLike`.
    ConvertLike,
    /// `Identity`.
    Identity,
    /// `ShapeOf`, with this output type.
    ShapeOf(Elem),
    /// `Reshape`, with `special_zero`.
    Reshape(bool),
    /// `Squeeze`.
    Squeeze,
    /// `Unsqueeze`.
    Unsqueeze,
    /// `Transpose`.
    Transpose,
    /// `Concat` along this axis.
    Concat(i64),
    /// `Gather` with these `batch_dims`.
    Gather(i64),
    /// `Slice`.
    Slice,
    /// `Split` into this many parts.
    Split(u64),
    /// `VariadicSplit`.
    VariadicSplit,
    /// `Broadcast` in this mode.
    Broadcast(BroadcastMode),
    /// `Tile`.
    Tile,
}

pub(super) fn infer(op: Moving, ins: &[Option<&Fact>], outputs: usize) -> Result<Vec<Fact>, OpError> {
    let data = input(ins, 0, "data")?;
    let shape = input_shape(ins, 0, "data")?;
    let value = |i: usize| ins.get(i).copied().flatten().and_then(|f| f.value.as_ref());
    Ok(match op {
        Moving::Convert(to) => vec![convert(data, to)],
        Moving::ConvertLike => vec![convert(data, input(ins, 1, "like")?.elem)],
        Moving::Identity => vec![data.clone()],
        Moving::ShapeOf(out) => {
            let n = Sym::known(shape.len() as i64);
            vec![Fact::constant(out, vec![n], Data::Int(shape.to_vec()))]
        }
        Moving::Reshape(special_zero) => {
            let out = reshape(shape, &ints(value(1), "the target shape")?, special_zero)?;
            vec![same_values(data, out)]
        }
        Moving::Squeeze => {
            let axes = match ins.get(1).copied().flatten() {
                Some(a) => Some(known_ints(a.value.as_ref(), "the axes")?),
                None => None,
            };
            vec![same_values(data, squeeze(shape, axes.as_deref())?)]
        }
        Moving::Unsqueeze => {
            let axes = known_ints(value(1), "the axes")?;
            let rank = shape.len() + axes.len();
            let mut at = vec![false; rank];
            for &a in &axes {
                let a = axis(a, rank)?;
                if std::mem::replace(&mut at[a], true) {
                    return Err(refuse!("axis {a} is given twice"));
                }
            }
            let mut rest = shape.iter();
            let out: Option<Vec<Sym>> =
                at.iter().map(|&u| if u { Some(Sym::known(1)) } else { rest.next().copied() }).collect();
            vec![same_values(data, out.ok_or_else(|| refuse!("the axes do not fit the input"))?)]
        }
        Moving::Transpose => vec![transpose(data, shape, &known_ints(value(1), "the order")?)?],
        Moving::Concat(a) => vec![concat(ins, a)?],
        Moving::Gather(batch_dims) => vec![gather(data, shape, ins, batch_dims)?],
        Moving::Slice => vec![slice(data, shape, ins)?],
        Moving::Split(parts) => split(data, shape, known_ints(value(1), "the axis")?, None, parts, outputs)?,
        Moving::VariadicSplit => {
            let lengths = known_ints(value(2), "the split lengths")?;
            split(data, shape, known_ints(value(1), "the axis")?, Some(lengths), 0, outputs)?
        }
        Moving::Broadcast(mode) => vec![broadcast_op(data, shape, ins, mode)?],
        Moving::Tile => vec![tile(data, shape, &known_ints(value(1), "the repeats")?)?],
    })
}

fn convert(data: &Fact, to: Elem) -> Fact {
    let value = data.value.as_ref().and_then(|v| match v {
        Data::Float(xs) if to.is_float() => Some(Data::Float(xs.iter().map(|&x| to.round(x)).collect())),
        // Float to integer truncates towards zero, as OpenVINO's Convert does.
        Data::Float(xs) => xs
            .iter()
            .map(|&x| {
                let t = x.trunc();
                (t.is_finite() && t.abs() < 9.2e18).then(|| to.wrap(t as i64).map(Sym::known)).flatten()
            })
            .collect::<Option<Vec<_>>>()
            .map(Data::Int),
        Data::Int(xs) if to.is_float() => {
            xs.iter().map(|s| s.value().map(|x| to.round(x as f64))).collect::<Option<Vec<_>>>().map(Data::Float)
        }
        Data::Int(xs) => xs
            .iter()
            .map(|s| if s.is_known() { to.wrap(s.c).map(Sym::known) } else { Some(*s) })
            .collect::<Option<Vec<_>>>()
            .map(Data::Int),
    });
    Fact { elem: to, shape: data.shape.clone(), value }
}

/// A fact of shape `out` holding `data`'s values in the same order (reshapes): the values
/// carry over when no symbolic dimension is involved, or when they are all equal.
fn same_values(data: &Fact, out: Vec<Sym>) -> Fact {
    let value = data.value.as_ref().and_then(|v| {
        let ext = extents(&out)?;
        if v.len() == count(&ext) && (out.iter().all(|d| d.is_known()) || is_splat(v)) {
            Some(v.clone())
        } else if is_splat(v) && !v.is_empty() {
            Some(v.pick(&vec![0; count(&ext)]))
        } else {
            None
        }
    });
    Fact { elem: data.elem, shape: Some(out), value }
}

fn is_splat(v: &Data) -> bool {
    match v {
        Data::Float(x) => x.windows(2).all(|w| w[0].to_bits() == w[1].to_bits()),
        Data::Int(x) => x.windows(2).all(|w| w[0] == w[1]),
    }
}

fn product(dims: &[Sym]) -> Option<Sym> {
    dims.iter().try_fold(Sym::known(1), |a, &d| a.checked_mul(d))
}

fn reshape(shape: &[Sym], target: &[Sym], special_zero: bool) -> Result<Vec<Sym>, OpError> {
    let mut out = Vec::with_capacity(target.len());
    let mut infer_at = None;
    for (i, &t) in target.iter().enumerate() {
        match t.value() {
            Some(0) if special_zero => {
                let d = shape.get(i).ok_or_else(|| refuse!("0 at position {i} copies a dimension the input lacks"))?;
                out.push(*d);
            }
            Some(-1) if infer_at.is_none() => {
                infer_at = Some(i);
                out.push(Sym::known(1));
            }
            Some(v) if v < 0 => return Err(refuse!("the target shape {} holds {v}", show(target))),
            _ => out.push(t),
        }
    }
    let total = product(shape)
        .ok_or_else(|| unpinned!("the size of the input {} multiplies dynamic dimensions together", show(shape)))?;
    if let Some(i) = infer_at {
        let rest = product(&out)
            .ok_or_else(|| unpinned!("the target {} multiplies dynamic dimensions together", show(&out)))?;
        let d = total
            .exact_div(rest)
            .ok_or_else(|| refuse!("cannot infer the -1 of {} from the input shape {}", show(target), show(shape)))?;
        out[i] = d;
    } else if product(&out).and_then(|p| p.equals(total)) == Some(false) {
        return Err(refuse!("{} has a different number of elements than the input {}", show(&out), show(shape)));
    }
    Ok(out)
}

fn squeeze(shape: &[Sym], axes: Option<&[i64]>) -> Result<Vec<Sym>, OpError> {
    let one = Sym::known(1);
    let Some(axes) = axes else {
        return Ok(shape.iter().copied().filter(|&d| d != one).collect());
    };
    let mut drop = vec![false; shape.len()];
    for &a in axes {
        let a = axis(a, shape.len())?;
        if shape[a] != one {
            return Err(refuse!("axis {a} of {} is not 1 and cannot be squeezed", show(shape)));
        }
        drop[a] = true;
    }
    Ok(shape.iter().zip(drop).filter(|(_, d)| !d).map(|(s, _)| *s).collect())
}

/// `Tile`'s input shape and repeats, padded with leading 1s to one rank.
pub(crate) fn tile_dims(shape: &[Sym], repeats: &[i64]) -> Result<(Vec<Sym>, Vec<i64>), OpError> {
    if let Some(r) = repeats.iter().find(|&&r| r < 0) {
        return Err(refuse!("a repeat count of {r}"));
    }
    let rank = shape.len().max(repeats.len());
    let ones = |n: usize| std::iter::repeat_n(1, rank - n);
    let dims = ones(shape.len()).map(Sym::known).chain(shape.iter().copied()).collect();
    Ok((dims, ones(repeats.len()).chain(repeats.iter().copied()).collect()))
}

fn tile(data: &Fact, shape: &[Sym], repeats: &[i64]) -> Result<Fact, OpError> {
    let (dims, reps) = tile_dims(shape, repeats)?;
    let out: Vec<Sym> = dims
        .iter()
        .zip(&reps)
        .map(|(d, &r)| d.checked_mul(Sym::known(r)).ok_or_else(|| refuse!("{d} repeated {r} times")))
        .collect::<Result<_, _>>()?;
    let value = (|| {
        let v = data.value.as_ref()?;
        let (ext, oext) = (extents(&dims)?, extents(&out)?);
        let st = strides(&ext);
        let mut idx = vec![0; ext.len()];
        let map: Vec<usize> = (0..count(&oext))
            .map(|i| {
                unflatten(i, &oext, &mut idx);
                idx.iter().zip(&ext).zip(&st).map(|((&j, &d), &s)| (j % d.max(1)) * s).sum()
            })
            .collect();
        Some(v.pick(&map))
    })();
    Ok(Fact { elem: data.elem, shape: Some(out), value })
}

fn transpose(data: &Fact, shape: &[Sym], order: &[i64]) -> Result<Fact, OpError> {
    let rank = shape.len();
    let perm: Vec<usize> = if order.is_empty() {
        (0..rank).rev().collect()
    } else {
        let p: Vec<usize> = order.iter().map(|&a| axis(a, rank)).collect::<Result<_, _>>()?;
        let mut seen = vec![false; rank];
        if p.len() != rank || p.iter().any(|&a| std::mem::replace(&mut seen[a], true)) {
            return Err(refuse!("the order {order:?} is not a permutation of the {rank} axes"));
        }
        p
    };
    let out: Vec<Sym> = perm.iter().map(|&a| shape[a]).collect();
    let value = data.value.as_ref().and_then(|v| {
        let ext = extents(shape)?;
        let st = strides(&ext);
        let oext: Vec<usize> = perm.iter().map(|&a| ext[a]).collect();
        let mut idx = vec![0; rank];
        let map: Vec<usize> = (0..count(&oext))
            .map(|i| {
                unflatten(i, &oext, &mut idx);
                idx.iter().zip(&perm).map(|(&x, &a)| x * st[a]).sum()
            })
            .collect();
        Some(v.pick(&map))
    });
    Ok(Fact { elem: data.elem, shape: Some(out), value })
}

fn concat(ins: &[Option<&Fact>], a: i64) -> Result<Fact, OpError> {
    let first = input_shape(ins, 0, "data")?;
    let rank = first.len();
    let ax = axis(a, rank)?;
    let mut out = first.to_vec();
    let mut parts = Vec::new();
    for i in 0..ins.len() {
        let s = input_shape(ins, i, "data")?;
        let same = s.len() == rank && (0..rank).all(|k| k == ax || s[k].equals(first[k]) != Some(false));
        if !same {
            return Err(refuse!(
                "input {i} has shape {}, which does not concatenate with {} on axis {a}",
                show(s),
                show(first)
            ));
        }
        if i > 0 {
            out[ax] = out[ax].checked_add(s[ax]).ok_or_else(|| refuse!("the concatenated size is not expressible"))?;
        }
        parts.push((s, input(ins, i, "data")?.value.as_ref()));
    }
    let elem = input(ins, 0, "data")?.elem;
    let value = (|| {
        let oext = extents(&out)?;
        if !out[ax].is_known() {
            return None;
        }
        let outer: usize = oext[..ax].iter().product();
        let mut pieces = Vec::new();
        for (s, v) in &parts {
            let ext = extents(s)?;
            let inner: usize = ext[ax..].iter().product();
            pieces.push((inner, (*v)?));
        }
        let mut map_parts: Vec<(usize, usize)> = Vec::new();
        for o in 0..outer {
            for (p, (inner, _)) in pieces.iter().enumerate() {
                map_parts.extend((0..*inner).map(|j| (p, o * inner + j)));
            }
        }
        // Each piece's values converted once (not once per value taken from it).
        Some(match pieces[0].1 {
            Data::Float(_) => {
                let vals: Vec<Vec<f64>> = pieces.iter().map(|(_, v)| v.floats()).collect::<Option<_>>()?;
                Data::Float(map_parts.iter().map(|&(p, j)| vals[p].get(j).copied()).collect::<Option<_>>()?)
            }
            Data::Int(_) => {
                let vals: Vec<Vec<Sym>> = pieces.iter().map(|(_, v)| v.ints()).collect::<Option<_>>()?;
                Data::Int(map_parts.iter().map(|&(p, j)| vals[p].get(j).copied()).collect::<Option<_>>()?)
            }
        })
    })();
    Ok(Fact { elem, shape: Some(out), value })
}

/// `Gather`'s `batch_dims` as a dimension count: negative counts from the end of the
/// indices' shape; it may not pass the indices' rank nor the axis (OpenVINO refuses both).
pub(crate) fn gather_batch_dims(batch_dims: i64, indices_rank: usize, ax: usize) -> Result<usize, OpError> {
    let r = i64::try_from(indices_rank).map_err(|_| refuse!("rank too large"))?;
    let b = if batch_dims < 0 { batch_dims.saturating_add(r) } else { batch_dims };
    if !(0..=r).contains(&b) {
        return Err(refuse!(
            "batch_dims {batch_dims} is out of range for indices of rank {indices_rank}; expected {} to {indices_rank}",
            -r
        ));
    }
    let b = b as usize;
    if b > ax {
        return Err(refuse!("batch_dims {batch_dims} is greater than the axis {ax}; expected at most {ax}"));
    }
    Ok(b)
}

fn gather(data: &Fact, shape: &[Sym], ins: &[Option<&Fact>], batch_dims: i64) -> Result<Fact, OpError> {
    let indices = input(ins, 1, "indices")?;
    let ishape = input_shape(ins, 1, "indices")?;
    let ax = known_ints(input(ins, 2, "axis")?.value.as_ref(), "the axis")?;
    let [ax] = ax[..] else { return Err(OpError::Rule("the axis must be one number".to_owned())) };
    let ax = axis(ax, shape.len())?;
    let b = gather_batch_dims(batch_dims, ishape.len(), ax)?;
    for k in 0..b {
        if shape[k].equals(ishape[k]) == Some(false) {
            return Err(refuse!(
                "batch dimension {k} has {} values in the data and {} in the indices; with batch_dims {batch_dims} they must be equal",
                shape[k],
                ishape[k]
            ));
        }
    }
    let mut out: Vec<Sym> = shape[..ax].to_vec();
    out.extend_from_slice(&ishape[b..]);
    out.extend_from_slice(&shape[ax + 1..]);
    let value = (|| {
        let v = data.value.as_ref()?;
        let dim = shape[ax].value()?;
        let idx = indices.value.as_ref()?.known_ints()?;
        let ext = extents(shape)?;
        // Per batch entry: `outer` blocks of `dim` slices of `inner` values, and `n` indices.
        let batches: usize = ext[..b].iter().product();
        let (outer, inner): (usize, usize) = (ext[b..ax].iter().product(), ext[ax + 1..].iter().product());
        let n = idx.len().checked_div(batches)?;
        if n * batches != idx.len() {
            return None;
        }
        let mut map = Vec::new();
        for bb in 0..batches {
            for o in 0..outer {
                for &i in &idx[bb * n..(bb + 1) * n] {
                    let i = if i < 0 { i + dim } else { i };
                    if !(0..dim).contains(&i) {
                        return None;
                    }
                    let base = ((bb * outer + o) * ext[ax] + i as usize) * inner;
                    map.extend(base..base + inner);
                }
            }
        }
        (map.len() == count(&extents(&out)?)).then(|| v.pick(&map))
    })();
    Ok(Fact { elem: data.elem, shape: Some(out), value })
}

/// The indices a slice `start:stop:step` takes of a dimension of `dim` elements (numpy's
/// clamping rules).
pub(crate) fn slice_range(dim: i64, start: i64, stop: i64, step: i64) -> Vec<i64> {
    let clamp = |v: i64, lo: i64, hi: i64| v.clamp(lo, hi);
    let norm = |v: i64| if v < 0 { v.saturating_add(dim) } else { v };
    let mut out = Vec::new();
    // A step of 0 is refused by the ops' rules; it takes nothing here rather than looping.
    if step == 0 {
        return out;
    }
    if step > 0 {
        let (mut i, end) = (clamp(norm(start), 0, dim), clamp(norm(stop), 0, dim));
        while i < end {
            out.push(i);
            // A step past the end (however large) ends the slice.
            let Some(next) = i.checked_add(step) else { break };
            i = next;
        }
    } else {
        let (mut i, end) = (clamp(norm(start), -1, dim - 1), clamp(norm(stop), -1, dim - 1));
        while i > end {
            out.push(i);
            // A step past the end (however large) ends the slice.
            let Some(next) = i.checked_add(step) else { break };
            i = next;
        }
    }
    out
}

fn slice(data: &Fact, shape: &[Sym], ins: &[Option<&Fact>]) -> Result<Fact, OpError> {
    let val = |i: usize, what: &str| known_ints(ins.get(i).copied().flatten().and_then(|f| f.value.as_ref()), what);
    let (start, stop, step) = (val(1, "start")?, val(2, "stop")?, val(3, "step")?);
    let axes: Vec<usize> = match ins.get(4).copied().flatten() {
        Some(a) => known_ints(a.value.as_ref(), "the axes")?
            .into_iter()
            .map(|a| axis(a, shape.len()))
            .collect::<Result<_, _>>()?,
        None => (0..start.len()).collect(),
    };
    if start.len() != stop.len() || start.len() != step.len() || start.len() != axes.len() {
        return Err(OpError::Rule("start, stop, step and axes must have the same length".to_owned()));
    }
    let mut out = shape.to_vec();
    let mut picks: Vec<Option<Vec<i64>>> = vec![None; shape.len()];
    for k in 0..axes.len() {
        let (a, s, e, st) = (axes[k], start[k], stop[k], step[k]);
        if st == 0 {
            return Err(OpError::Rule("a step of 0".to_owned()));
        }
        match shape[a].value() {
            Some(dim) => {
                let r = slice_range(dim, s, e, st);
                out[a] = Sym::known(r.len() as i64);
                picks[a] = Some(r);
            }
            // The whole of a dynamic dimension.
            None if s == 0 && st == 1 && e >= i64::MAX / 2 => {}
            None => {
                return Err(unpinned!("slicing {s}:{e}:{st} of dimension {a} ({}) depends on its size", shape[a]));
            }
        }
    }
    let value = (|| {
        let v = data.value.as_ref()?;
        let ext = extents(shape)?;
        let oext = extents(&out)?;
        let st = strides(&ext);
        let mut idx = vec![0; ext.len()];
        let map = (0..count(&oext))
            .map(|i| {
                unflatten(i, &oext, &mut idx);
                (0..ext.len())
                    .map(|k| match &picks[k] {
                        Some(p) => p[idx[k]] as usize * st[k],
                        None => idx[k] * st[k],
                    })
                    .sum()
            })
            .collect::<Vec<usize>>();
        Some(v.pick(&map))
    })();
    Ok(Fact { elem: data.elem, shape: Some(out), value })
}

fn split(
    data: &Fact,
    shape: &[Sym],
    ax: Vec<i64>,
    lengths: Option<Vec<i64>>,
    parts: u64,
    outputs: usize,
) -> Result<Vec<Fact>, OpError> {
    let [ax] = ax[..] else { return Err(OpError::Rule("the axis must be one number".to_owned())) };
    let ax = axis(ax, shape.len())?;
    let dim = shape[ax].value().ok_or_else(|| unpinned!("splitting dimension {ax} ({}) needs its size", shape[ax]))?;
    let mut lengths = match lengths {
        Some(l) => l,
        None if parts > 0 && dim % parts as i64 == 0 => vec![dim / parts as i64; parts as usize],
        None => return Err(refuse!("dimension {ax} ({dim}) does not split into {parts} equal parts")),
    };
    if let Some(i) = lengths.iter().position(|&l| l == -1) {
        let rest: i64 = lengths.iter().filter(|&&l| l != -1).sum();
        lengths[i] = dim - rest;
    }
    if lengths.iter().any(|&l| l < 0) || lengths.iter().sum::<i64>() != dim || lengths.len() != outputs {
        return Err(refuse!(
            "the split lengths {lengths:?} do not divide dimension {ax} ({dim}) into {outputs} outputs"
        ));
    }
    let mut from = 0;
    let mut out = Vec::new();
    for l in lengths {
        let step = Fact::constant(Elem::I64, vec![Sym::known(1)], Data::Int(vec![Sym::known(1)]));
        let s = Fact::constant(Elem::I64, vec![Sym::known(1)], Data::Int(vec![Sym::known(from)]));
        let e = Fact::constant(Elem::I64, vec![Sym::known(1)], Data::Int(vec![Sym::known(from + l)]));
        let a = Fact::constant(Elem::I64, vec![Sym::known(1)], Data::Int(vec![Sym::known(ax as i64)]));
        out.push(slice(data, shape, &[Some(data), Some(&s), Some(&e), Some(&step), Some(&a)])?);
        from += l;
    }
    Ok(out)
}

fn broadcast_op(data: &Fact, shape: &[Sym], ins: &[Option<&Fact>], mode: BroadcastMode) -> Result<Fact, OpError> {
    let target = ints(ins.get(1).copied().flatten().and_then(|f| f.value.as_ref()), "the target shape")?;
    // The input's shape aligned to the output's rank.
    let (aligned, out) = match mode {
        BroadcastMode::Numpy => {
            if shape.len() > target.len() {
                return Err(refuse!("{} has more dimensions than the target {}", show(shape), show(&target)));
            }
            let b = broadcast(shape, &target)?;
            if b != target {
                return Err(refuse!("{} does not broadcast to {}", show(shape), show(&target)));
            }
            (shape.to_vec(), target)
        }
        BroadcastMode::Bidirectional => (shape.to_vec(), broadcast(shape, &target)?),
        BroadcastMode::Explicit => {
            let map = known_ints(ins.get(2).copied().flatten().and_then(|f| f.value.as_ref()), "the axes mapping")?;
            if map.len() != shape.len() {
                return Err(refuse!("the axes mapping {map:?} does not give an axis for each of {}", show(shape)));
            }
            let mut aligned = vec![Sym::known(1); target.len()];
            for (&d, &a) in shape.iter().zip(&map) {
                let a = axis(a, target.len())?;
                if d != Sym::known(1) && d != target[a] {
                    return Err(refuse!("dimension {d} does not map onto {} of {}", target[a], show(&target)));
                }
                aligned[a] = d;
            }
            (aligned, target)
        }
    };
    let value = (|| {
        let v = data.value.as_ref()?;
        let (iext, oext) = (extents(&aligned)?, extents(&out)?);
        // Dimensions the values must be repeated along have to be known.
        if aligned.iter().zip(&out).any(|(a, o)| a != o && !o.is_known()) && !is_splat(v) {
            return None;
        }
        Some(v.pick(&broadcast_map(&iext, &oext)))
    })();
    Ok(Fact { elem: data.elem, shape: Some(out), value })
}

#[cfg(test)]
mod tests;
