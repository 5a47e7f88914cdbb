//! The copy of a convolution's input that the planar kernel reads: each channel's rows
//! (laid out channels first, as the model holds them) with the padding along the width
//! written out and the width split by the stride's phase, so that the taps of a row of
//! output positions read one contiguous run each — a vector of positions per load, the
//! weights broadcast. Rows in the padding along the height all read one row of zeros. One
//! definition for the compiler (its plan, its work area, its C) and the runtime's kernel.
use crate::Windows;

/// Output positions a vector may hold (AVX-512's 16 lanes): each row of the copy reaches a
/// whole number of them past the last output, so that no vector load leaves it.
pub const LANES: usize = 16;

/// Values of a cache line (64 bytes).
pub const LINE: usize = 16;

/// The copy's geometry for windows `win` (input `[height, width]` of `channels` channels).
///
/// The copy holds, for channel `c` and input row `i`, [`Planar::phases`] runs of
/// [`Planar::len`] values: value `j` of phase `φ` is the input at padded column
/// `j·stride + φ` (`pad` columns of zeros before the data, zeros after it). Then the
/// positions `ow..ow + L` of tap column `kw` read phase `kw·dilation mod stride` from value
/// `ow + kw·dilation / stride` on, contiguously. After the `channels · height` rows comes
/// one row of zeros, which the taps that fall in the padding along the height read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Planar {
    /// The windows.
    pub win: Windows,
    /// Phases of a row (the stride along the width).
    pub phases: usize,
    /// Values of a phase of a row.
    pub len: usize,
}

impl Planar {
    /// The geometry for `win`, `None` where it is not valid ([`Windows::valid`]) or a size
    /// overflows.
    pub fn of(win: &Windows) -> Option<Planar> {
        if !win.valid() {
            return None;
        }
        let phases = win.strides[1];
        let reach = (win.kernel[1] - 1).checked_mul(win.dilations[1])? / phases;
        let len = win.output[1].checked_next_multiple_of(LANES)?.checked_add(reach)?;
        let p = Planar { win: *win, phases, len };
        p.work()?;
        Some(p)
    }

    /// Values of one row (every phase).
    #[inline(always)]
    pub const fn row_len(&self) -> usize {
        self.phases * self.len
    }

    /// Values from one channel's first row to the next channel's: its `height` rows, then
    /// up to two cache lines more, so that the distance is an odd number of lines. Planes
    /// of a power-of-two size (128 rows of 64 values: 32 KiB) would put every channel's row
    /// at the same place in a page, and the channels one tap of a block reads in the same
    /// set of the L1 cache, more of them than it has ways: a 12→12 7×1 layer over 128×62
    /// positions took 1.12× as long (AMD Zen 3).
    #[inline(always)]
    pub const fn plane(&self) -> usize {
        ((self.win.input[0] * self.row_len()).div_ceil(LINE) | 1) * LINE
    }

    /// Values of the copy of one entry: its `channels` planes, then the row of zeros.
    #[inline(always)]
    pub const fn copy_len(&self) -> usize {
        self.win.channels * self.plane() + self.row_len()
    }

    /// Values of the work area the kernel takes: the copy, and up to a cache line before it,
    /// so that it starts on a line ([`Planar::skip`]) wherever the work area does (a row of
    /// 64 values read in vectors across two lines each took a 12→12 7×1 layer 1.17× as long).
    pub fn work(&self) -> Option<usize> {
        let lines = self.win.input[0].checked_mul(self.phases.checked_mul(self.len)?)?.div_ceil(LINE);
        let plane = (lines | 1).checked_mul(LINE)?;
        self.win.channels.checked_mul(plane)?.checked_add(self.row_len())?.checked_add(LINE - 1)
    }

    /// Values to skip, from a work area of `f32` values at address `at`, to its first value
    /// on a cache line (of 64 bytes).
    #[inline(always)]
    pub const fn skip(at: usize) -> usize {
        (LINE - at / 4 % LINE) % LINE
    }

    /// Where the row of zeros starts.
    #[inline(always)]
    pub const fn zeros(&self) -> usize {
        self.win.channels * self.plane()
    }

    /// The input row that tap row `kh` of output row `oh` reads, `None` in the padding.
    #[inline(always)]
    pub const fn input_row(&self, oh: usize, kh: usize) -> Option<usize> {
        let w = &self.win;
        let r = oh * w.strides[0] + kh * w.dilations[0];
        if r < w.pads[0] || r - w.pads[0] >= w.input[0] {
            return None;
        }
        Some(r - w.pads[0])
    }

    /// Where channel `c`'s copy of input row `i` starts.
    #[inline(always)]
    pub const fn row(&self, c: usize, i: usize) -> usize {
        c * self.plane() + i * self.row_len()
    }

    /// How far, from the start of a row, tap column `kw` of output column 0 reads.
    #[inline(always)]
    pub const fn column(&self, kw: usize) -> usize {
        let q = kw * self.win.dilations[1];
        (q % self.phases) * self.len + q / self.phases
    }

    /// The data of phase `phase` of a row: from value `start`, `n` values, input columns
    /// `from`, `from + stride`, …; zeros elsewhere ([`Planar::place`] column by column).
    #[inline(always)]
    pub fn phase_run(&self, phase: usize) -> (usize, usize, usize) {
        let (s, pad, width) = (self.phases, self.win.pads[1], self.win.input[1]);
        // The first value whose padded column `j·stride + phase` is past the padding.
        let start = pad.saturating_sub(phase).div_ceil(s).min(self.len);
        let from = (start * s + phase).saturating_sub(pad);
        let n = if from < width { (width - from).div_ceil(s).min(self.len - start) } else { 0 };
        (start, from, n)
    }

    /// With a stride of 2: the input columns `from + 2t` and `from + 2t + 1`, `t < n`, are
    /// value `start + t` of phases 0 and 1 (a run both phases share, copied in pairs):
    /// `(start, from, n)`; `None` for other strides.
    #[inline(always)]
    pub fn pairs(&self) -> Option<(usize, usize, usize)> {
        if self.phases != 2 {
            return None;
        }
        let ((s0, f0, n0), (s1, _, n1)) = (self.phase_run(0), self.phase_run(1));
        Some((s0, f0, n0.min((s1 + n1).saturating_sub(s0))))
    }

    /// Where, in a row of the copy, input column `iw` goes; `None` where no window reads it.
    #[inline(always)]
    pub const fn place(&self, iw: usize) -> Option<usize> {
        let q = iw + self.win.pads[1];
        if q / self.phases >= self.len {
            return None;
        }
        Some((q % self.phases) * self.len + q / self.phases)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tap_reads_its_input_column_in_the_copy() {
        // Strided, dilated and padded along the width: the copy's value that output column
        // `ow` of tap `kw` reads is the input at `ow·stride + kw·dilation − pad`.
        let win = Windows {
            input: [3, 11],
            output: [2, 5],
            kernel: [2, 3],
            strides: [2, 2],
            dilations: [1, 2],
            pads: [1, 2],
            channels: 2,
        };
        let p = Planar::of(&win).expect("the copy's sizes fit");
        assert_eq!((p.phases, p.len), (2, 16 + 2));
        // Each channel's 3 rows of 36 values, 108 (7 lines), then the row of zeros, and a
        // line's slack to start on one.
        assert_eq!(p.plane(), 7 * 16);
        assert_eq!(p.copy_len(), 2 * 7 * 16 + 2 * 18);
        assert_eq!(p.work(), Some(p.copy_len() + 15));
        for iw in 0..11 {
            let at = p.place(iw).expect("a column the windows read");
            for ow in 0..5 {
                for kw in 0..3 {
                    let col = ow * 2 + kw * 2;
                    if col >= 2 && col - 2 == iw {
                        assert_eq!(p.column(kw) + ow, at, "ow {ow} kw {kw}");
                    }
                }
            }
        }
        // Each phase's run holds exactly the columns `place` puts in it.
        for phase in 0..2 {
            let (start, from, n) = p.phase_run(phase);
            let placed = (0..11).filter_map(|iw| Some((p.place(iw)?, iw))).filter(|&(at, _)| at / 18 == phase);
            assert!((0..n).map(|j| (phase * 18 + start + j, from + j * 2)).eq(placed), "phase {phase}");
        }
        // The pairs: both columns where `place` puts them.
        for pad in 0..4 {
            let p = Planar::of(&Windows { pads: [1, pad], ..win }).expect("the copy's sizes fit");
            let (start, from, n) = p.pairs().expect("a stride of 2");
            assert!(n >= 3, "pad {pad}: {n} pairs");
            for t in 0..n {
                let (a, b) = (p.place(from + 2 * t), p.place(from + 2 * t + 1));
                assert_eq!((a, b), (Some(start + t), Some(p.len + start + t)), "pad {pad}, pair {t}");
            }
        }
        // Rows: output row 0's first tap row is the padding, its second input row 0.
        assert_eq!((p.input_row(0, 0), p.input_row(0, 1), p.input_row(1, 1)), (None, Some(0), Some(2)));
        assert_eq!(p.input_row(2, 1), None);
    }

    #[test]
    fn sizes_that_overflow_have_no_copy() {
        let win = Windows {
            input: [1, 4],
            output: [1, usize::MAX / 2],
            kernel: [1, 1],
            strides: [1, 1],
            dilations: [1, 1],
            pads: [0, 0],
            channels: 1,
        };
        assert_eq!(Planar::of(&win), None);
    }
}
