//! Index arithmetic shared by the op families: extents, strides, axes, numpy broadcasting.
//! A constant whose shape has symbolic dimensions holds its values as if each such
//! dimension had extent 1: it is the same along them (a zero state broadcast to `[1, ?, H]`).
use super::error::{OpError, refuse};
use crate::limits::MAX_FOLDED_ELEMENTS;
use crate::vocab::{Data, Fact, Sym};

/// Extents of the stored values of a shape (symbolic dimensions count 1), when every
/// dimension is known or symbolic and the total is within what folding computes.
pub(crate) fn extents(shape: &[Sym]) -> Option<Vec<usize>> {
    let ext: Vec<usize> =
        shape.iter().map(|d| if d.is_known() { usize::try_from(d.c).ok() } else { Some(1) }).collect::<Option<_>>()?;
    let total = ext.iter().try_fold(1usize, |a, &e| a.checked_mul(e))?;
    (total as u64 <= MAX_FOLDED_ELEMENTS).then_some(ext)
}

/// Row-major strides of extents.
pub(crate) fn strides(ext: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; ext.len()];
    for i in (0..ext.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * ext[i + 1];
    }
    s
}

/// Number of stored values.
pub(crate) fn count(ext: &[usize]) -> usize {
    ext.iter().product()
}

/// The multi-index of flat index `i`.
pub(crate) fn unflatten(mut i: usize, ext: &[usize], out: &mut [usize]) {
    for k in (0..ext.len()).rev() {
        let e = ext[k].max(1);
        out[k] = i % e;
        i /= e;
    }
}

/// Normalises an axis in `[-rank, rank)`.
pub(crate) fn axis(a: i64, rank: usize) -> Result<usize, OpError> {
    let r = i64::try_from(rank).map_err(|_| OpError::Axis { axis: a, rank })?;
    let n = if a < 0 { a + r } else { a };
    if (0..r).contains(&n) { Ok(n as usize) } else { Err(OpError::Axis { axis: a, rank }) }
}

/// Numpy broadcasting of two shapes.
pub(crate) fn broadcast(a: &[Sym], b: &[Sym]) -> Result<Vec<Sym>, OpError> {
    let rank = a.len().max(b.len());
    let one = Sym::known(1);
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let da = if i + a.len() >= rank { a[i + a.len() - rank] } else { one };
        let db = if i + b.len() >= rank { b[i + b.len() - rank] } else { one };
        // Two different dynamic dimensions are taken to be equal, as OpenVINO takes them; the
        // fold pass then unifies their symbols (see `passes::fold`).
        let both_symbols = !da.is_known() && !db.is_known() && da.c == 0 && db.c == 0 && da.k == 1 && db.k == 1;
        let d = if both_symbols {
            da.min(db)
        } else if da == db || db == one {
            da
        } else if da == one {
            db
        } else {
            return Err(OpError::Broadcast { a: a.to_vec(), b: b.to_vec() });
        };
        out.push(d);
    }
    Ok(out)
}

/// For each stored value of a tensor of shape `out` (as extents), the index of the value of
/// an input of shape `input` broadcast to it (numpy rules, checked by the caller).
pub(crate) fn broadcast_map(input: &[usize], out: &[usize]) -> Vec<usize> {
    let rank = out.len();
    let lead = rank - input.len();
    let ist = strides(input);
    let mut idx = vec![0usize; rank];
    (0..count(out))
        .map(|i| {
            unflatten(i, out, &mut idx);
            (0..input.len()).map(|k| if input[k] == 1 { 0 } else { idx[k + lead] * ist[k] }).sum()
        })
        .collect()
}

pub(crate) use crate::vocab::show_syms as show;

/// A constant's values as whole numbers, for inputs that must be known (axes, shapes).
pub(crate) fn ints(d: Option<&Data>, what: &str) -> Result<Vec<Sym>, OpError> {
    d.and_then(Data::ints).ok_or_else(|| OpError::NotConstant { what: what.to_owned() })
}

/// A constant's values as known whole numbers.
pub(crate) fn known_ints(d: Option<&Data>, what: &str) -> Result<Vec<i64>, OpError> {
    ints(d, what)?
        .into_iter()
        .map(|s| s.value().ok_or_else(|| OpError::Dynamic { what: what.to_owned(), dim: s }))
        .collect()
}

/// The known whole numbers of input `i`, which must be of an integer type: an index, a
/// pad, a size or an axis, which OpenVINO takes as integers only (a float input holding
/// whole numbers is refused, not rounded).
pub(crate) fn int_input(ins: &[Option<&Fact>], i: usize, what: &str) -> Result<Vec<i64>, OpError> {
    let f = input(ins, i, what)?;
    if f.elem.is_float() {
        return Err(refuse!("{what} is {}; expected an integer type (i32 or i64)", f.elem.name()));
    }
    known_ints(f.value.as_ref(), what)
}

/// The input `i`, or an error naming it.
pub(crate) fn input<'a>(ins: &[Option<&'a Fact>], i: usize, what: &str) -> Result<&'a Fact, OpError> {
    ins.get(i).copied().flatten().ok_or_else(|| OpError::Unconnected { index: i, what: what.to_owned() })
}

/// The shape of input `i`, when its rank is known.
pub(crate) fn input_shape<'a>(
    ins: &[Option<&'a Fact>],
    i: usize,
    what: &str,
) -> Result<&'a [crate::vocab::Sym], OpError> {
    input(ins, i, what)?.shape.as_deref().ok_or_else(|| OpError::UnknownShape { index: i, what: what.to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        let k = Sym::known;
        let n = Sym::symbol(0);
        assert_eq!(broadcast(&[k(2), k(1), k(4)], &[k(3), k(1)]), Ok(vec![k(2), k(3), k(4)]));
        assert_eq!(broadcast(&[n, k(4)], &[k(4)]), Ok(vec![n, k(4)]));
        assert!(broadcast(&[k(2)], &[k(3)]).is_err());
        assert_eq!(broadcast_map(&[3, 1], &[2, 3, 4])[..5], [0, 0, 0, 0, 1]);
        assert_eq!(axis(-1, 3), Ok(2));
        assert!(axis(3, 3).is_err());
    }
}
