//! Dense layers over the windows of a convolution, read in place (an implicit matrix
//! product): row `p` of the product is output position `p`, its `K` inputs the input's
//! values under the window, tap by tap, each tap a run of `C` channels of the input laid out
//! channels last, or zeros where the tap falls in the padding. No table and no copy of
//! the windows: each tap's run is found from the position, once per block of rows.
//!
//! Every output sums in the order of [`super::panel_acc`] from its bias (the taps in
//! order, each tap's channels in order, one fused multiply–add each where the level has
//! FMA), so its value does not depend on the block it falls in nor on the level, among the
//! levels with FMA: the same bits as the dense layer over the windows copied out.
use super::Row;
use crate::simd::Isa;

pub use cellc_pack::Windows;

/// The reads of a block of windows in place, over [`Windows`]' geometry: what the kernels
/// add to it.
pub(super) trait Reads {
    /// The run of `C` values that tap `(kh, kw)` of the window at `base` reads from the
    /// entry `x`, or `zero` in the padding.
    fn run<'a, const C: usize>(
        &self,
        x: &'a [f32],
        zero: &'a [f32; C],
        base: [isize; 2],
        kh: usize,
        kw: usize,
    ) -> &'a [f32; C];
    /// Where each of a block's windows starts, when all of them lie inside the data (see
    /// [`Windows::inside`]).
    fn starts<const RB: usize>(&self, bases: &[[isize; 2]; RB]) -> Option<[usize; RB]>;
    /// The runs tap `(kh, kw)` of a block's windows read: one addition each when the block
    /// lies inside the data (`starts`), else each found from its base.
    fn runs<'a, const C: usize, const RB: usize>(
        &self,
        x: &'a [f32],
        zero: &'a [f32; C],
        at: (&[[isize; 2]; RB], Option<[usize; RB]>),
        kh: usize,
        kw: usize,
    ) -> [&'a [f32; C]; RB];
    /// Whether the taps make `K` values of `C` channels and the sizes hold together
    /// ([`Windows::holds`]).
    fn fits<const C: usize, const K: usize>(&self) -> bool;
}

impl Reads for Windows {
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn run<'a, const C: usize>(
        &self,
        x: &'a [f32],
        zero: &'a [f32; C],
        base: [isize; 2],
        kh: usize,
        kw: usize,
    ) -> &'a [f32; C] {
        self.tap(x, base, kh, kw).unwrap_or(zero)
    }

    // Loops rather than `map` and `from_fn`, here and below: their closures, compiled apart
    // (see `array!`), were left as calls in the blocks' loop (a fifth of a 1-channel
    // layer's time, AMD Zen 3).
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn starts<const RB: usize>(&self, bases: &[[isize; 2]; RB]) -> Option<[usize; RB]> {
        let mut starts = [0; RB];
        for (s, &b) in starts.iter_mut().zip(bases) {
            *s = self.inside(b)?;
        }
        Some(starts)
    }

    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn runs<'a, const C: usize, const RB: usize>(
        &self,
        x: &'a [f32],
        zero: &'a [f32; C],
        (bases, starts): (&[[isize; 2]; RB], Option<[usize; RB]>),
        kh: usize,
        kw: usize,
    ) -> [&'a [f32; C]; RB] {
        let mut runs = [zero; RB];
        match starts {
            Some(starts) => {
                let off = self.offset(kh, kw);
                for (run, s) in runs.iter_mut().zip(starts) {
                    if let Some(v) = x.get(s + off..).and_then(|v| v.first_chunk::<C>()) {
                        *run = v;
                    }
                }
            }
            None => {
                for (run, &b) in runs.iter_mut().zip(bases) {
                    *run = self.run(x, zero, b, kh, kw);
                }
            }
        }
        runs
    }

    fn fits<const C: usize, const K: usize>(&self) -> bool {
        self.taps().checked_mul(C) == Some(K) && self.holds::<C>()
    }
}

/// For each entry of `x` (its `[height, width, C]` values) and each output position `p`:
/// `y[p·n + j] = bias(j) + Σₖ window(p)[k]·w(j, k)` for `j < n`, the windows as
/// [`Windows`] says, the tiles as [`super::dense_rows`] takes them (`T` a group; every tile
/// at once here). Writes nothing unless `x` holds whole entries, `y` `n` values per
/// position of each, and the tiles cover `n` outputs. The layer's activation is the
/// caller's, as for [`super::dense_rows`], or [`dense_windows_then`]'s.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(clippy::too_many_arguments)]
pub fn dense_windows<const C: usize, const K: usize, const W: usize, const T: usize, P, I>(
    panels: &[[P; K]],
    bias: &[[f32; W]],
    x: &[f32],
    y: &mut [f32],
    n: usize,
    win: &Windows,
    isa: I,
) where
    P: Row<W>,
    I: Isa,
{
    dense_windows_then::<C, K, W, T, P, I, _>(panels, bias, x, y, n, win, isa, |_| {});
}

/// [`dense_windows`], then `then` over each block of positions' outputs as soon as they are
/// written (the rows of a block of positions, every tile), while they are still in the
/// first-level cache: the layer's activation, without a pass of its own over the whole
/// output.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(clippy::too_many_arguments)]
pub fn dense_windows_then<const C: usize, const K: usize, const W: usize, const T: usize, P, I, F>(
    panels: &[[P; K]],
    bias: &[[f32; W]],
    x: &[f32],
    y: &mut [f32],
    n: usize,
    win: &Windows,
    isa: I,
    then: F,
) where
    P: Row<W>,
    I: Isa,
    F: Fn(&mut [f32]) + Copy,
{
    let positions = win.positions();
    let Some(entry) = win.entry() else { return };
    let entries = x.len().checked_div(entry).unwrap_or(0);
    let groups = panels.len() / T.max(1);
    let fits = win.fits::<C, K>()
        && T != 0
        && W != 0
        && entries * entry == x.len()
        && entries.checked_mul(positions).and_then(|r| r.checked_mul(n)) == Some(y.len())
        && panels.len() == bias.len()
        && panels.len().is_multiple_of(T)
        && groups.saturating_mul(T * W) >= n;
    if !fits || positions == 0 || n == 0 {
        return;
    }
    // Entries of one row (1-D windows) stack into one entry of as many rows: an output row
    // reads its own input row alone, so that a block of positions spans entries (a batch of
    // short frames: 8 entries of 1 position each ran 1 position a block).
    let stacked;
    let (win, entry, positions) =
        if entries > 1 && win.input[0] == 1 && win.output[0] == 1 && win.kernel[0] == 1 && win.pads[0] == 0 {
            stacked = Windows {
                input: [entries, win.input[1]],
                output: [entries, win.output[1]],
                strides: [1, win.strides[1]],
                dilations: [1, win.dilations[1]],
                ..*win
            };
            (&stacked, x.len(), y.len() / n)
        } else {
            (win, entry, positions)
        };
    if !win.holds::<C>() {
        return;
    }
    let zero = [0.0f32; C];
    for (xe, ye) in x.chunks_exact(entry.max(1)).zip(y.chunks_exact_mut(positions * n)) {
        #[cfg(target_arch = "x86_64")]
        {
            // Windows that each read one long run of the input (an STFT's frames, a 1-D
            // layer over few channels) are rows of a product read in place: the dense
            // layer's blocks, with no tap-by-tap bookkeeping.
            if W <= 16
                && C < FEW_CHANNELS
                && K >= LONG_RUN
                && let Some(rows) = one_run::<K>(win, xe)
            {
                if let Some(z) = isa.avx512() {
                    super::wide::dense_avx512::<K, W, P, F>(z, panels, bias, rows, ye, n, then);
                    continue;
                }
                if let Some(v) = isa.avx2() {
                    super::wide::dense_avx2::<K, W, P, F>(v, panels, bias, rows, ye, n, then);
                    continue;
                }
            }
            use super::blocked::{Ymm, Zmm};
            if W <= 16
                && let Some(z) = isa.avx512()
            {
                reg_blocks::<Zmm, C, K, W, 1, P, F>(Zmm(z), (panels, bias, xe, ye, n, win, &zero), then);
                continue;
            }
            if let Some(v) = isa.avx2() {
                match W {
                    ..=8 => reg_blocks::<Ymm, C, K, W, 1, P, F>(Ymm(v), (panels, bias, xe, ye, n, win, &zero), then),
                    9..=16 => reg_blocks::<Ymm, C, K, W, 2, P, F>(Ymm(v), (panels, bias, xe, ye, n, win, &zero), then),
                    _ => lanes::<C, K, W, 4, P, I, F>(panels, bias, xe, ye, n, win, &zero, isa, then),
                }
                continue;
            }
        }
        lanes::<C, K, W, 4, P, I, F>(panels, bias, xe, ye, n, win, &zero, isa, then);
    }
}

/// Channels under which a window that reads one run of the input goes through the dense
/// layer's blocks (see [`one_run`]); from 4 channels on, the tap-by-tap blocks already
/// read each tap's channels as a run.
#[cfg(target_arch = "x86_64")]
const FEW_CHANNELS: usize = 4;

/// The values a window must read in one run to go through the dense layer's blocks: a
/// short run (a kernel of 3 over one channel) keeps the tap-by-tap blocks, which share each
/// broadcast input between two tiles.
#[cfg(target_arch = "x86_64")]
const LONG_RUN: usize = 16;

/// The windows of `win` over the entry `x` as the rows of a product read in place, when
/// each window's taps are one run of the input (the taps in order, each the next `C`
/// values) and every window lies inside the data.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn one_run<'a, const K: usize>(win: &Windows, x: &'a [f32]) -> Option<super::wide::Rows<'a, K>> {
    let [kh, kw] = win.kernel;
    let runs =
        (kw == 1 || win.dilations[1] == 1) && (kh == 1 || win.dilations[0].checked_mul(win.input[1]) == Some(kw));
    if !runs {
        return None;
    }
    // The positions' bases grow along each axis: the first and the last window bound them.
    let positions = win.positions();
    let first = win.inside(win.base(0))?;
    win.inside(win.base(positions.checked_sub(1)?))?;
    let line = win.strides[0].checked_mul(win.input[1])?.checked_mul(win.channels)?;
    let step = win.strides[1].checked_mul(win.channels)?;
    super::wide::Rows::strided(x.get(first..)?, positions, win.output[1], line, step)
}

/// The outputs `j0..` of a position's row of `y` (`n` values) take the first lanes of `v`.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn put<const W: usize>(yr: &mut [f32], j0: usize, v: &[f32; W]) {
    if let Some(out) = yr.get_mut(j0..) {
        for (o, &v) in out.iter_mut().zip(v) {
            *o = v;
        }
    }
}

/// Any level, in arrays of lanes: blocks of `RB` positions, one tile at a time.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(clippy::too_many_arguments)]
fn lanes<
    const C: usize,
    const K: usize,
    const W: usize,
    const RB: usize,
    P: Row<W>,
    I: Isa,
    F: Fn(&mut [f32]) + Copy,
>(
    panels: &[[P; K]],
    bias: &[[f32; W]],
    x: &[f32],
    y: &mut [f32],
    n: usize,
    win: &Windows,
    zero: &[f32; C],
    isa: I,
    then: F,
) {
    let positions = win.positions();
    let mut p0 = 0;
    while p0 < positions {
        let rb = RB.min(positions - p0);
        let bases: [[isize; 2]; RB] = core::array::from_fn(|r| win.base(p0 + r.min(rb - 1)));
        let starts = win.starts(&bases);
        for (t, (panel, b)) in panels.iter().zip(bias).enumerate() {
            if t * W >= n {
                break;
            }
            let taps = panel.as_chunks::<C>().0;
            let mut acc = [*b; RB];
            for kh in 0..win.kernel[0] {
                for kw in 0..win.kernel[1] {
                    let Some(tap) = taps.get(kh * win.kernel[1] + kw) else { return };
                    let xs = win.runs(x, zero, (&bases, starts), kh, kw);
                    for (c, row) in tap.iter().enumerate() {
                        for (a, xr) in acc.iter_mut().zip(&xs).take(rb) {
                            row.axpy(isa, a, xr[c]);
                        }
                    }
                }
            }
            for (r, a) in acc.iter().enumerate().take(rb) {
                put(&mut y[(p0 + r) * n..(p0 + r + 1) * n], t * W, a);
            }
        }
        then(&mut y[p0 * n..(p0 + rb) * n]);
        p0 += rb;
    }
}

#[cfg(target_arch = "x86_64")]
mod reg;
#[cfg(target_arch = "x86_64")]
use reg::reg_blocks;

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::simd::Portable;
    use std::{format, vec, vec::Vec};

    /// The input position (row-major) that tap `t` of output position `p` reads, listed from
    /// the definition; `None` in the padding.
    pub(in crate::kernel) fn position(win: &Windows, p: usize, t: usize) -> Option<usize> {
        let (oh, ow) = (p / win.output[1], p % win.output[1]);
        let (kh, kw) = (t / win.kernel[1], t % win.kernel[1]);
        let ih = (oh * win.strides[0] + kh * win.dilations[0]).checked_sub(win.pads[0])?;
        let iw = (ow * win.strides[1] + kw * win.dilations[1]).checked_sub(win.pads[1])?;
        (ih < win.input[0] && iw < win.input[1]).then_some(ih * win.input[1] + iw)
    }

    /// The layer over the windows copied out, each output summed from its bias tap by tap,
    /// channel by channel, as `isa` multiplies and adds (fused or not).
    fn reference<const C: usize, const K: usize, const W: usize, I: Isa>(
        panels: &[[[f32; W]; K]],
        bias: &[[f32; W]],
        x: &[f32],
        n: usize,
        win: &Windows,
        _: I,
    ) -> Vec<f32> {
        let entry = win.input[0] * win.input[1] * C;
        let mut y = Vec::new();
        for xe in x.chunks_exact(entry) {
            for p in 0..win.positions() {
                let mut window = vec![0.0f32; K];
                for t in 0..win.kernel[0] * win.kernel[1] {
                    if let Some(at) = position(win, p, t) {
                        window[t * C..(t + 1) * C].copy_from_slice(&xe[at * C..(at + 1) * C]);
                    }
                }
                for j in 0..n {
                    let (t, l) = (j / W, j % W);
                    let mut s = bias[t][l];
                    for (k, &v) in window.iter().enumerate() {
                        s = if I::FUSED { panels[t][k][l].mul_add(v, s) } else { s + panels[t][k][l] * v };
                    }
                    y.push(s);
                }
            }
        }
        y
    }

    fn check<const C: usize, const K: usize, const W: usize>(tiles: usize, n: usize, win: Windows, entries: usize) {
        let win = Windows { channels: C, ..win };
        let v = |i: usize| ((i as f32) * 0.37).sin();
        let panels: Vec<[[f32; W]; K]> =
            (0..tiles).map(|t| core::array::from_fn(|k| core::array::from_fn(|l| v(t * 1000 + k * W + l)))).collect();
        let bias: Vec<[f32; W]> = (0..tiles).map(|t| core::array::from_fn(|l| v(7000 + t * W + l))).collect();
        let x: Vec<f32> = (0..entries * win.input[0] * win.input[1] * C).map(|i| v(9000 + i) + 1.5).collect();
        let len = entries * win.positions() * n;
        let what = format!("{win:?}, {C} channels, {tiles} tiles, {n} outputs, {entries} entries");
        // At the level this CPU runs, and at the portable one.
        let mut y = vec![f32::NAN; len + 3];
        let fused = crate::dispatch!(|_L, isa| {
            dense_windows::<C, K, W, 1, _, _>(&panels, &bias, &x, &mut y[..len], n, &win, isa);
            reference::<C, K, W, _>(&panels, &bias, &x, n, &win, isa)
        });
        assert_eq!(&y[..len], &fused[..], "{what}");
        assert!(y[len..].iter().all(|v| v.is_nan()), "nothing written past the outputs: {what}");
        let mut y = vec![f32::NAN; len];
        dense_windows::<C, K, W, 1, _, _>(&panels, &bias, &x, &mut y, n, &win, Portable);
        assert_eq!(y, reference::<C, K, W, _>(&panels, &bias, &x, n, &win, Portable), "portable: {what}");
        // A map over each run as it is written: every output mapped once.
        let mut y = vec![f32::NAN; len];
        let then = |run: &mut [f32]| run.iter_mut().for_each(|v| *v = v.max(0.0) * 0.5 - 1.0);
        crate::dispatch!(|_L, isa| dense_windows_then::<C, K, W, 1, _, _, _>(
            &panels, &bias, &x, &mut y, n, &win, isa, then
        ));
        let mapped: Vec<f32> = fused.iter().map(|v| v.max(0.0) * 0.5 - 1.0).collect();
        assert_eq!(y, mapped, "mapped: {what}");
        // Wrong lengths: nothing written.
        let mut y = vec![f32::NAN; len + 1];
        dense_windows::<C, K, W, 1, _, _>(&panels, &bias, &x, &mut y, n, &win, Portable);
        assert!(y.iter().all(|v| v.is_nan()), "{what}");
    }

    /// The windows over `input` of this kernel, strides, dilations and padding (as much
    /// after as before).
    pub(in crate::kernel) fn win(
        input: [usize; 2],
        kernel: [usize; 2],
        strides: [usize; 2],
        dilations: [usize; 2],
        pads: [usize; 2],
    ) -> Windows {
        let ends = [pads[0], pads[1]];
        let output = core::array::from_fn(|a| {
            (input[a] + pads[a] + ends[a] - (kernel[a] - 1) * dilations[a] - 1) / strides[a] + 1
        });
        Windows { input, output, kernel, strides, dilations, pads, channels: 0 }
    }

    #[test]
    fn every_window_reads_its_taps_in_place() {
        // 2-D, padded: every block shape (tiles 1 to 5, partial tiles) and a rest of positions.
        let same = win([5, 7], [3, 3], [1, 1], [1, 1], [1, 1]);
        check::<3, 27, 16>(1, 16, same, 1);
        check::<3, 27, 16>(2, 32, same, 2);
        check::<3, 27, 16>(3, 40, same, 1);
        check::<3, 27, 16>(4, 64, same, 1);
        check::<3, 27, 16>(5, 70, same, 1);
        check::<3, 27, 8>(1, 5, same, 1);
        check::<3, 27, 8>(3, 20, same, 1);
        check::<3, 27, 4>(2, 7, same, 1);
        // Wide enough for blocks of positions whose windows lie inside the data.
        check::<3, 27, 16>(2, 32, win([12, 40], [3, 3], [1, 1], [1, 1], [1, 1]), 1);
        check::<2, 18, 16>(3, 48, win([14, 44], [3, 3], [1, 2], [2, 3], [2, 1]), 1);
        // Strided, dilated, uneven padding.
        check::<5, 30, 16>(2, 20, win([9, 8], [2, 3], [2, 3], [2, 1], [1, 2]), 1);
        check::<2, 18, 16>(1, 9, win([6, 6], [3, 3], [2, 2], [2, 2], [2, 0]), 3);
        // 1-D, as a height of 1; a window larger than the input in the padding.
        check::<4, 20, 16>(3, 48, win([1, 19], [1, 5], [1, 1], [1, 1], [0, 2]), 1);
        check::<1, 9, 16>(1, 16, win([1, 4], [1, 9], [1, 1], [1, 1], [0, 4]), 2);
        check::<8, 24, 16>(2, 17, win([1, 11], [1, 3], [1, 2], [1, 3], [0, 0]), 1);
        // Panels past a pass's bytes (45 tiles of 192 taps: 540 KB; 60 of 144): passes of
        // tiles over every position, the last pass short, its last tile partial.
        check::<64, 192, 16>(45, 711, win([1, 17], [1, 3], [1, 1], [1, 1], [0, 1]), 1);
        check::<16, 144, 16>(60, 950, win([5, 7], [3, 3], [1, 1], [1, 1], [1, 1]), 2);
    }

    #[test]
    fn windows_of_one_run_read_as_the_rows_of_a_product() {
        // Few channels, each window one run of at least 16 values: strided 1-D layers (an
        // STFT's frames), kernels as wide as the input, a column; entries stacked.
        check::<1, 32, 16>(3, 40, win([1, 140], [1, 32], [1, 5], [1, 1], [0, 0]), 1);
        check::<1, 32, 16>(1, 16, win([1, 140], [1, 32], [1, 5], [1, 1], [0, 0]), 3);
        check::<1, 32, 8>(5, 37, win([1, 90], [1, 32], [1, 2], [1, 1], [0, 0]), 2);
        check::<2, 18, 16>(4, 64, win([1, 260], [1, 9], [1, 1], [1, 1], [0, 0]), 1);
        check::<3, 27, 16>(2, 20, win([3, 50], [1, 9], [2, 3], [1, 1], [0, 0]), 1);
        check::<1, 16, 16>(2, 32, win([6, 8], [2, 8], [1, 1], [1, 1], [0, 0]), 2);
        check::<1, 16, 16>(2, 31, win([60, 1], [16, 1], [3, 1], [1, 1], [0, 0]), 1);
        // Each count of positions, through every block of rows (24 at AVX-512 over one tile).
        for positions in [1, 2, 3, 4, 5, 7, 13, 24, 25, 31] {
            let w = win([1, positions + 15], [1, 16], [1, 1], [1, 1], [0, 0]);
            check::<1, 16, 16>(1, 16, w, 1);
            check::<1, 16, 16>(3, 35, w, 1);
            check::<1, 16, 16>(5, 80, w, 1);
        }
        // Not one run, or not inside the data: the tap-by-tap blocks, the same sums.
        check::<1, 32, 16>(3, 40, win([1, 140], [1, 32], [1, 5], [1, 1], [0, 7]), 1);
        check::<1, 16, 16>(2, 32, win([1, 140], [1, 16], [1, 1], [1, 2], [0, 0]), 1);
        check::<1, 16, 16>(2, 32, win([6, 9], [2, 8], [1, 1], [1, 1], [0, 0]), 1);
        // Panels past a pass's bytes (130 tiles of 32 taps: 260 KB): two passes of tiles
        // over every row, the last tile partial.
        check::<1, 32, 16>(130, 2075, win([1, 60], [1, 32], [1, 4], [1, 1], [0, 0]), 1);
    }

    #[test]
    fn a_few_positions_go_through_every_smaller_block() {
        // 1 to 9 positions: fewer than a block of positions, or a block and a rest of each
        // size; tiles in groups of 8, 4, 2 and 1 beside them.
        for positions in 1..=9 {
            let w = win([1, positions + 2], [1, 3], [1, 1], [1, 1], [0, 0]);
            check::<2, 6, 16>(15, 233, w, 1);
            check::<2, 6, 16>(3, 40, w, 2);
            check::<2, 6, 8>(15, 117, w, 1);
            check::<1, 3, 4>(7, 26, w, 1);
        }
        // Entries of one position each, 1-D: stacked, their positions make blocks.
        for entries in [2, 5, 8, 13] {
            check::<2, 6, 16>(5, 70, win([1, 3], [1, 3], [1, 1], [1, 1], [0, 0]), entries);
            check::<3, 9, 16>(3, 48, win([1, 4], [1, 3], [1, 2], [1, 1], [0, 1]), entries);
        }
    }
}
