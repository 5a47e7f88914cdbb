//! Windows over spatial axes: `Convolution`, `GroupConvolution` and their transposed forms
//! `ConvolutionBackpropData` and `GroupConvolutionBackpropData` (opset 1). A convolution's
//! semantics are computed here directly (for folding, and as the check of its lowering to
//! a [`Pick`] of its windows and a product, in `passes::lower`).
use super::error::{OpError, refuse, unpinned};
use super::pad::Pick;
use super::tensor::{count, extents, show, strides, unflatten};
use super::tensor::{input, input_shape};
use crate::limits::MAX_SPATIAL_RANK;
use crate::vocab::{Data, Fact, Sym};

/// `auto_pad` of a convolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoPad {
    /// `explicit` (or `notset`): `pads_begin` and `pads_end` as written.
    Explicit,
    /// `same_upper`: the output has `ceil(L / stride)` positions, the odd pad at the end.
    SameUpper,
    /// `same_lower`: the same, the odd pad at the beginning.
    SameLower,
    /// `valid`: no padding.
    Valid,
}

/// How a window moves over the spatial axes (convolutions and pools).
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    /// `strides`, one per spatial axis.
    pub strides: Vec<i64>,
    /// `dilations`, one per spatial axis.
    pub dilations: Vec<i64>,
    /// `pads_begin`.
    pub pads_begin: Vec<i64>,
    /// `pads_end`.
    pub pads_end: Vec<i64>,
    /// `auto_pad`.
    pub auto_pad: AutoPad,
    /// How a pool rounds its number of windows (`rounding_type`, ONNX's `ceil_mode`); a
    /// convolution's is [`WindowRounding::Floor`].
    pub rounding: WindowRounding,
}

/// How a pool counts a last window that the data and pads do not fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowRounding {
    /// `floor`: only whole windows.
    Floor,
    /// `ceil` (OpenVINO): a last, partial window counts, even one that starts in the
    /// padding after the data.
    Ceil,
    /// `ceil_torch` (OpenVINO 14 on), ONNX's and PyTorch's `ceil_mode`: a last, partial
    /// window counts unless it starts in the padding after the data.
    CeilTorch,
}

/// The attributes of a convolution.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvAttrs {
    /// How the kernel moves (over the output, for a transposed convolution).
    pub window: Window,
    /// `GroupConvolution…`: the weights have a leading axis of groups.
    pub grouped: bool,
    /// `…BackpropData` (transposed): the weights are `[C_in, C_out, K…]` (with groups
    /// `[G, C_in/G, C_out/G, K…]`) and each input value spreads over the output.
    pub transposed: bool,
    /// `output_padding` (transposed only): values added after the end of each axis.
    pub output_padding: Vec<i64>,
    /// ONNX's rule for a transposed convolution's output size (`output_shape`, or same
    /// padding), which the window's pads then do not set; `None` elsewhere.
    pub crop: Option<Crop>,
}

/// How ONNX's `ConvTranspose` sizes its output when `output_shape` or same padding is given,
/// as onnxruntime computes it: the full output (`stride·(L − 1) + dilation·(K − 1) + 1 +
/// output_padding`) is cropped to a target size, `output_shape`'s value or `stride·L`, by
/// `full − target` values (none when the full output is shorter than `stride·L`), split
/// between its two ends with the odd one at the end for `SAME_UPPER` and at the beginning
/// otherwise; explicit `pads` are not read.
#[derive(Clone, Debug, PartialEq)]
pub struct Crop {
    /// `output_shape` (one size a spatial axis), or `None` for `stride·L`.
    pub shape: Option<Vec<i64>>,
    /// `auto_pad` is `SAME_UPPER`: the odd value cropped at the end.
    pub odd_at_end: bool,
}

/// A convolution with every size known: what its lowering and its evaluation need.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvGeometry {
    /// Groups (1 for a plain convolution).
    pub groups: usize,
    /// Input channels of a group.
    pub ci: usize,
    /// Output channels of a group.
    pub co: usize,
    /// Input spatial sizes.
    pub input: Vec<usize>,
    /// Kernel sizes.
    pub kernel: Vec<usize>,
    /// Output spatial sizes.
    pub output: Vec<usize>,
    /// Strides.
    pub strides: Vec<usize>,
    /// Dilations.
    pub dilations: Vec<usize>,
    /// Padding before each spatial axis, as resolved from `auto_pad`.
    pub pads_begin: Vec<usize>,
    /// Padding after each spatial axis.
    pub pads_end: Vec<usize>,
    /// A transposed convolution: output position `o` takes input `i` through tap `k` where
    /// `o = i·stride + k·dilation − pad`.
    pub transposed: bool,
}

/// A whole number from an attribute list as a positive size.
fn positive(v: &[i64], what: &str) -> Result<Vec<usize>, OpError> {
    v.iter()
        .map(|&x| {
            usize::try_from(x).ok().filter(|&x| x > 0).ok_or_else(|| refuse!("`{what}` holds {x}; expected positive"))
        })
        .collect()
}

/// A known dimension, or an error saying which one must be pinned.
fn known(d: Sym, what: &str) -> Result<usize, OpError> {
    d.value()
        .and_then(|v| usize::try_from(v).ok())
        .ok_or_else(|| unpinned!("{what} ({d}) must be known at compile time"))
}

impl ConvAttrs {
    /// The geometry of the convolution of data of shape `xs` by weights of shape `ws` (and,
    /// transposed, the output's spatial shape when input 2 gives it).
    pub fn geometry(&self, xs: &[Sym], ws: &[Sym], out_shape: Option<&[i64]>) -> Result<ConvGeometry, OpError> {
        let r = xs.len().checked_sub(2).filter(|r| (1..=MAX_SPATIAL_RANK).contains(r)).ok_or_else(|| {
            refuse!(
                "the data has shape {}; expected [N, C, spatial…] with 1 to {MAX_SPATIAL_RANK} spatial axes",
                show(xs)
            )
        })?;
        let wr = if self.grouped { r + 3 } else { r + 2 };
        if ws.len() != wr {
            let form = match (self.grouped, self.transposed) {
                (true, false) => "[G, C_out/G, C_in/G, K…]",
                (false, false) => "[C_out, C_in, K…]",
                (true, true) => "[G, C_in/G, C_out/G, K…]",
                (false, true) => "[C_in, C_out, K…]",
            };
            return Err(refuse!("the weights have shape {}; expected {form} with {r} kernel axes", show(ws)));
        }
        let w: Vec<usize> = ws.iter().map(|&d| known(d, "a weights dimension")).collect::<Result<_, _>>()?;
        let (groups, co, ci) = match (self.grouped, self.transposed) {
            (true, false) => (w[0], w[1], w[2]),
            (false, false) => (1, w[0], w[1]),
            (true, true) => (w[0], w[2], w[1]),
            (false, true) => (1, w[1], w[0]),
        };
        let channels = known(xs[1], "the input channels")?;
        if co == 0 || groups == 0 || ci == 0 {
            return Err(refuse!(
                "the weights have shape {}: no {}; expected at least one of each",
                show(ws),
                if co == 0 {
                    "output channels"
                } else if groups == 0 {
                    "groups"
                } else {
                    "input channels"
                }
            ));
        }
        if let Some(&k) = w[w.len() - r..].iter().find(|&&k| k == 0) {
            return Err(refuse!("the weights have shape {}: a kernel axis of {k} taps; expected 1 or more", show(ws)));
        }
        if groups.checked_mul(ci) != Some(channels) {
            return Err(refuse!(
                "the data has {channels} channels but the weights {} take {} groups of {ci}",
                show(ws),
                groups
            ));
        }
        let kernel = w[w.len() - r..].to_vec();
        let input: Vec<usize> = xs[2..].iter().map(|&d| known(d, "a spatial dimension")).collect::<Result<_, _>>()?;
        if self.transposed {
            return self.transposed_geometry(input, kernel, (groups, ci, co), out_shape);
        }
        if out_shape.is_some() || !self.output_padding.is_empty() || self.crop.is_some() {
            return Err(OpError::Rule(
                "only a transposed convolution takes an output shape or `output_padding`".to_owned(),
            ));
        }
        self.window.geometry(input, kernel, (groups, ci, co))
    }

    /// The geometry of a transposed convolution: each axis's output is
    /// `stride·(L − 1) + dilation·(K − 1) + 1 + output_padding − pads`, where the pads are
    /// as written (explicit), 0 (valid), or with same padding what gives the output shape of
    /// input 2 (same_upper crops the odd one at the beginning, same_lower at the end; 0
    /// without it, as OpenVINO computes it).
    fn transposed_geometry(
        &self,
        input: Vec<usize>,
        kernel: Vec<usize>,
        (groups, ci, co): (usize, usize, usize),
        out_shape: Option<&[i64]>,
    ) -> Result<ConvGeometry, OpError> {
        let r = input.len();
        let w = &self.window;
        if w.rounding != WindowRounding::Floor {
            return Err(OpError::Rule("`rounding_type` is not an attribute of a convolution".to_owned()));
        }
        let mut geo = w.geometry(input.clone(), vec![1; r], (groups, ci, co))?;
        geo.kernel = kernel;
        geo.transposed = true;
        let op: Vec<usize> = match self.output_padding.len() {
            0 => vec![0; r],
            n if n == r => self
                .output_padding
                .iter()
                .map(|&p| usize::try_from(p).map_err(|_| refuse!("`output_padding` holds {p}; expected 0 or more")))
                .collect::<Result<_, _>>()?,
            n => return Err(refuse!("`output_padding` has {n} values for {r} spatial axes")),
        };
        if let Some(o) = out_shape
            && o.len() != r
        {
            return Err(refuse!("the output shape has {} values for {r} spatial axes", o.len()));
        }
        for a in 0..r {
            let full = input[a]
                .checked_sub(1)
                .ok_or_else(|| refuse!("spatial axis {a} of the input has no values"))?
                .checked_mul(geo.strides[a])
                .and_then(|x| x.checked_add((geo.kernel[a] - 1).checked_mul(geo.dilations[a])?))
                .and_then(|x| x.checked_add(1 + op[a]))
                .ok_or_else(|| refuse!("the output is too large"))?;
            if op[a] >= geo.strides[a].max(geo.dilations[a]) {
                return Err(refuse!("`output_padding` {} is not below the stride or the dilation", op[a]));
            }
            if let Some(c) = &self.crop {
                let (pb, pe, out) = c.axis(a, full, input[a], geo.strides[a])?;
                (geo.pads_begin[a], geo.pads_end[a], geo.output[a]) = (pb, pe, out);
                continue;
            }
            let wanted = out_shape.map(|o| o[a]);
            let (pb, pe) = match (w.auto_pad, wanted) {
                (AutoPad::SameUpper | AutoPad::SameLower, None) => (0, 0),
                (AutoPad::SameUpper | AutoPad::SameLower, Some(want)) => {
                    let total = usize::try_from(want)
                        .ok()
                        .and_then(|want| full.checked_sub(want))
                        .ok_or_else(|| refuse!("the output of spatial axis {a} cannot be {want} (at most {full})"))?;
                    // The pads crop the full output: same_upper crops the odd one at the
                    // beginning (the output is the upper part), as OpenVINO computes it and
                    // as ONNX's ConvTranspose defines it.
                    let small = total / 2;
                    if w.auto_pad == AutoPad::SameUpper { (total - small, small) } else { (small, total - small) }
                }
                _ => (geo.pads_begin[a], geo.pads_end[a]),
            };
            let out = full.checked_sub(pb + pe).filter(|&o| o > 0).ok_or_else(|| {
                refuse!("the padding of spatial axis {a} ({pb} and {pe}) leaves no output of its {full} values")
            })?;
            if let Some(want) = wanted
                && want != out as i64
            {
                return Err(refuse!(
                    "the output shape asks for {want} values on spatial axis {a}; the pads give {out}"
                ));
            }
            (geo.pads_begin[a], geo.pads_end[a], geo.output[a]) = (pb, pe, out);
        }
        Ok(geo)
    }
}

impl Crop {
    /// The pads before and after spatial axis `a` and its output size, for a full output of
    /// `full` values from `input` values at `stride`.
    fn axis(&self, a: usize, full: usize, input: usize, stride: usize) -> Result<(usize, usize, usize), OpError> {
        let total = match &self.shape {
            Some(shape) => {
                let want = *shape.get(a).ok_or_else(|| {
                    refuse!("`output_shape` has {} values; expected one for each spatial axis", shape.len())
                })?;
                usize::try_from(want).ok().filter(|&w| w > 0).and_then(|w| full.checked_sub(w)).ok_or_else(|| {
                    refuse!("`output_shape` asks for {want} values on spatial axis {a}; expected 1 to {full}")
                })?
            }
            None => full.saturating_sub(input.checked_mul(stride).ok_or_else(|| refuse!("the output is too large"))?),
        };
        let small = total / 2;
        let (pb, pe) = if self.odd_at_end { (small, total - small) } else { (total - small, small) };
        Ok((pb, pe, full - total))
    }
}

impl Window {
    /// The geometry of a window of `kernel` over `input`, for `(groups, C_in, C_out)`.
    pub fn geometry(
        &self,
        input: Vec<usize>,
        kernel: Vec<usize>,
        (groups, ci, co): (usize, usize, usize),
    ) -> Result<ConvGeometry, OpError> {
        let r = input.len();
        for (what, v) in [
            ("strides", &self.strides),
            ("dilations", &self.dilations),
            ("pads_begin", &self.pads_begin),
            ("pads_end", &self.pads_end),
        ] {
            let implied_pad = what.starts_with("pads") && self.auto_pad != AutoPad::Explicit;
            if v.len() != r && !(implied_pad && v.is_empty()) {
                return Err(refuse!("`{what}` has {} values for {r} spatial axes", v.len()));
            }
        }
        let strides = positive(&self.strides, "strides")?;
        let dilations = positive(&self.dilations, "dilations")?;
        if let Some(k) = kernel.iter().position(|&k| k == 0) {
            return Err(refuse!("the kernel is empty along spatial axis {k}"));
        }
        // A pool's kernel is an attribute: its taps are walked for every output position.
        let taps = crate::limits::product(kernel.iter().map(|&k| k as u64));
        if taps.is_none_or(|t| t > crate::limits::MAX_PICK_TABLE) {
            return Err(refuse!("the kernel {kernel:?} has more than {} taps", crate::limits::MAX_PICK_TABLE));
        }
        let (mut pads_begin, mut pads_end, mut output) = (Vec::new(), Vec::new(), Vec::new());
        for a in 0..r {
            let reach = (kernel[a] - 1)
                .checked_mul(dilations[a])
                .and_then(|x| x.checked_add(1))
                .ok_or_else(|| refuse!("kernel too large"))?;
            let (pb, pe) = match self.auto_pad {
                AutoPad::Valid => (0, 0),
                AutoPad::Explicit => {
                    let (b, e) = (self.pads_begin[a], self.pads_end[a]);
                    let as_size = |p: i64, what: &str| {
                        usize::try_from(p).map_err(|_| refuse!("`{what}` holds {p}; expected 0 or more"))
                    };
                    (as_size(b, "pads_begin")?, as_size(e, "pads_end")?)
                }
                AutoPad::SameUpper | AutoPad::SameLower => {
                    let out = input[a].div_ceil(strides[a]);
                    let total = ((out.max(1) - 1).checked_mul(strides[a]))
                        .and_then(|x| x.checked_add(reach))
                        .ok_or_else(|| refuse!("spatial axis {a} is too large"))?
                        .saturating_sub(input[a]);
                    let small = total / 2;
                    if self.auto_pad == AutoPad::SameUpper { (small, total - small) } else { (total - small, small) }
                }
            };
            let padded =
                input[a].checked_add(pb).and_then(|x| x.checked_add(pe)).ok_or_else(|| refuse!("padding too large"))?;
            if padded < reach {
                return Err(refuse!(
                    "spatial axis {a} has {padded} values with padding, fewer than the kernel's reach of {reach}"
                ));
            }
            // Rounding up counts a last, partial window; OpenVINO's `ceil` even when it starts
            // in the padding after the data, `ceil_torch` (ONNX's `ceil_mode`) not then.
            let up = (padded - reach).div_ceil(strides[a]) + 1;
            let out = match self.rounding {
                WindowRounding::Floor => (padded - reach) / strides[a] + 1,
                WindowRounding::Ceil => up,
                // `input + pb` is at most `padded`, which did not overflow.
                WindowRounding::CeilTorch if (up - 1).checked_mul(strides[a]).is_none_or(|s| s >= input[a] + pb) => {
                    up - 1
                }
                WindowRounding::CeilTorch => up,
            };
            pads_begin.push(pb);
            pads_end.push(pe);
            output.push(out);
        }
        // Checked here, before anything walks the positions (the output's own check comes
        // after its values are computed).
        let positions = crate::limits::product(output.iter().map(|&o| o as u64));
        if positions.is_none_or(|p| p > crate::limits::MAX_TENSOR_ELEMENTS) {
            return Err(refuse!("the output has {output:?} positions; at most {}", crate::limits::MAX_TENSOR_ELEMENTS));
        }
        Ok(ConvGeometry {
            groups,
            ci,
            co,
            input,
            kernel,
            output,
            strides,
            dilations,
            pads_begin,
            pads_end,
            transposed: false,
        })
    }
}

impl ConvGeometry {
    /// The input position tap `k` of output position `o` reads along axis `a`, if inside.
    pub(crate) fn source(&self, a: usize, o: usize, k: usize) -> Option<usize> {
        let at = if self.transposed {
            let t = (o + self.pads_begin[a]).checked_sub(k * self.dilations[a])?;
            if t % self.strides[a] != 0 {
                return None;
            }
            t / self.strides[a]
        } else {
            (o * self.strides[a] + k * self.dilations[a]).checked_sub(self.pads_begin[a])?
        };
        (at < self.input[a]).then_some(at)
    }

    /// Where the weight of group `g`, output channel `co`, input channel `c` and tap `k` is
    /// stored (`[G, C_out/G, C_in/G, K…]`; transposed `[G, C_in/G, C_out/G, K…]`).
    pub fn weight(&self, g: usize, co: usize, c: usize, k: usize) -> usize {
        let taps = count(&self.kernel);
        if self.transposed {
            ((g * self.ci + c) * self.co + co) * taps + k
        } else {
            ((g * self.co + co) * self.ci + c) * taps + k
        }
    }

    /// The table of the windows one batch entry's product reads: for each group, each
    /// output position and each (input channel, tap) of the group, the index of the value in
    /// the entry's `[C_in, spatial…]` data, or [`Pick::NONE`] for padding.
    pub fn windows(&self) -> Vec<u32> {
        let (r, taps, positions) = (self.input.len(), count(&self.kernel), count(&self.output));
        let in_strides = strides(&self.input);
        let plane = count(&self.input);
        let mut table = Vec::with_capacity(self.groups * positions * self.ci * taps);
        let (mut o_idx, mut k_idx) = (vec![0; r], vec![0; r]);
        for g in 0..self.groups {
            for o in 0..positions {
                unflatten(o, &self.output, &mut o_idx);
                for c in 0..self.ci {
                    for k in 0..taps {
                        unflatten(k, &self.kernel, &mut k_idx);
                        let at: Option<usize> =
                            (0..r).map(|a| Some(self.source(a, o_idx[a], k_idx[a])? * in_strides[a])).sum();
                        table.push(at.map_or(Pick::NONE, |at| ((g * self.ci + c) * plane + at) as u32));
                    }
                }
            }
        }
        table
    }

    /// The extents of a batch entry laid out channels last with its padding:
    /// `[padded spatial…, C_in]`.
    pub fn channels_last_shape(&self) -> Vec<usize> {
        let mut shape: Vec<usize> =
            (0..self.input.len()).map(|a| self.pads_begin[a] + self.input[a] + self.pads_end[a]).collect();
        shape.push(self.ci);
        shape
    }

    /// For a convolution of one group, not transposed: the table that lays one batch
    /// entry's `[C_in, spatial…]` values out as [`Self::channels_last_shape`], zeros
    /// ([`Pick::NONE`]) in the padding. The caller has bounded that shape's size.
    pub fn channels_last(&self) -> Vec<u32> {
        let shape = self.channels_last_shape();
        let r = self.input.len();
        let (in_strides, plane) = (strides(&self.input), count(&self.input));
        let mut idx = vec![0; r + 1];
        (0..count(&shape))
            .map(|i| {
                unflatten(i, &shape, &mut idx);
                let at: Option<usize> = (0..r)
                    .map(|a| {
                        let x = idx[a].checked_sub(self.pads_begin[a])?;
                        (x < self.input[a]).then_some(x * in_strides[a])
                    })
                    .sum();
                at.map_or(Pick::NONE, |at| (idx[r] * plane + at) as u32)
            })
            .collect()
    }

    /// The windows over the layout of [`Self::channels_last`]: for each output position,
    /// each tap and each input channel, the index of the value it reads. A tap's channels
    /// are contiguous, and so are the taps along the last spatial axis when it is not
    /// dilated, so the table is made of long runs.
    pub fn windows_channels_last(&self) -> Vec<u32> {
        let shape = self.channels_last_shape();
        let r = self.input.len();
        let st = strides(&shape[..r]);
        let (taps, positions) = (count(&self.kernel), count(&self.output));
        let mut table = Vec::with_capacity(positions * taps * self.ci);
        let (mut o_idx, mut k_idx) = (vec![0; r], vec![0; r]);
        for o in 0..positions {
            unflatten(o, &self.output, &mut o_idx);
            for k in 0..taps {
                unflatten(k, &self.kernel, &mut k_idx);
                let at: usize =
                    (0..r).map(|a| (o_idx[a] * self.strides[a] + k_idx[a] * self.dilations[a]) * st[a]).sum();
                table.extend((0..self.ci).map(|c| (at * self.ci + c) as u32));
            }
        }
        table
    }

    /// The convolution of one batch entry's `[C_in, spatial…]` values by weights laid out
    /// as `[G, C_out/G, C_in/G, K…]`, computed position by position (transposed: see
    /// [`Self::eval_transposed`]).
    fn eval(&self, x: &[f64], w: &[f64]) -> Vec<f64> {
        if self.transposed {
            return self.eval_transposed(x, w);
        }
        let (r, taps, positions) = (self.input.len(), count(&self.kernel), count(&self.output));
        let in_strides = strides(&self.input);
        let plane = count(&self.input);
        let mut out = vec![0.0; self.groups * self.co * positions];
        let (mut o_idx, mut k_idx) = (vec![0; r], vec![0; r]);
        for g in 0..self.groups {
            for co in 0..self.co {
                for o in 0..positions {
                    unflatten(o, &self.output, &mut o_idx);
                    let mut acc = 0.0;
                    for c in 0..self.ci {
                        for k in 0..taps {
                            unflatten(k, &self.kernel, &mut k_idx);
                            let mut at = 0;
                            let inside = (0..r).all(|a| match self.source(a, o_idx[a], k_idx[a]) {
                                Some(i) => {
                                    at += i * in_strides[a];
                                    true
                                }
                                None => false,
                            });
                            if inside {
                                acc += x[(g * self.ci + c) * plane + at] * w[self.weight(g, co, c, k)];
                            }
                        }
                    }
                    out[(g * self.co + co) * positions + o] = acc;
                }
            }
        }
        out
    }
}

impl ConvGeometry {
    /// A transposed convolution by its definition, as a scatter: input position `i` of each
    /// channel spreads its value times the kernel over output positions
    /// `i·stride + k·dilation − pads_begin` (those inside the output). It shares nothing
    /// with [`Self::source`], the inverse map the lowering gathers the windows through, so
    /// folding checks the lowering.
    fn eval_transposed(&self, x: &[f64], w: &[f64]) -> Vec<f64> {
        let (r, taps, positions) = (self.input.len(), count(&self.kernel), count(&self.output));
        let plane = count(&self.input);
        let out_strides = strides(&self.output);
        let mut out = vec![0.0; self.groups * self.co * positions];
        let (mut i_idx, mut k_idx) = (vec![0; r], vec![0; r]);
        for i in 0..plane {
            unflatten(i, &self.input, &mut i_idx);
            for k in 0..taps {
                unflatten(k, &self.kernel, &mut k_idx);
                let mut at = 0;
                let inside = (0..r).all(|a| {
                    let full = i_idx[a] * self.strides[a] + k_idx[a] * self.dilations[a];
                    match full.checked_sub(self.pads_begin[a]) {
                        Some(o) if o < self.output[a] => {
                            at += o * out_strides[a];
                            true
                        }
                        _ => false,
                    }
                });
                if !inside {
                    continue;
                }
                for g in 0..self.groups {
                    for c in 0..self.ci {
                        let v = x[(g * self.ci + c) * plane + i];
                        for co in 0..self.co {
                            out[(g * self.co + co) * positions + at] += v * w[self.weight(g, co, c, k)];
                        }
                    }
                }
            }
        }
        out
    }
}

pub(super) fn infer(a: &ConvAttrs, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    let data = input(ins, 0, "data")?;
    let xs = input_shape(ins, 0, "data")?;
    let (wf, ws) = (input(ins, 1, "weights")?, input_shape(ins, 1, "weights")?);
    if data.elem != wf.elem || !data.elem.is_float() {
        return Err(refuse!("its inputs are {} and {}; expected one float type", data.elem.name(), wf.elem.name()));
    }
    let out_shape = match ins.get(2).copied().flatten() {
        Some(f) => Some(super::tensor::known_ints(f.value.as_ref(), "the output shape")?),
        None => None,
    };
    let geo = a.geometry(xs, ws, out_shape.as_deref())?;
    let mut out = vec![xs[0], Sym::known((geo.groups * geo.co) as i64)];
    out.extend(geo.output.iter().map(|&d| Sym::known(d as i64)));
    let value = (|| {
        let (x, w) = (data.value.as_ref()?.floats()?, wf.value.as_ref()?.floats()?);
        let n = extents(xs)?[0];
        let per = x.len() / n.max(1);
        let v: Vec<f64> =
            x.chunks(per.max(1)).take(n).flat_map(|e| geo.eval(e, &w)).map(|v| data.elem.round(v)).collect();
        Some(Data::Float(v))
    })();
    Ok(vec![Fact { elem: data.elem, shape: Some(out), value }])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator of values in [-1, 1).
    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (0..n)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            })
            .collect()
    }

    fn attrs(r: usize, s: i64, d: i64, pads: (i64, i64), auto_pad: AutoPad, grouped: bool) -> ConvAttrs {
        let window = Window {
            strides: vec![s; r],
            dilations: vec![d; r],
            pads_begin: vec![pads.0; r],
            pads_end: vec![pads.1; r],
            auto_pad,
            rounding: WindowRounding::Floor,
        };
        ConvAttrs { window, grouped, transposed: false, output_padding: Vec::new(), crop: None }
    }

    fn transposed(mut a: ConvAttrs, output_padding: &[i64]) -> ConvAttrs {
        a.transposed = true;
        a.output_padding = output_padding.to_vec();
        a
    }

    #[test]
    fn the_windows_table_and_a_product_compute_the_convolution() {
        let k = |v: &[usize]| v.iter().map(|&d| Sym::known(d as i64)).collect::<Vec<_>>();
        let configs = [
            (attrs(1, 1, 1, (1, 1), AutoPad::Explicit, false), k(&[1, 3, 9]), k(&[4, 3, 3])),
            (attrs(1, 2, 3, (0, 2), AutoPad::Explicit, false), k(&[1, 2, 11]), k(&[2, 2, 2])),
            (attrs(1, 3, 1, (0, 0), AutoPad::SameLower, false), k(&[1, 2, 10]), k(&[3, 2, 4])),
            (attrs(2, 2, 1, (1, 0), AutoPad::Explicit, true), k(&[1, 4, 5, 6]), k(&[2, 3, 2, 2, 3])),
            (attrs(2, 1, 2, (0, 0), AutoPad::SameUpper, true), k(&[1, 3, 4, 4]), k(&[3, 1, 1, 3, 3])),
            (transposed(attrs(1, 2, 1, (1, 0), AutoPad::Explicit, false), &[1]), k(&[1, 3, 5]), k(&[3, 2, 4])),
            (
                transposed(attrs(2, 3, 2, (0, 1), AutoPad::Explicit, true), &[2, 0]),
                k(&[1, 4, 3, 2]),
                k(&[2, 2, 3, 2, 2]),
            ),
        ];
        for (seed, (a, xs, ws)) in configs.into_iter().enumerate() {
            let g = a.geometry(&xs, &ws, None).expect("valid");
            let (x, w) = (values(known_len_of(&xs), seed as u64), values(known_len_of(&ws), 100 + seed as u64));
            let want = g.eval(&x, &w);
            // The lowering: gather the windows, then multiply each group's by its weights.
            let table = g.windows();
            let (taps, positions) = (count(&g.kernel), count(&g.output));
            let kk = g.ci * taps;
            for gi in 0..g.groups {
                for o in 0..positions {
                    for co in 0..g.co {
                        let got: f64 = (0..kk)
                            .map(|q| {
                                let at = table[(gi * positions + o) * kk + q];
                                let v = if at == Pick::NONE { 0.0 } else { x[at as usize] };
                                v * w[g.weight(gi, co, q / taps, q % taps)]
                            })
                            .sum();
                        let exp = want[(gi * g.co + co) * positions + o];
                        assert!((got - exp).abs() < 1e-12, "config {seed}: {got} vs {exp}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_transposed_convolution_is_the_adjoint_of_the_convolution() {
        // ⟨conv(x), y⟩ = ⟨x, conv_transposed(y)⟩ for the same weights, strides, dilations and
        // pads, the output padding taking up what the strides leave over: an oracle for the
        // transposed evaluation that relies only on the plain one.
        let k = |v: &[usize]| v.iter().map(|&d| Sym::known(d as i64)).collect::<Vec<_>>();
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        let mut seed = 0;
        for (len, kern, s, d, (pb, pe)) in [
            (9, 3, 2, 1, (1, 0)),
            (11, 2, 3, 2, (0, 2)),
            (7, 3, 1, 1, (2, 2)),
            (10, 4, 3, 1, (1, 1)),
            (6, 1, 2, 3, (0, 1)),
        ] {
            for (groups, ci, co) in [(1, 2, 3), (2, 1, 2), (3, 1, 1)] {
                seed += 1;
                let forward = attrs(1, s, d, (pb, pe), AutoPad::Explicit, groups > 1);
                let (xs, ws) = (k(&[1, groups * ci, len]), {
                    let mut w = if groups > 1 { vec![groups, co, ci] } else { vec![co, ci] };
                    w.push(kern);
                    k(&w)
                });
                let f = forward.geometry(&xs, &ws, None).expect("valid");
                let reach = (kern - 1) * d as usize + 1;
                let spare = (len + (pb + pe) as usize - reach) % s as usize;
                // The transposed weights `[G, C_in/G, C_out/G, K]` are the same values: its
                // input channels are the plain one's outputs.
                let back = transposed(forward.clone(), &[spare as i64]);
                let ts = k(&[1, groups * co, f.output[0]]);
                let t = back.geometry(&ts, &ws, None).expect("valid");
                assert_eq!(t.output, vec![len], "the transposed output has the plain input's length");
                let x = values(known_len_of(&xs), seed);
                let y = values(known_len_of(&ts), 50 + seed);
                let w = values(known_len_of(&ws), 100 + seed);
                let (lhs, rhs) = (dot(&f.eval(&x, &w), &y), dot(&x, &t.eval(&y, &w)));
                assert!((lhs - rhs).abs() < 1e-9, "{len} {kern} {s} {d} {pb} {pe} {groups}: {lhs} vs {rhs}");
            }
        }
    }

    fn known_len_of(s: &[Sym]) -> usize {
        crate::vocab::known_len(s).expect("known")
    }

    #[test]
    fn same_padding_keeps_ceil_of_length_over_stride() {
        let k = |v: &[i64]| v.iter().map(|&d| Sym::known(d)).collect::<Vec<_>>();
        for (l, s, kern) in [(10, 3, 4), (9, 2, 3), (7, 1, 5), (5, 4, 2)] {
            for ap in [AutoPad::SameUpper, AutoPad::SameLower] {
                let g =
                    attrs(1, s, 1, (0, 0), ap, false).geometry(&k(&[1, 1, l]), &k(&[1, 1, kern]), None).expect("valid");
                assert_eq!(g.output[0] as i64, (l + s - 1) / s, "L {l}, stride {s}, kernel {kern}, {ap:?}");
            }
        }
        let bad = attrs(1, 1, 1, (0, 0), AutoPad::Valid, false).geometry(&k(&[1, 1, 2]), &k(&[1, 1, 3]), None);
        assert!(bad.is_err_and(|e| e.to_string().contains("kernel's reach")));
        let huge =
            attrs(1, 1, 1, (0, 1 << 40), AutoPad::Explicit, false).geometry(&k(&[1, 1, 2]), &k(&[1, 1, 1]), None);
        assert!(huge.is_err_and(|e| e.to_string().contains("positions")));
        let groups = attrs(1, 1, 1, (0, 0), AutoPad::Valid, true).geometry(&k(&[1, 5, 4]), &k(&[2, 1, 2, 1]), None);
        assert!(groups.is_err_and(|e| e.to_string().contains("5 channels")));
    }

    #[test]
    fn rounding_up_keeps_a_last_window_that_starts_in_the_data_only_for_ceil_torch() {
        let window = |rounding, (pb, pe)| Window {
            strides: vec![2],
            dilations: vec![1],
            pads_begin: vec![pb],
            pads_end: vec![pe],
            auto_pad: AutoPad::Explicit,
            rounding,
        };
        let positions = |rounding, pads, kernel| {
            window(rounding, pads).geometry(vec![4], vec![kernel], (1, 1, 1)).expect("valid").output[0]
        };
        // Four values, windows of 2 every 2, one pad at the end: the third window would
        // start at 4, in the padding.
        assert_eq!(positions(WindowRounding::Floor, (0, 1), 2), 2);
        assert_eq!(positions(WindowRounding::Ceil, (0, 1), 2), 3);
        assert_eq!(positions(WindowRounding::CeilTorch, (0, 1), 2), 2);
        // Windows of 3, a pad at each end: the third starts at 4 of 5 (the data's last
        // value), partial, and counts in both.
        assert_eq!(positions(WindowRounding::Floor, (1, 1), 3), 2);
        assert_eq!(positions(WindowRounding::Ceil, (1, 1), 3), 3);
        assert_eq!(positions(WindowRounding::CeilTorch, (1, 1), 3), 3);
    }
}
