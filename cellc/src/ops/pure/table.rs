//! The ops that build tables or transform values whole: `CumSum`/`CumProd`, `Trilu`,
//! `EyeLike`, `IsNaN`/`IsInf`, the windows (`HannWindow`, `HammingWindow`,
//! `BlackmanWindow`) and the bitwise functions.
use super::common::{around, known, shaped, values};
use crate::limits::MAX_FOLDED_ELEMENTS;
use crate::ops::error::{OpError, refuse};
use crate::ops::tensor::{broadcast, broadcast_map, int_input, show};
use crate::vocab::{Data, Elem, Fact, Sym};

/// Which values `IsNaN`/`IsInf` find.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// NaN.
    Nan,
    /// Infinities: +∞ when `positive`, −∞ when `negative`.
    Inf {
        /// +∞.
        positive: bool,
        /// −∞.
        negative: bool,
    },
}

impl Class {
    /// The ONNX op.
    pub fn name(self) -> &'static str {
        match self {
            Class::Nan => "IsNaN",
            Class::Inf { .. } => "IsInf",
        }
    }

    fn holds(self, x: f64) -> bool {
        match self {
            Class::Nan => x.is_nan(),
            Class::Inf { positive, negative } => {
                (positive && x == f64::INFINITY) || (negative && x == f64::NEG_INFINITY)
            }
        }
    }
}

/// The windows ONNX defines (opset 17), each a sum of cosines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowKind {
    /// `½ − ½·cos(2πn/N)`.
    Hann,
    /// `α − (1 − α)·cos(2πn/N)`, α = 25/46.
    Hamming,
    /// `0.42 − ½·cos(2πn/N) + 0.08·cos(4πn/N)`.
    Blackman,
}

impl WindowKind {
    /// The ONNX op.
    pub fn name(self) -> &'static str {
        match self {
            WindowKind::Hann => "HannWindow",
            WindowKind::Hamming => "HammingWindow",
            WindowKind::Blackman => "BlackmanWindow",
        }
    }
}

/// Bitwise functions of whole numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bits {
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `a ^ b`.
    Xor,
    /// `!a` (one input).
    Not,
    /// `a << b` (`BitShift` to the left).
    Left,
    /// `a >> b` (`BitShift` to the right).
    Right,
}

impl Bits {
    /// The ONNX op.
    pub fn name(self) -> &'static str {
        match self {
            Bits::And => "BitwiseAnd",
            Bits::Or => "BitwiseOr",
            Bits::Xor => "BitwiseXor",
            Bits::Not => "BitwiseNot",
            Bits::Left | Bits::Right => "BitShift",
        }
    }
}

pub(super) fn cumulative(
    ins: &[Option<&Fact>],
    product: bool,
    exclusive: bool,
    reverse: bool,
) -> Result<Vec<Fact>, OpError> {
    let (x, xs) = shaped(ins, 0, "x")?;
    // OpenVINO's axis input is optional (0 without it).
    let a = match ins.get(1).copied().flatten() {
        Some(_) => int_input(ins, 1, "the axis")?,
        None => vec![0],
    };
    let [a] = a[..] else { return Err(refuse!("the axis holds {} values; expected one", a.len())) };
    let a = crate::ops::tensor::axis(a, xs.len())?;
    let out = Fact::new(x.elem, xs.to_vec());
    let (Some(ext), Some(v)) = (known(xs), x.value.as_ref()) else { return Ok(vec![out]) };
    let (outer, n, inner) = around(&ext, a);
    let value = match v {
        Data::Float(v) => {
            let mut y = vec![0.0; v.len()];
            for o in 0..outer {
                for r in 0..inner {
                    let mut acc = if product { 1.0 } else { 0.0 };
                    for t in 0..n {
                        let i = if reverse { n - 1 - t } else { t };
                        let at = (o * n + i) * inner + r;
                        let next = x.elem.round(if product { acc * v[at] } else { acc + v[at] });
                        y[at] = if exclusive { acc } else { next };
                        acc = next;
                    }
                }
            }
            Data::Float(y)
        }
        Data::Int(v) => {
            let v: Vec<i64> = v.iter().map(|s| s.value()).collect::<Option<_>>().ok_or_else(|| {
                OpError::NotConstant { what: "x (its values depend on a dynamic dimension)".to_owned() }
            })?;
            let mut y = vec![Sym::known(0); v.len()];
            let overflow =
                || refuse!("the running {} overflows {}", if product { "product" } else { "sum" }, x.elem.name());
            for o in 0..outer {
                for r in 0..inner {
                    let mut acc: i64 = if product { 1 } else { 0 };
                    for t in 0..n {
                        let i = if reverse { n - 1 - t } else { t };
                        let at = (o * n + i) * inner + r;
                        let next = if product { acc.checked_mul(v[at]) } else { acc.checked_add(v[at]) };
                        let next = next.and_then(|s| x.elem.wrap(s)).ok_or_else(overflow)?;
                        y[at] = Sym::known(if exclusive { acc } else { next });
                        acc = next;
                    }
                }
            }
            Data::Int(y)
        }
    };
    Ok(vec![Fact { value: Some(value), ..out }])
}

pub(super) fn trilu(ins: &[Option<&Fact>], upper: bool) -> Result<Vec<Fact>, OpError> {
    let (x, xs) = shaped(ins, 0, "input")?;
    if xs.len() < 2 {
        return Err(refuse!("the input has shape {}; expected two axes or more", show(xs)));
    }
    let k = match ins.get(1).copied().flatten() {
        Some(_) => {
            let k = int_input(ins, 1, "k")?;
            let [k] = k[..] else { return Err(refuse!("k holds {} values; expected one", k.len())) };
            k
        }
        None => 0,
    };
    let out = Fact::new(x.elem, xs.to_vec());
    let (Some(ext), Some(v)) = (known(xs), x.value.as_ref()) else { return Ok(vec![out]) };
    let (rows, cols) = (ext[ext.len() - 2], ext[ext.len() - 1]);
    let keep: Vec<usize> = (0..v.len())
        .filter(|&p| {
            let (i, j) = ((p / cols % rows) as i64, (p % cols) as i64);
            if upper { j - i >= k } else { j - i <= k }
        })
        .collect();
    let mut y = match v {
        Data::Float(_) => Data::Float(vec![0.0; v.len()]),
        Data::Int(_) => Data::Int(vec![Sym::known(0); v.len()]),
    };
    match (&mut y, v) {
        (Data::Float(y), Data::Float(v)) => keep.iter().for_each(|&p| y[p] = v[p]),
        (Data::Int(y), Data::Int(v)) => keep.iter().for_each(|&p| y[p] = v[p]),
        _ => {}
    }
    Ok(vec![Fact { value: Some(y), ..out }])
}

pub(super) fn eye_like(ins: &[Option<&Fact>], k: i64, elem: Option<Elem>) -> Result<Vec<Fact>, OpError> {
    let (x, xs) = shaped(ins, 0, "input")?;
    if xs.len() != 2 {
        return Err(refuse!("the input has shape {}; expected a matrix", show(xs)));
    }
    let elem = elem.unwrap_or(x.elem);
    let out = Fact::new(elem, xs.to_vec());
    let Some(ext) = known(xs) else { return Ok(vec![out]) };
    let cols = ext[1];
    let y = values(elem, ext[0] * cols, |p| f64::from(u8::from((p % cols) as i64 - (p / cols) as i64 == k)));
    Ok(vec![Fact { value: Some(y), ..out }])
}

pub(super) fn class(ins: &[Option<&Fact>], c: Class) -> Result<Vec<Fact>, OpError> {
    let (x, xs) = shaped(ins, 0, "x")?;
    let out = Fact::new(Elem::Bool, xs.to_vec());
    let Some(v) = x.value.as_ref().and_then(Data::floats) else { return Ok(vec![out]) };
    let y = Data::Int(v.iter().map(|&x| Sym::known(i64::from(c.holds(x)))).collect());
    Ok(vec![Fact { value: Some(y), ..out }])
}

pub(super) fn window(
    ins: &[Option<&Fact>],
    kind: WindowKind,
    periodic: bool,
    elem: Elem,
) -> Result<Vec<Fact>, OpError> {
    let size = int_input(ins, 0, "size")?;
    let [size] = size[..] else { return Err(refuse!("size holds {} values; expected one", size.len())) };
    if !(0..=MAX_FOLDED_ELEMENTS as i64).contains(&size) {
        return Err(refuse!("size is {size}; expected a count from 0 to {MAX_FOLDED_ELEMENTS}"));
    }
    let n = size as usize;
    let span = if periodic { n as f64 } else { n as f64 - 1.0 };
    let y = values(elem, n, |i| {
        let t = 2.0 * core::f64::consts::PI * i as f64 / span;
        match kind {
            WindowKind::Hann => 0.5 - 0.5 * t.cos(),
            WindowKind::Hamming => 25.0 / 46.0 - 21.0 / 46.0 * t.cos(),
            WindowKind::Blackman => 0.42 - 0.5 * t.cos() + 0.08 * (2.0 * t).cos(),
        }
    });
    // A window of one point is 1 (the formula divides 0 by 0 when symmetric).
    let y = if n == 1 { values(elem, 1, |_| 1.0) } else { y };
    Ok(vec![Fact::constant(elem, vec![Sym::known(size)], y)])
}

pub(super) fn bits(ins: &[Option<&Fact>], b: Bits) -> Result<Vec<Fact>, OpError> {
    let (x, xs) = shaped(ins, 0, "A")?;
    if x.elem.is_float() {
        return Err(refuse!("{} of {} values; expected whole numbers", b.name(), x.elem.name()));
    }
    let width = 8 * x.elem.size() as u32;
    let known_ints = |f: &Fact| f.value.as_ref().and_then(Data::known_ints);
    if b == Bits::Not {
        let out = Fact::new(x.elem, xs.to_vec());
        let Some(v) = known_ints(x) else { return Ok(vec![out]) };
        let y = v.iter().map(|&a| x.elem.wrap(!a).map(Sym::known)).collect::<Option<Vec<_>>>();
        return Ok(vec![Fact { value: y.map(Data::Int), ..out }]);
    }
    let (y, ys) = shaped(ins, 1, "B")?;
    if y.elem != x.elem {
        return Err(refuse!("{} of {} and {} values; expected one type", b.name(), x.elem.name(), y.elem.name()));
    }
    let shape = broadcast(xs, ys)?;
    let out = Fact::new(x.elem, shape.clone());
    let (Some(av), Some(bv), Some(ae), Some(be), Some(oe)) =
        (known_ints(x), known_ints(y), known(xs), known(ys), known(&shape))
    else {
        return Ok(vec![out]);
    };
    let (ma, mb) = (broadcast_map(&ae, &oe), broadcast_map(&be, &oe));
    let v = ma
        .iter()
        .zip(&mb)
        .map(|(&i, &j)| {
            let (p, q) = (av[i], bv[j]);
            let r = match b {
                Bits::And => p & q,
                Bits::Or => p | q,
                Bits::Xor => p ^ q,
                // ONNX shifts unsigned values: past the type's width nothing is left.
                Bits::Left => u32::try_from(q).ok().filter(|&q| q < width).map_or(0, |q| p.wrapping_shl(q)),
                Bits::Right => u32::try_from(q).ok().filter(|&q| q < width).map_or(0, |q| ((p as u64) >> q) as i64),
                Bits::Not => !p,
            };
            x.elem.wrap(r).map(Sym::known)
        })
        .collect::<Option<Vec<_>>>();
    Ok(vec![Fact { value: v.map(Data::Int), ..out }])
}
