//! The ops that pick by index or give indices: `GatherElements`, `TopK`, `Hardmax`,
//! `OneHot`, `NonZero`.
use super::common::{around, known, shaped, values};
use crate::limits::MAX_FOLDED_ELEMENTS;
use crate::ops::error::{OpError, refuse};
use crate::ops::tensor::{axis, count, int_input, show, strides, unflatten};
use crate::vocab::{Data, Elem, Fact, Sym};

/// An index along a dimension of `n`, counted from the end when negative.
fn index(i: i64, n: usize) -> Result<usize, OpError> {
    let j = if i < 0 { i.checked_add(n as i64) } else { Some(i) };
    j.and_then(|j| usize::try_from(j).ok())
        .filter(|&j| j < n)
        .ok_or_else(|| refuse!("index {i} is out of range for a dimension of {n}"))
}

pub(super) fn gather_elements(ins: &[Option<&Fact>], ax: i64) -> Result<Vec<Fact>, OpError> {
    let (data, ds) = shaped(ins, 0, "data")?;
    let (ix, is) = shaped(ins, 1, "indices")?;
    if ix.elem.is_float() {
        return Err(refuse!("the indices are {}; expected an integer type", ix.elem.name()));
    }
    if ds.len() != is.len() {
        return Err(refuse!("indices of shape {} for data of shape {}; expected the same rank", show(is), show(ds)));
    }
    let a = axis(ax, ds.len())?;
    let out = Fact::new(data.elem, is.to_vec());
    let (Some(dext), Some(iext), Some(v), Some(_)) = (known(ds), known(is), data.value.as_ref(), ix.value.as_ref())
    else {
        return Ok(vec![out]);
    };
    if let Some(k) = (0..ds.len()).find(|&k| k != a && iext[k] > dext[k]) {
        return Err(refuse!("the indices' dimension {k} is {}, past the data's {}", iext[k], dext[k]));
    }
    let idx = int_input(ins, 1, "the indices")?;
    let dst = strides(&dext);
    let mut at = vec![0; iext.len()];
    let picks = (0..count(&iext))
        .map(|j| {
            unflatten(j, &iext, &mut at);
            at[a] = index(idx[j], dext[a])?;
            Ok(at.iter().zip(&dst).map(|(x, s)| x * s).sum())
        })
        .collect::<Result<Vec<usize>, OpError>>()?;
    Ok(vec![Fact { value: Some(v.pick(&picks)), ..out }])
}

/// The data's floats and extents when the value and the shape are known.
fn floats(x: &Fact, shape: &[Sym]) -> Option<(Vec<f64>, Vec<usize>)> {
    Some((x.value.as_ref()?.floats()?, known(shape)?))
}

/// The index of the first largest of `n` values `get(i)` (NaN never wins, as a comparison
/// with it is false).
fn extreme(n: usize, get: impl Fn(usize) -> f64) -> usize {
    let mut best = 0;
    for i in 1..n {
        let (v, b) = (get(i), get(best));
        if v > b {
            best = i;
        }
    }
    best
}

pub(super) fn top_k(ins: &[Option<&Fact>], ax: i64, largest: bool) -> Result<Vec<Fact>, OpError> {
    let (x, xs) = shaped(ins, 0, "data")?;
    let a = axis(ax, xs.len())?;
    let k = int_input(ins, 1, "k")?;
    let [k] = k[..] else { return Err(refuse!("k holds {} values; expected one", k.len())) };
    let k = usize::try_from(k).map_err(|_| refuse!("k is {k}; expected a count from 0"))?;
    if xs[a].value().is_some_and(|n| (n as u64) < k as u64) {
        return Err(refuse!("k is {k}, past the {} values along axis {a}", show(&xs[a..=a])));
    }
    let mut shape = xs.to_vec();
    shape[a] = Sym::known(k as i64);
    let (vals, idx) = (Fact::new(x.elem, shape.clone()), Fact::new(Elem::I64, shape));
    let Some((v, ext)) = floats(x, xs) else { return Ok(vec![vals, idx]) };
    let (outer, n, inner) = around(&ext, a);
    let (mut picked, mut order) = (vec![0.0; outer * k * inner], vec![Sym::known(0); outer * k * inner]);
    let mut line: Vec<usize> = Vec::with_capacity(n);
    for o in 0..outer {
        for r in 0..inner {
            let get = |i: usize| v[(o * n + i) * inner + r];
            line.clear();
            line.extend(0..n);
            // A stable sort keeps equal values in the order of their indices; NaN goes last.
            line.sort_by(|&i, &j| {
                let (p, q) = (get(i), get(j));
                let ord = if largest { q.partial_cmp(&p) } else { p.partial_cmp(&q) };
                ord.unwrap_or_else(|| p.is_nan().cmp(&q.is_nan()))
            });
            for (t, &i) in line.iter().take(k).enumerate() {
                let at = (o * k + t) * inner + r;
                picked[at] = get(i);
                order[at] = Sym::known(i as i64);
            }
        }
    }
    let picked = values(x.elem, picked.len(), |i| picked[i]);
    Ok(vec![Fact { value: Some(picked), ..vals }, Fact { value: Some(Data::Int(order)), ..idx }])
}

pub(super) fn hardmax(ins: &[Option<&Fact>], ax: i64) -> Result<Vec<Fact>, OpError> {
    let (x, xs) = shaped(ins, 0, "data")?;
    let a = axis(ax, xs.len())?;
    let out = Fact::new(x.elem, xs.to_vec());
    let Some((v, ext)) = floats(x, xs) else { return Ok(vec![out]) };
    let (outer, n, inner) = around(&ext, a);
    let mut y = vec![0.0; v.len()];
    for o in 0..outer {
        for r in 0..inner {
            if n > 0 {
                let i = extreme(n, |i| v[(o * n + i) * inner + r]);
                y[(o * n + i) * inner + r] = 1.0;
            }
        }
    }
    Ok(vec![Fact { value: Some(values(x.elem, y.len(), |i| y[i])), ..out }])
}

pub(super) fn one_hot(ins: &[Option<&Fact>], ax: i64) -> Result<Vec<Fact>, OpError> {
    let (ix, is) = shaped(ins, 0, "indices")?;
    let depth = shaped(ins, 1, "depth")?.0;
    let (vals, _) = shaped(ins, 2, "values")?;
    if vals.known_len().is_some_and(|n| n != 2) {
        return Err(refuse!("values holds {} numbers; expected two (off, on)", vals.known_len().unwrap_or(0)));
    }
    let d = depth.value.as_ref().and_then(Data::floats).and_then(|v| v.first().copied());
    let d = d.ok_or_else(|| OpError::NotConstant { what: "depth".to_owned() })?;
    // ONNX rounds a float depth down.
    let d = d.floor();
    if !(1.0..=MAX_FOLDED_ELEMENTS as f64).contains(&d) {
        return Err(refuse!("depth is {d}; expected a count from 1 to {MAX_FOLDED_ELEMENTS}"));
    }
    let d = d as usize;
    let a = axis(ax, is.len() + 1)?;
    let mut shape = is.to_vec();
    shape.insert(a, Sym::known(d as i64));
    let out = Fact::new(vals.elem, shape);
    let (Some(ext), Some(iv), Some(vv)) =
        (known(is), ix.value.as_ref().and_then(Data::floats), vals.value.as_ref().and_then(Data::floats))
    else {
        return Ok(vec![out]);
    };
    let (outer, inner) = (ext[..a].iter().product::<usize>(), ext[a..].iter().product::<usize>());
    let n = outer * d * inner;
    let on_at = |o: usize, t: usize, r: usize| {
        let i = iv[o * inner + r].trunc();
        let i = if i < 0.0 { i + d as f64 } else { i };
        i == t as f64
    };
    let y = values(vals.elem, n, |p| {
        let (o, t, r) = (p / (d * inner), p / inner % d, p % inner);
        if on_at(o, t, r) { vv[1] } else { vv[0] }
    });
    Ok(vec![Fact { value: Some(y), ..out }])
}

pub(super) fn non_zero(ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    let (x, xs) = shaped(ins, 0, "data")?;
    let (v, ext) = floats(x, xs).ok_or_else(|| OpError::NotConstant {
        what: "its data (how many values NonZero gives depends on them)".to_owned(),
    })?;
    let mut at = vec![0; ext.len()];
    let hits: Vec<usize> = (0..v.len()).filter(|&i| v[i] != 0.0).collect();
    let mut rows = vec![Sym::known(0); ext.len() * hits.len()];
    for (c, &i) in hits.iter().enumerate() {
        unflatten(i, &ext, &mut at);
        for (k, &x) in at.iter().enumerate() {
            rows[k * hits.len() + c] = Sym::known(x as i64);
        }
    }
    let shape = vec![Sym::known(ext.len() as i64), Sym::known(hits.len() as i64)];
    Ok(vec![Fact::constant(Elem::I64, shape, Data::Int(rows))])
}
