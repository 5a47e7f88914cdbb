//! Pools over spatial axes: `MaxPool` (opset 1 and 8) and `AvgPool` (opset 1). A pool is
//! a window over each channel alone; `passes::lower` gathers its windows with a
//! [`super::pad::Pick`] and reduces them.
use super::conv::{ConvGeometry, Window};
use super::error::{OpError, refuse, unpinned};
use super::pad::Pick;
use super::tensor::{count, extents, show, strides, unflatten};
use super::tensor::{input, input_shape};
use crate::limits::MAX_SPATIAL_RANK;
use crate::vocab::{Data, Elem, Fact, Sym};

/// What a pool computes over its window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolKind {
    /// The largest value (padding takes no part).
    Max,
    /// The mean.
    Avg {
        /// `exclude-pad`: divide by the values inside the data only.
        exclude_pad: bool,
    },
}

/// The attributes of a pool.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolAttrs {
    /// How the window moves.
    pub window: Window,
    /// `kernel`.
    pub kernel: Vec<i64>,
    /// Max or average.
    pub kind: PoolKind,
    /// `MaxPool-8`: a second output gives where each maximum is.
    pub indices: bool,
    /// The element type of the indices.
    pub index_elem: Elem,
}

impl PoolAttrs {
    /// The geometry of the pool over data of shape `xs`.
    pub fn geometry(&self, xs: &[Sym]) -> Result<ConvGeometry, OpError> {
        let r = xs.len().checked_sub(2).filter(|r| (1..=MAX_SPATIAL_RANK).contains(r)).ok_or_else(|| {
            refuse!(
                "the data has shape {}; expected [N, C, spatial…] with 1 to {MAX_SPATIAL_RANK} spatial axes",
                show(xs)
            )
        })?;
        if self.kernel.len() != r {
            return Err(refuse!("`kernel` has {} values for {r} spatial axes", self.kernel.len()));
        }
        let kernel: Vec<usize> = self
            .kernel
            .iter()
            .map(|&k| usize::try_from(k).map_err(|_| refuse!("`kernel` holds {k}; expected positive")))
            .collect::<Result<_, _>>()?;
        let known = |d: Sym, what: &str| {
            d.value()
                .and_then(|v| usize::try_from(v).ok())
                .ok_or_else(|| unpinned!("{what} ({d}) must be known at compile time"))
        };
        let c = known(xs[1], "the channels")?;
        let input: Vec<usize> = xs[2..].iter().map(|&d| known(d, "a spatial dimension")).collect::<Result<_, _>>()?;
        let geo = self.window.geometry(input, kernel, (1, c, c))?;
        if self.kind == (PoolKind::Avg { exclude_pad: true }) {
            // A window wholly in the padding would average no value: OpenVINO refuses the
            // pads that allow one.
            let all_pad = (0..r).find(|&a| geo.kernel[a] <= geo.pads_begin[a] || geo.kernel[a] <= geo.pads_end[a]);
            if let Some(a) = all_pad {
                return Err(refuse!(
                    "with `exclude-pad` the window of spatial axis {a} ({} taps) fits wholly in its padding ({} before, {} after), where it would average no value; expected pads smaller than the kernel",
                    geo.kernel[a],
                    geo.pads_begin[a],
                    geo.pads_end[a]
                ));
            }
        }
        Ok(geo)
    }
}

impl ConvGeometry {
    /// The taps of output position `o` (a flat index), each as the flat input index it
    /// reads or `None` in the padding, and whether it lies inside the padded extent.
    fn taps(&self, o: usize) -> Vec<(Option<usize>, bool)> {
        let r = self.input.len();
        let (mut o_idx, mut k_idx) = (vec![0; r], vec![0; r]);
        unflatten(o, &self.output, &mut o_idx);
        let st = strides(&self.input);
        (0..count(&self.kernel))
            .map(|k| {
                unflatten(k, &self.kernel, &mut k_idx);
                let (mut at, mut inside, mut padded) = (0, true, true);
                for a in 0..r {
                    let p = o_idx[a] * self.strides[a] + k_idx[a] * self.dilations[a];
                    match p.checked_sub(self.pads_begin[a]).filter(|&i| i < self.input[a]) {
                        Some(i) => at += i * st[a],
                        None => inside = false,
                    }
                    padded &= p < self.pads_begin[a] + self.input[a] + self.pads_end[a];
                }
                (inside.then_some(at), padded)
            })
            .collect()
    }

    /// The table of a pool's windows for one batch entry: for each channel, each output
    /// position and each tap, the index of the value in the entry's `[C, spatial…]` data, or
    /// [`Pick::NONE`] in the padding.
    pub fn pool_windows(&self) -> Vec<u32> {
        let (plane, positions) = (count(&self.input), count(&self.output));
        let per_channel: Vec<Option<usize>> = (0..positions).flat_map(|o| self.taps(o)).map(|(at, _)| at).collect();
        (0..self.ci)
            .flat_map(|c| per_channel.iter().map(move |at| at.map_or(Pick::NONE, |at| (c * plane + at) as u32)))
            .collect()
    }

    /// What an average pool divides each output position's sum by (0 for a window with
    /// nothing to count, whose mean is then NaN, as OpenVINO gives it).
    pub fn divisors(&self, exclude_pad: bool) -> Vec<f64> {
        (0..count(&self.output))
            .map(|o| {
                let taps = self.taps(o);
                let n = taps.iter().filter(|(at, padded)| if exclude_pad { at.is_some() } else { *padded }).count();
                n as f64
            })
            .collect()
    }
}

pub(super) fn infer(a: &PoolAttrs, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    let data = input(ins, 0, "data")?;
    let xs = input_shape(ins, 0, "data")?;
    if !data.elem.is_float() {
        return Err(refuse!("pools {} values; cellc pools floats", data.elem.name()));
    }
    let geo = a.geometry(xs)?;
    let mut out = vec![xs[0], xs[1]];
    out.extend(geo.output.iter().map(|&d| Sym::known(d as i64)));
    let value = (|| {
        let x = data.value.as_ref()?.floats()?;
        let n = extents(xs)?[0];
        let (plane, positions) = (count(&geo.input), count(&geo.output));
        // A maximum divides by nothing; the counts are computed alike.
        let divisors = geo.divisors(matches!(a.kind, PoolKind::Avg { exclude_pad: true }));
        let mut v = Vec::with_capacity(n * geo.ci * positions);
        for e in 0..n {
            for c in 0..geo.ci {
                let base = (e * geo.ci + c) * plane;
                for (o, d) in divisors.iter().enumerate() {
                    let taps = geo.taps(o);
                    let vals = taps.iter().filter_map(|(at, _)| at.map(|i| x[base + i]));
                    let y = match a.kind {
                        PoolKind::Max => vals.fold(f64::from(f32::MIN), f64::max),
                        PoolKind::Avg { .. } => vals.sum::<f64>() / d,
                    };
                    v.push(data.elem.round(y));
                }
            }
        }
        Some(Data::Float(v))
    })();
    let mut facts = vec![Fact { elem: data.elem, shape: Some(out.clone()), value }];
    if a.indices {
        facts.push(Fact::new(a.index_elem, out));
    }
    Ok(facts)
}

/// A pool of `kind` over the windows `w` of data `[N, spatial…, C]` laid out channels last
/// (its entries of [`crate::vocab::Windows::input_len`] values): `[N, positions, C]`, and
/// its values when the data's are known.
pub(super) fn windows(
    w: &crate::vocab::Windows,
    kind: crate::vocab::Pooling,
    ins: &[Option<&Fact>],
) -> Result<Vec<Fact>, OpError> {
    let data = input(ins, 0, "data")?;
    let xs = input_shape(ins, 0, "data")?;
    let per = xs.get(1..).and_then(crate::vocab::known_len);
    if !w.valid() || per != Some(w.input_len()) || xs.last().and_then(|d| d.value()) != Some(w.channels as i64) {
        return Err(refuse!(
            "windows over entries of {} values, {} channels each; the data is {}",
            w.input_len(),
            w.channels,
            show(xs)
        ));
    }
    let shape = vec![xs[0], Sym::known(w.positions() as i64), Sym::known(w.channels as i64)];
    let value = (|| {
        let v = data.value.as_ref()?.floats()?;
        let (entries, c) = (v.len() / w.input_len(), w.channels);
        let mut out = Vec::with_capacity(entries.checked_mul(w.positions())?.checked_mul(c)?);
        for e in v.chunks_exact(w.input_len()) {
            for p in 0..w.positions() {
                let mut acc = vec![kind.start(); c];
                for at in (0..w.taps()).filter_map(|t| w.source(p, t)) {
                    for (a, &x) in acc.iter_mut().zip(&e[at..at + c]) {
                        *a = kind.add(*a, x);
                    }
                }
                out.extend(acc.into_iter().map(|a| data.elem.round(a)));
            }
        }
        Some(Data::Float(out))
    })();
    Ok(vec![Fact { elem: data.elem, shape: Some(shape), value }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::conv::AutoPad;

    #[test]
    fn a_kernel_past_the_limit_is_refused_before_its_taps_are_walked() {
        let window = Window {
            strides: vec![1, 1],
            dilations: vec![1, 1],
            pads_begin: vec![1 << 30, 1 << 30],
            pads_end: vec![0, 0],
            auto_pad: AutoPad::Explicit,
            rounding: crate::ops::conv::WindowRounding::Floor,
        };
        let a = PoolAttrs {
            window,
            kernel: vec![1 << 30, 1 << 30],
            kind: PoolKind::Max,
            indices: false,
            index_elem: crate::vocab::Elem::I64,
        };
        let xs: Vec<Sym> = [1, 1, 2, 2].iter().map(|&d| Sym::known(d)).collect();
        assert!(a.geometry(&xs).is_err_and(|e| e.to_string().contains("taps")));
    }
}
