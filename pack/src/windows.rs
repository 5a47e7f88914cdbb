//! The windows of a convolution or a pool over an input laid out channels last: which run
//! of input channels each tap of each output position reads, in place, without a table.
//! One definition for the compiler (its graph ops, steps, plan check and oracle) and the
//! runtime's kernels, which generated code hands a [`Windows`] value.

/// The windows of a convolution of one group over `[height, width, channels]` values (a
/// 1-D convolution is held with a height of 1): output position `p` (row-major over
/// [`Windows::output`]) and tap `t` (row-major over [`Windows::kernel`]) read the
/// `channels` values at input position `p·stride + t·dilation − pad` along each axis, or
/// zeros where that position is in the padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Windows {
    /// The input's spatial extents (height, width).
    pub input: [usize; 2],
    /// The output's spatial extents.
    pub output: [usize; 2],
    /// The kernel's extents.
    pub kernel: [usize; 2],
    /// Strides.
    pub strides: [usize; 2],
    /// Dilations.
    pub dilations: [usize; 2],
    /// Padding before each axis.
    pub pads: [usize; 2],
    /// Channels: the values of one input position, read as one run (the kernels' const
    /// parameter `C`, which must equal it).
    pub channels: usize,
}

impl Windows {
    /// Taps of a window.
    #[inline(always)]
    pub const fn taps(&self) -> usize {
        self.kernel[0].saturating_mul(self.kernel[1])
    }

    /// Output positions.
    #[inline(always)]
    pub const fn positions(&self) -> usize {
        self.output[0].saturating_mul(self.output[1])
    }

    /// Values of a window (`taps · channels`), in the order tap by tap, each tap's channels
    /// in order.
    #[inline(always)]
    pub const fn k(&self) -> usize {
        self.taps().saturating_mul(self.channels)
    }

    /// Values of one input entry (`height · width · channels`).
    #[inline(always)]
    pub const fn input_len(&self) -> usize {
        self.input[0].saturating_mul(self.input[1]).saturating_mul(self.channels)
    }

    /// Values of one input entry, `None` where they overflow.
    #[inline(always)]
    pub fn entry(&self) -> Option<usize> {
        self.input[0].checked_mul(self.input[1])?.checked_mul(self.channels)
    }

    /// How far along axis `a` the last tap of a window reaches past its first input.
    #[inline(always)]
    fn span(&self, a: usize) -> Option<usize> {
        self.kernel[a].checked_sub(1)?.checked_mul(self.dilations[a])
    }

    /// The furthest position along axis `a`, counted from the start of the padding, that a
    /// window reads: `(output − 1)·stride + (kernel − 1)·dilation`. Past `pad + input` it
    /// reads padding after the data.
    pub fn reach(&self, a: usize) -> Option<usize> {
        self.output[a].checked_sub(1)?.checked_mul(self.strides[a])?.checked_add(self.span(a)?)
    }

    /// Where, in one entry's input, the run of channels that tap `t` of output position `p`
    /// reads starts; `None` in the padding.
    pub fn source(&self, p: usize, t: usize) -> Option<usize> {
        let (o, k) = (
            [p / self.output[1].max(1), p % self.output[1].max(1)],
            [t / self.kernel[1].max(1), t % self.kernel[1].max(1)],
        );
        let at = |a: usize| -> Option<usize> {
            let i = o[a]
                .checked_mul(self.strides[a])?
                .checked_add(k[a].checked_mul(self.dilations[a])?)?
                .checked_sub(self.pads[a])?;
            (i < self.input[a]).then_some(i)
        };
        at(0)?.checked_mul(self.input[1])?.checked_add(at(1)?)?.checked_mul(self.channels)
    }

    /// Whether every size is positive and every product of sizes and every window's reach
    /// fits, as a position or as an offset (`isize`): then none of the methods saturates
    /// or wraps.
    pub fn valid(&self) -> bool {
        let all = [self.input, self.output, self.kernel, self.strides, self.dilations];
        let reach = |a: usize| {
            self.reach(a)?.checked_add(self.input[a])?.checked_add(self.pads[a]).filter(|&r| r <= isize::MAX as usize)
        };
        all.iter().all(|a| a.iter().all(|&v| v > 0))
            && self.channels > 0
            && self.entry().is_some_and(|e| e <= isize::MAX as usize)
            && self.output[0].checked_mul(self.output[1]).is_some()
            && self.taps().checked_mul(self.channels).is_some()
            && self.kernel[0].checked_mul(self.kernel[1]).is_some()
            && reach(0).is_some()
            && reach(1).is_some()
    }

    /// Whether the sizes hold together for a kernel of `C` channels: [`Windows::valid`], and
    /// `C` the windows' channels.
    #[inline(always)]
    pub fn holds<const C: usize>(&self) -> bool {
        self.channels == C && self.valid()
    }

    /// The input position before the first tap of output position `p`, per axis (negative
    /// in the padding before the data).
    #[inline(always)]
    pub fn base(&self, p: usize) -> [isize; 2] {
        let o = [p / self.output[1].max(1), p % self.output[1].max(1)];
        core::array::from_fn(|a| (o[a] * self.strides[a]) as isize - self.pads[a] as isize)
    }

    /// The run of `C` values that tap `(kh, kw)` of the window at `base` reads from the
    /// entry `x`; `None` in the padding.
    #[inline(always)]
    pub fn tap<'a, const C: usize>(
        &self,
        x: &'a [f32],
        base: [isize; 2],
        kh: usize,
        kw: usize,
    ) -> Option<&'a [f32; C]> {
        let ih = base[0] + (kh * self.dilations[0]) as isize;
        let iw = base[1] + (kw * self.dilations[1]) as isize;
        if ih < 0 || iw < 0 || ih as usize >= self.input[0] || iw as usize >= self.input[1] {
            return None;
        }
        let at = (ih as usize * self.input[1] + iw as usize) * C;
        x.get(at..)?.first_chunk::<C>()
    }

    /// Where the window at `base` starts in an entry, when every tap of it falls inside the
    /// data (no padding): then tap `(kh, kw)` reads at that start plus [`Windows::offset`].
    #[inline(always)]
    pub fn inside(&self, base: [isize; 2]) -> Option<usize> {
        let fits = |a: usize| base[a] >= 0 && self.span(a).is_some_and(|s| base[a] as usize + s < self.input[a]);
        (fits(0) && fits(1)).then(|| (base[0] as usize * self.input[1] + base[1] as usize) * self.channels)
    }

    /// How far tap `(kh, kw)` reads from its window's start.
    #[inline(always)]
    pub fn offset(&self, kh: usize, kw: usize) -> usize {
        (kh * self.dilations[0] * self.input[1] + kw * self.dilations[1]) * self.channels
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3×4 input of 2 channels, a 3×3 kernel, pad 1, stride 1: output 3×4.
    fn padded() -> Windows {
        Windows {
            input: [3, 4],
            output: [3, 4],
            kernel: [3, 3],
            strides: [1, 1],
            dilations: [1, 1],
            pads: [1, 1],
            channels: 2,
        }
    }

    #[test]
    fn a_tap_reads_its_position_or_the_padding() {
        let w = padded();
        assert!(w.valid() && w.holds::<2>() && !w.holds::<3>());
        assert_eq!((w.taps(), w.positions(), w.k(), w.input_len()), (9, 12, 18, 24));
        // Position (0, 0): its first row of taps and first column are padding.
        assert_eq!(w.source(0, 0), None);
        assert_eq!(w.source(0, 4), Some(0));
        assert_eq!(w.source(0, 8), Some((4 + 1) * 2));
        // Position (1, 3): tap (1, 2) is past the last column.
        assert_eq!(w.source(7, 5), None);
        assert_eq!(w.source(7, 3), Some((4 + 2) * 2));
        // Strided and dilated: position (0, 1) of stride 2, tap (0, 1) of dilation 2.
        let s = Windows { strides: [1, 2], dilations: [1, 2], pads: [0, 0], output: [1, 1], ..w };
        assert_eq!(s.source(0, 1), Some(2 * 2));
    }

    #[test]
    fn the_in_place_reads_agree_with_the_sources() {
        let w = Windows {
            input: [5, 6],
            output: [3, 3],
            kernel: [2, 3],
            strides: [2, 2],
            dilations: [2, 1],
            pads: [1, 1],
            channels: 3,
        };
        assert!(w.valid());
        let x: [f32; 90] = core::array::from_fn(|i| i as f32);
        for p in 0..w.positions() {
            let base = w.base(p);
            for t in 0..w.taps() {
                let (kh, kw) = (t / 3, t % 3);
                let run = w.tap::<3>(&x, base, kh, kw).map(|r| r[0] as usize);
                assert_eq!(run, w.source(p, t), "position {p}, tap {t}");
                if let (Some(start), Some(at)) = (w.inside(base), w.source(p, t)) {
                    assert_eq!(start + w.offset(kh, kw), at);
                }
            }
        }
    }

    #[test]
    fn sizes_that_overflow_or_vanish_are_not_valid() {
        let w = padded();
        assert!(!Windows { channels: 0, ..w }.valid());
        assert!(!Windows { strides: [0, 1], ..w }.valid());
        assert!(!Windows { input: [usize::MAX, 2], ..w }.valid());
        assert!(!Windows { dilations: [1, usize::MAX], ..w }.valid());
        assert_eq!(Windows { input: [usize::MAX, 2], ..w }.input_len(), usize::MAX);
    }
}
