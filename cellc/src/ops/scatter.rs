//! `ScatterUpdate` (opset 3), `ScatterNDUpdate` (opset 3, and 15 with each reduction) and
//! `ScatterElementsUpdate` (ONNX's `ScatterElements`) with indices known at compile time:
//! the data with some of its values (or slices) replaced by the updates, as streaming models
//! write their caches and filterbanks are built, or combined with them.
//! `passes::lower` makes a gather by a table of it over the data and the updates joined,
//! and for a reduction one elementwise step per round of updates.
use super::error::{OpError, refuse, unpinned};
use super::tensor::{axis, count, extents, int_input, show, strides, unflatten};
use super::tensor::{input, input_shape};
use crate::vocab::{Data, Fact, Sym};

/// Which scatter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scatter {
    /// `ScatterUpdate`: the indices pick positions along one axis (input 3).
    Axis,
    /// `ScatterNDUpdate`: each index row picks a value or a slice.
    Nd,
    /// `ScatterNDUpdate-15` with a `reduction`: each update combined, in order, with the
    /// value at its position.
    NdReduce(Reduction),
    /// `ScatterElementsUpdate` (ONNX's `ScatterElements`): each update goes where its own
    /// position does, with its index in place of the coordinate along one axis (input 3),
    /// combined with the value there when `Some`.
    Elements(Option<Reduction>),
}

impl Scatter {
    /// How an update combines with the value at its position (`None`: it replaces it).
    pub fn reduction(self) -> Option<Reduction> {
        match self {
            Scatter::Axis | Scatter::Nd => None,
            Scatter::NdReduce(r) => Some(r),
            Scatter::Elements(r) => r,
        }
    }
}

/// How `ScatterNDUpdate-15` combines an update with the value at its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// `x + u`.
    Sum,
    /// `x − u`.
    Sub,
    /// `x · u`.
    Prod,
    /// The smaller.
    Min,
    /// The larger.
    Max,
}

impl Reduction {
    /// The reduction OpenVINO names `name` (`none` is no reduction: `None`), if it is one.
    pub fn parse(name: &str) -> Option<Option<Reduction>> {
        Some(Some(match name {
            "none" => return Some(None),
            "sum" => Reduction::Sum,
            "sub" => Reduction::Sub,
            "prod" => Reduction::Prod,
            "min" => Reduction::Min,
            "max" => Reduction::Max,
            _ => return None,
        }))
    }

    /// The elementwise function of the value and the update.
    pub fn binary(self) -> crate::vocab::Binary {
        use crate::vocab::Binary;
        match self {
            Reduction::Sum => Binary::Add,
            Reduction::Sub => Binary::Subtract,
            Reduction::Prod => Binary::Multiply,
            Reduction::Min => Binary::Minimum,
            Reduction::Max => Binary::Maximum,
        }
    }
}

/// For each value of the output, where it comes from: `Ok(i)` value `i` of the data,
/// `Err(j)` value `j` of the updates (the last update of a position wins).
pub fn sources(kind: Scatter, ins: &[Option<&Fact>]) -> Result<Vec<Result<usize, usize>>, OpError> {
    let (len, writes) = writes(kind, ins)?;
    let mut from: Vec<Result<usize, usize>> = (0..len).map(Ok).collect();
    for (at, j) in writes {
        from[at] = Err(j);
    }
    Ok(from)
}

/// The values of the data (how many) and where each value of the updates goes, `(output
/// position, update)`, in the order the updates apply.
pub fn writes(kind: Scatter, ins: &[Option<&Fact>]) -> Result<(usize, Vec<(usize, usize)>), OpError> {
    let ds = input_shape(ins, 0, "data")?;
    let is = input_shape(ins, 1, "indices")?;
    let us = input_shape(ins, 2, "updates")?;
    let known = |s: &[Sym], what: &str| {
        s.iter()
            .map(|d| d.value().and_then(|v| usize::try_from(v).ok()))
            .collect::<Option<Vec<usize>>>()
            .ok_or_else(|| unpinned!("the {what} shape {} must be known at compile time", show(s)))
    };
    let (dext, iext, uext) = (known(ds, "data")?, known(is, "indices")?, known(us, "updates")?);
    let idx = int_input(ins, 1, "the indices")?;
    let mut writes = Vec::with_capacity(count(&uext));
    let dst = strides(&dext);
    let norm = |i: i64, dim: usize| -> Result<usize, OpError> {
        let n = dim as i64;
        let j = if i < 0 { i + n } else { i };
        usize::try_from(j)
            .ok()
            .filter(|&j| j < dim)
            .ok_or_else(|| refuse!("index {i} is out of range for a dimension of {dim}"))
    };
    match kind {
        Scatter::Axis => {
            let a = int_input(ins, 3, "the axis")?;
            let [a] = a[..] else { return Err(OpError::Rule("the axis must be one number".to_owned())) };
            let a = axis(a, dext.len())?;
            // updates: data[..a] ++ indices ++ data[a+1..].
            let want: Vec<usize> = [&dext[..a], &iext[..], &dext[a + 1..]].concat();
            if uext != want {
                return Err(refuse!("the updates have shape {}; expected {want:?}", show(us)));
            }
            let mut u_idx = vec![0; uext.len()];
            for j in 0..count(&uext) {
                unflatten(j, &uext, &mut u_idx);
                let flat_i: usize = u_idx[a..a + iext.len()].iter().zip(strides(&iext)).map(|(x, s)| x * s).sum();
                // OpenVINO's CPU plugin refuses negative indices here (ScatterNDUpdate counts
                // them from the end).
                let i = idx[flat_i];
                if i < 0 {
                    return Err(refuse!("index {i}: ScatterUpdate takes indices from 0 to {}", dext[a] - 1));
                }
                let pos = norm(i, dext[a])?;
                let mut at = 0;
                for (k, &s) in dst.iter().enumerate() {
                    let x = if k < a {
                        u_idx[k]
                    } else if k == a {
                        pos
                    } else {
                        u_idx[k - 1 + iext.len()]
                    };
                    at += x * s;
                }
                writes.push((at, j));
            }
        }
        Scatter::Elements(_) => {
            let a = int_input(ins, 3, "the axis")?;
            let [a] = a[..] else { return Err(OpError::Rule("the axis must be one number".to_owned())) };
            let a = axis(a, dext.len())?;
            if iext != uext || iext.len() != dext.len() {
                return Err(refuse!(
                    "indices of shape {} and updates of shape {} for data of shape {}; expected indices and updates of one shape, of the data's rank",
                    show(is),
                    show(us),
                    show(ds)
                ));
            }
            if let Some(k) = (0..dext.len()).find(|&k| k != a && iext[k] > dext[k]) {
                return Err(refuse!("the indices' dimension {k} is {}, past the data's {}", iext[k], dext[k]));
            }
            let mut u_idx = vec![0; uext.len()];
            for (j, &i) in idx.iter().enumerate().take(count(&uext)) {
                unflatten(j, &uext, &mut u_idx);
                u_idx[a] = norm(i, dext[a])?;
                writes.push((u_idx.iter().zip(&dst).map(|(x, s)| x * s).sum(), j));
            }
        }
        Scatter::Nd | Scatter::NdReduce(_) => {
            let depth = *iext.last().ok_or_else(|| refuse!("the indices have no axes"))?;
            if depth == 0 || depth > dext.len() {
                return Err(refuse!("index rows of {depth} values for data of rank {}", dext.len()));
            }
            let rows = count(&iext[..iext.len() - 1]);
            let slice: usize = count(&dext[depth..]);
            let want: Vec<usize> = [&iext[..iext.len() - 1], &dext[depth..]].concat();
            if uext != want {
                return Err(refuse!("the updates have shape {}; expected {want:?}", show(us)));
            }
            for r in 0..rows {
                let mut base = 0;
                for k in 0..depth {
                    base += norm(idx[r * depth + k], dext[k])? * dst[k];
                }
                writes.extend((0..slice).map(|e| (base + e, r * slice + e)));
            }
        }
    }
    Ok((count(&dext), writes))
}

pub(super) fn infer(kind: Scatter, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    let data = input(ins, 0, "data")?;
    let updates = input(ins, 2, "updates")?;
    if updates.elem != data.elem {
        return Err(refuse!("the updates are {} for {} data", updates.elem.name(), data.elem.name()));
    }
    if let Some(r) = kind.reduction() {
        let (_, writes) = writes(kind, ins)?;
        let value = (|| {
            let (mut d, u) = (data.value.as_ref()?.floats()?, updates.value.as_ref()?.floats()?);
            extents(data.shape.as_deref()?)?;
            if !data.elem.is_float() {
                return None;
            }
            for (at, j) in writes {
                d[at] = data.elem.round(r.binary().apply(d[at], u[j]));
            }
            Some(Data::Float(d))
        })();
        return Ok(vec![Fact { elem: data.elem, shape: data.shape.clone(), value }]);
    }
    let from = sources(kind, ins)?;
    let value = (|| {
        let (d, u) = (data.value.as_ref()?, updates.value.as_ref()?);
        extents(data.shape.as_deref()?)?;
        Some(match (d, u) {
            (Data::Float(d), Data::Float(u)) => Data::Float(
                from.iter()
                    .map(|f| match *f {
                        Ok(i) => d[i],
                        Err(j) => u[j],
                    })
                    .collect(),
            ),
            _ => {
                let (d, u) = (d.ints()?, u.ints()?);
                Data::Int(
                    from.iter()
                        .map(|f| match *f {
                            Ok(i) => d[i],
                            Err(j) => u[j],
                        })
                        .collect(),
                )
            }
        })
    })();
    Ok(vec![Fact { elem: data.elem, shape: data.shape.clone(), value }])
}
