//! What the evaluators of the compile-time ops share: known extents, inputs with their
//! shapes, values of a type, the extents around an axis.
use crate::ops::error::OpError;
use crate::ops::tensor::{input, input_shape};
use crate::vocab::{Data, Elem, Fact, Sym};

/// Every extent of a shape, when all are known (what computing a value needs).
pub(super) fn known(shape: &[Sym]) -> Option<Vec<usize>> {
    shape.iter().map(|d| usize::try_from(d.value()?).ok()).collect()
}

/// Input `i`'s fact and shape.
pub(super) fn shaped<'a>(ins: &[Option<&'a Fact>], i: usize, what: &str) -> Result<(&'a Fact, &'a [Sym]), OpError> {
    Ok((input(ins, i, what)?, input_shape(ins, i, what)?))
}

/// A value of `n` numbers `f(i)`, as floats or whole numbers by `elem`.
pub(super) fn values(elem: Elem, n: usize, f: impl Fn(usize) -> f64) -> Data {
    if elem.is_float() {
        Data::Float((0..n).map(|i| elem.round(f(i))).collect())
    } else {
        Data::Int((0..n).map(|i| Sym::known(f(i) as i64)).collect())
    }
}

/// `(outer, n, inner)`: the extents before the axis, along it, and after it.
pub(super) fn around(ext: &[usize], a: usize) -> (usize, usize, usize) {
    (ext[..a].iter().product(), ext[a], ext[a + 1..].iter().product())
}
