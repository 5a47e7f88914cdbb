//! `Interpolate` (opset 4 and 11): resizing along some axes after a zero padding, as the
//! opset spec and OpenVINO's reference define it. Every mode cellc takes (nearest, linear
//! with or without antialiasing, linear_onnx, cubic) is separable: an output value along
//! an interpolated axis is a weighted sum of a few input values along it (its taps), and
//! the resize is one such sum per axis in turn. That is how values are folded here and how
//! `passes::lower` writes it: gathers of the taps by constant tables, weighted and added.
use super::error::{OpError, refuse, unpinned};
use super::tensor::{axis, extents, int_input, strides, unflatten};
use super::tensor::{input, input_shape};
use crate::vocab::{Data, Fact, Sym};

/// What an interpolated value is made of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    /// The nearest input value, by the rounding given.
    Nearest(Rounding),
    /// A triangle filter, normalised over the taps inside the input (`linear`); as wide
    /// as the scale makes it when downsampling with `antialias` (which `resolve` refuses:
    /// OpenVINO's CPU plugin does not widen it).
    Linear {
        /// `antialias`.
        antialias: bool,
    },
    /// The two neighbours, the coordinate clamped into the input (`linear_onnx`).
    LinearOnnx,
    /// Keys' cubic convolution over four neighbours, clamped (`cubic`, `cube_coeff`).
    Cubic(f64),
}

/// `nearest_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// `round_prefer_floor`.
    PreferFloor,
    /// `round_prefer_ceil`.
    PreferCeil,
    /// `floor`.
    Floor,
    /// `ceil`.
    Ceil,
    /// `simple`: `ceil` when downsampling, else the integer part.
    Simple,
}

/// `coordinate_transformation_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coord {
    /// `half_pixel`.
    HalfPixel,
    /// `pytorch_half_pixel`.
    PytorchHalfPixel,
    /// `asymmetric`.
    Asymmetric,
    /// `tf_half_pixel_for_nn`.
    TfHalfPixelForNn,
    /// `align_corners`.
    AlignCorners,
}

/// The input port of the data.
pub const DATA: usize = 0;
/// The input port of the target: the sizes or the scales, as `by_sizes` says (a front-end
/// connects the one its format's attributes choose: OpenVINO's opset 4 has a port for each).
pub const TARGET: usize = 1;
/// The input port of the axes interpolated (optional: every axis).
pub const AXES: usize = 2;

/// An `Interpolate` layer's attributes; its inputs are [`DATA`], [`TARGET`] and [`AXES`].
#[derive(Clone, Debug, PartialEq)]
pub struct Interp {
    /// `mode` (with `nearest_mode`, `antialias` or `cube_coeff`).
    pub mode: Mode,
    /// `shape_calculation_mode` is `sizes` (else `scales`).
    pub by_sizes: bool,
    /// `coordinate_transformation_mode`.
    pub coord: Coord,
    /// `pads_begin` (zeros past its end).
    pub pads_begin: Vec<i64>,
    /// `pads_end`.
    pub pads_end: Vec<i64>,
}

/// For each output position of one axis, the input positions it sums and their weights.
pub type Taps = Vec<Vec<(usize, f64)>>;

/// An `Interpolate` resolved on known shapes: the zero padding, then one resize per axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Resize {
    /// Pads before and after each axis.
    pub pads: Vec<(usize, usize)>,
    /// The padded input's extents.
    pub padded: Vec<usize>,
    /// The output's extents.
    pub out: Vec<usize>,
    /// Each interpolated axis (ascending) and its scale; [`Resize::taps`] gives its taps,
    /// built only where they are read (an axis may have millions: shape inference needs
    /// only the extents).
    pub axes: Vec<(usize, f32)>,
    /// The layer.
    interp: Interp,
    /// Whether any axis is downsampled.
    downsample: bool,
}

/// Output positions an `Interpolate` may have on one axis (its taps are built one by one).
const MAX_AXIS: usize = 1 << 22;

impl Coord {
    /// The input coordinate of output position `x` (f32, as OpenVINO computes it).
    fn original(self, x: usize, scale: f32, out: usize, len: usize) -> f32 {
        let x = x as f32;
        match self {
            Coord::HalfPixel => (x + 0.5) / scale - 0.5,
            Coord::PytorchHalfPixel if out > 1 => (x + 0.5) / scale - 0.5,
            Coord::PytorchHalfPixel => 0.0,
            Coord::Asymmetric => x / scale,
            Coord::TfHalfPixelForNn => (x + 0.5) / scale,
            Coord::AlignCorners if out == 1 => 0.0,
            Coord::AlignCorners => x * (len as f32 - 1.0) / (out as f32 - 1.0),
        }
    }
}

impl Rounding {
    fn apply(self, x: f32, downsample: bool) -> i64 {
        let r = match self {
            Rounding::PreferFloor if x == x.floor() + 0.5 => x.floor(),
            Rounding::PreferFloor | Rounding::PreferCeil => x.round(),
            Rounding::Floor => x.floor(),
            Rounding::Ceil => x.ceil(),
            Rounding::Simple if downsample => x.ceil(),
            Rounding::Simple => x.trunc(),
        };
        r as i64
    }
}

/// Keys' cubic weights of the four neighbours of a coordinate `t` past the first.
fn cubic(t: f64, a: f64) -> [f64; 4] {
    let s = t.abs();
    [
        a * (s - 1.0) * (s - 1.0) * s,
        ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0,
        (((-a - 2.0) * s + (2.0 * a + 3.0)) * s - a) * s,
        -a * s * s * (s - 1.0),
    ]
}

impl Interp {
    /// The taps of one axis of `len` (padded) input values and `out` output values,
    /// `scale` its scale and `downsample` whether any axis is downsampled.
    fn taps(&self, len: usize, out: usize, scale: f32, downsample: bool) -> Taps {
        let last = len as i64 - 1;
        let clamp = |i: i64| i.clamp(0, last) as usize;
        (0..out)
            .map(|x| {
                let c = self.coord.original(x, scale, out, len);
                match self.mode {
                    Mode::Nearest(r) => vec![(clamp(r.apply(c, scale < 1.0)), 1.0)],
                    Mode::LinearOnnx => {
                        let c = c.clamp(0.0, last as f32);
                        let (i1, i2) = (clamp(c as i64), clamp(c as i64 + 1));
                        let (d1, d2) =
                            if i1 == i2 { (0.5, 0.5) } else { ((c - i1 as f32).abs(), (c - i2 as f32).abs()) };
                        vec![(i1, f64::from(d2)), (i2, f64::from(d1))]
                    }
                    Mode::Cubic(a) => {
                        let f = c.floor();
                        let w = cubic(f64::from(c - f), a);
                        (0..4).map(|k| (clamp(f as i64 + k as i64 - 1), w[k])).collect()
                    }
                    Mode::Linear { antialias } => {
                        let a = if antialias && downsample { f64::from(scale) } else { 1.0 };
                        let r = if scale > 1.0 { 2 } else { (2.0 / a).ceil() as i64 };
                        let centre = c.round() as i64;
                        let taps: Vec<(usize, f64)> = (centre - r..=centre + r)
                            .filter(|i| (0..=last).contains(i))
                            .map(|i| (i as usize, (1.0 - (a * (f64::from(c) - i as f64)).abs()).max(0.0)))
                            .filter(|&(_, w)| w > 0.0)
                            .collect();
                        let sum: f64 = taps.iter().map(|t| t.1).sum();
                        if sum == 0.0 { Vec::new() } else { taps.into_iter().map(|(i, w)| (i, w / sum)).collect() }
                    }
                }
            })
            .collect()
    }

    /// The resize of data of extents `ext` with the layer's inputs `ins` (sizes, scales,
    /// axes as constants).
    pub fn resolve(&self, ext: &[usize], ins: &[Option<&Fact>]) -> Result<Resize, OpError> {
        let rank = ext.len();
        let axes: Vec<usize> = match ins.get(AXES).copied().flatten() {
            Some(_) => {
                int_input(ins, AXES, "the axes")?.into_iter().map(|a| axis(a, rank)).collect::<Result<_, _>>()?
            }
            None => (0..rank).collect(),
        };
        if (1..axes.len()).any(|i| axes[..i].contains(&axes[i])) {
            return Err(refuse!("`axes` {axes:?} names an axis twice"));
        }
        let pad = |v: &[i64], a: usize| -> Result<usize, OpError> {
            let p = v.get(a).copied().unwrap_or(0);
            usize::try_from(p).map_err(|_| refuse!("a pad of {p}; expected pads of 0 or more"))
        };
        let pads: Vec<(usize, usize)> = (0..rank)
            .map(|a| Ok((pad(&self.pads_begin, a)?, pad(&self.pads_end, a)?)))
            .collect::<Result<_, OpError>>()?;
        let padded: Vec<usize> = ext
            .iter()
            .zip(&pads)
            .map(|(&e, &(b, f))| e.checked_add(b).and_then(|x| x.checked_add(f)).filter(|&x| x <= MAX_AXIS))
            .collect::<Option<_>>()
            .ok_or_else(|| refuse!("a padded axis of more than {MAX_AXIS} values"))?;
        if let Some(&a) = axes.iter().find(|&&a| padded[a] == 0) {
            return Err(refuse!("interpolated axis {a} is empty"));
        }
        let name = if self.by_sizes { "sizes" } else { "scales" };
        let given = input(ins, TARGET, name)?;
        if self.by_sizes == given.elem.is_float() {
            let want = if self.by_sizes { "an integer type (i32 or i64)" } else { "a float type" };
            return Err(refuse!("the {name} are {}; expected {want}", given.elem.name()));
        }
        let values = given.value.as_ref().and_then(Data::floats);
        let values = values.ok_or_else(|| refuse!("the {name} are not known at compile time"))?;
        if values.len() != axes.len() {
            return Err(refuse!("{} {name} for {} axes", values.len(), axes.len()));
        }
        let mut out = padded.clone();
        let mut scales = Vec::with_capacity(axes.len());
        for (k, &a) in axes.iter().enumerate() {
            let (n, scale) = if self.by_sizes {
                let n = values[k];
                if !(n >= 1.0 && n <= MAX_AXIS as f64 && n.fract() == 0.0) {
                    return Err(refuse!("a size of {n} for axis {a}; expected a whole number from 1 to {MAX_AXIS}"));
                }
                (n as usize, n as f32 / padded[a] as f32)
            } else {
                let s = values[k] as f32;
                let n = (f64::from(s) * padded[a] as f64 + 1e-5).floor();
                if !(s > 0.0 && n >= 1.0 && n <= MAX_AXIS as f64) {
                    return Err(refuse!("a scale of {s} for axis {a} of {} values", padded[a]));
                }
                (n as usize, s)
            };
            out[a] = n;
            scales.push((a, scale));
        }
        let downsample = scales.iter().any(|&(_, s)| s < 1.0);
        if downsample && self.mode == (Mode::Linear { antialias: true }) {
            // The opset spec widens the filter by the scale; OpenVINO's CPU plugin (2026.4)
            // computes the same values as without antialiasing. cellc takes neither.
            return Err(refuse!(
                "`antialias` while downsampling: OpenVINO's spec and its CPU plugin compute different \
                        values, so cellc refuses it; export without antialiasing"
            ));
        }
        scales.sort_by_key(|&(a, _)| a);
        Ok(Resize { pads, padded, out, axes: scales, interp: self.clone(), downsample })
    }
}

impl Resize {
    /// The taps of interpolated axis `a` of scale `scale` (an entry of [`Resize::axes`]):
    /// for each output position, the input positions it sums and their weights.
    pub fn taps(&self, a: usize, scale: f32) -> Taps {
        self.interp.taps(self.padded[a], self.out[a], scale, self.downsample)
    }

    /// The resize of values `v` (row-major, of the unpadded extents), in f64.
    pub fn eval(&self, v: &[f64]) -> Vec<f64> {
        let ext: Vec<usize> = self.padded.iter().zip(&self.pads).map(|(&p, &(b, e))| p - b - e).collect();
        // The zero padding.
        let st = strides(&ext);
        let mut idx = vec![0; ext.len()];
        let mut cur: Vec<f64> = (0..self.padded.iter().product())
            .map(|i| {
                unflatten(i, &self.padded, &mut idx);
                let at: Option<usize> = idx
                    .iter()
                    .zip(&self.pads)
                    .zip(&ext)
                    .zip(&st)
                    .map(|(((&x, &(b, _)), &e), &s)| x.checked_sub(b).filter(|&y| y < e).map(|y| y * s))
                    .sum();
                at.map_or(0.0, |k| v[k])
            })
            .collect();
        // One axis at a time.
        let mut shape = self.padded.clone();
        for &(a, scale) in &self.axes {
            let taps = self.taps(a, scale);
            let n = taps.len();
            let inner: usize = shape[a + 1..].iter().product();
            let outer: usize = shape[..a].iter().product();
            let len = shape[a];
            let mut next = vec![0.0; outer * n * inner];
            for o in 0..outer {
                for (x, t) in taps.iter().enumerate() {
                    for i in 0..inner {
                        next[(o * n + x) * inner + i] =
                            t.iter().map(|&(j, w)| w * cur[(o * len + j) * inner + i]).sum();
                    }
                }
            }
            shape[a] = n;
            cur = next;
        }
        cur
    }
}

pub(super) fn infer(it: &Interp, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    let data = input(ins, 0, "data")?;
    let xs = input_shape(ins, 0, "data")?;
    // Axes left alone may be dynamic (the batch); the others must be known.
    let ext: Vec<usize> = xs.iter().map(|d| d.value().map_or(1, |v| v.max(0) as usize)).collect();
    let r = it.resolve(&ext, ins)?;
    let mut shape = Vec::with_capacity(xs.len());
    for (a, &d) in xs.iter().enumerate() {
        let touched = r.axes.iter().any(|(x, _)| *x == a) || r.pads[a] != (0, 0);
        shape.push(match d.value() {
            Some(_) => Sym::known(r.out[a] as i64),
            None if !touched => d,
            None => return Err(unpinned!("dimension {a} ({d}) is interpolated or padded")),
        });
    }
    let value = (|| {
        let v = data.value.as_ref()?.floats()?;
        (xs.iter().all(|d| d.is_known()) && extents(xs)?.iter().product::<usize>() == v.len()).then_some(())?;
        let out: usize = r.out.iter().product();
        (out as u64 <= crate::limits::MAX_FOLDED_ELEMENTS).then(|| Data::Float(r.eval(&v)))
    })();
    Ok(vec![Fact { elem: data.elem, shape: Some(shape), value }])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interp(mode: Mode, coord: Coord) -> Interp {
        Interp { mode, by_sizes: false, coord, pads_begin: vec![], pads_end: vec![] }
    }

    #[test]
    fn taps_follow_the_spec_at_the_edges() {
        // Upsampling 4 → 8 with half_pixel: output 0 is at -0.25 (clamped to 0), output 7 at
        // 3.75 (clamped to 3, where both neighbours are the last value, half each).
        let lin = interp(Mode::LinearOnnx, Coord::HalfPixel).taps(4, 8, 2.0, false);
        assert_eq!(lin[0], vec![(0, 1.0), (1, 0.0)]);
        assert_eq!(lin[1], vec![(0, 0.75), (1, 0.25)]);
        assert_eq!(lin[7], vec![(3, 0.5), (3, 0.5)]);
        // The triangle filter without antialiasing: the same values, taps outside dropped.
        let tri = interp(Mode::Linear { antialias: false }, Coord::HalfPixel).taps(4, 8, 2.0, false);
        assert_eq!(tri[0], vec![(0, 1.0)]);
        assert_eq!(tri[1], vec![(0, 0.75), (1, 0.25)]);
        // Nearest, round_prefer_floor on asymmetric 4 → 8: 0, 0, 1, 1, …; ties go down.
        let near = interp(Mode::Nearest(Rounding::PreferFloor), Coord::Asymmetric).taps(4, 8, 2.0, false);
        let at: Vec<usize> = near.iter().map(|t| t[0].0).collect();
        assert_eq!(at, [0, 0, 1, 1, 2, 2, 3, 3]);
        let ceil = interp(Mode::Nearest(Rounding::PreferCeil), Coord::Asymmetric).taps(4, 8, 2.0, false);
        assert_eq!(ceil.iter().map(|t| t[0].0).collect::<Vec<_>>(), [0, 1, 1, 2, 2, 3, 3, 3]);
        // Cubic weights sum to one.
        for t in interp(Mode::Cubic(-0.75), Coord::HalfPixel).taps(5, 9, 1.8, false) {
            assert!((t.iter().map(|x| x.1).sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn antialiased_downsampling_is_refused_and_the_rest_resolved() {
        use crate::vocab::Elem;
        let scales = Fact::constant(Elem::F32, vec![Sym::known(2)], Data::Float(vec![0.5, 2.0]));
        let axes = Fact::constant(Elem::I64, vec![Sym::known(2)], Data::Int(vec![Sym::known(0), Sym::known(1)]));
        let ins = [None, Some(&scales), Some(&axes)];
        let aa = interp(Mode::Linear { antialias: true }, Coord::HalfPixel);
        assert!(aa.resolve(&[4, 3], &ins).is_err_and(|e| e.to_string().contains("antialias")));
        let r = interp(Mode::Linear { antialias: false }, Coord::HalfPixel).resolve(&[4, 3], &ins).expect("resolves");
        assert_eq!(r.out, [2, 6]);
        assert_eq!(r.axes.iter().map(|&(a, s)| (a, r.taps(a, s).len())).collect::<Vec<_>>(), [(0, 2), (1, 6)]);
    }

    #[test]
    fn eval_pads_then_resizes_each_axis() {
        // [1, 2] padded by one zero in front, then nearest ×2 along the one axis.
        let it = Interp {
            mode: Mode::Nearest(Rounding::Floor),
            by_sizes: false,
            coord: Coord::Asymmetric,
            pads_begin: vec![1],
            pads_end: vec![0],
        };
        let r = Resize {
            pads: vec![(1, 0)],
            padded: vec![3],
            out: vec![6],
            axes: vec![(0, 2.0)],
            interp: it,
            downsample: false,
        };
        assert_eq!(r.eval(&[1.0, 2.0]), [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]);
    }
}
