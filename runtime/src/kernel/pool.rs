//! Pools over windows read in place: each output position's window of an input laid out
//! channels last is reduced channel by channel, its taps' runs of `C` values found from the
//! position (the padding takes no part), with no table and no copy of the windows. The
//! `C` channels of a position are independent lanes, reduced tap by tap in order, so the
//! result does not depend on the vector level.
use super::Windows;

/// For each entry of `x` (its `[height, width, C]` values), output position `p` and channel
/// `c`: `y[p·C + c]` is the largest (`MAX`) or the sum of channel `c`'s values under window
/// `p`, tap by tap in order. The largest starts from `f32::MIN` (OpenVINO's `MaxPool`: a
/// window of padding alone, or of `-inf` alone, gives that) and keeps its value against a
/// NaN; the sum starts from zero. Writes nothing unless `x` holds whole entries and `y`
/// `C` values per position of each.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn pool_windows<const C: usize, const MAX: bool>(win: &Windows, x: &[f32], y: &mut [f32]) {
    let positions = win.positions();
    let Some(entry) = win.entry() else { return };
    let entries = x.len().checked_div(entry).unwrap_or(0);
    let fits = win.holds::<C>()
        && entries * entry == x.len()
        && entries.checked_mul(positions).and_then(|r| r.checked_mul(C)) == Some(y.len());
    if !fits || positions == 0 {
        return;
    }
    for (xe, ye) in x.chunks_exact(entry).zip(y.chunks_exact_mut(positions * C)) {
        for (p, out) in ye.as_chunks_mut::<C>().0.iter_mut().enumerate() {
            let base = win.base(p);
            // Channels in blocks of 32 lanes, each block over every tap: a block's values
            // stay in registers. All `C` at once, 64 channels made LLVM keep them on the
            // stack through masked stores in a build without `-C target-cpu` (2×2 windows
            // of 64 channels at 16×40 positions: 110 against 13 µs, AMD Zen 3); blocks of
            // 16 lanes found each tap twice as often, 32 channels 1.3× slower.
            let (blocks, rest) = out.as_chunks_mut::<LANES>();
            for (b, block) in blocks.iter_mut().enumerate() {
                reduce::<C, LANES, MAX>(win, xe, base, b * LANES, block);
            }
            for (l, one) in rest.iter_mut().enumerate() {
                reduce::<C, 1, MAX>(win, xe, base, blocks.len() * LANES + l, core::array::from_mut(one));
            }
        }
    }
}

/// The lanes a block of channels reduces at once.
const LANES: usize = 32;

/// Channels `c0..c0 + N` of the window at `base` of the entry `xe`, reduced tap by tap in
/// order into `out` (see [`pool_windows`]).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn reduce<const C: usize, const N: usize, const MAX: bool>(
    win: &Windows,
    xe: &[f32],
    base: [isize; 2],
    c0: usize,
    out: &mut [f32; N],
) {
    let mut acc = [if MAX { f32::MIN } else { 0.0 }; N];
    for kh in 0..win.kernel[0] {
        for kw in 0..win.kernel[1] {
            let Some(run) = win.tap::<C>(xe, base, kh, kw) else { continue };
            let Some(run) = run.get(c0..).and_then(<[f32]>::first_chunk::<N>) else { continue };
            for (a, &v) in acc.iter_mut().zip(run) {
                *a = if !MAX {
                    *a + v
                } else if v > *a {
                    v
                } else {
                    *a
                };
            }
        }
    }
    *out = acc;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::windows::tests::{position, win};
    use std::{format, vec, vec::Vec};

    /// Each output from the window's taps listed one by one, in `f64` (exact for these
    /// sums of few values) rounded once.
    fn reference<const C: usize>(x: &[f32], win: &Windows, max: bool) -> Vec<f32> {
        let entry = win.input[0] * win.input[1] * C;
        let mut y = Vec::new();
        for xe in x.chunks_exact(entry) {
            for p in 0..win.output[0] * win.output[1] {
                for c in 0..C {
                    let taps = (0..win.kernel[0] * win.kernel[1]).filter_map(|t| position(win, p, t));
                    let vals: Vec<f32> = taps.map(|at| xe[at * C + c]).collect();
                    y.push(if max {
                        vals.iter().copied().filter(|v| !v.is_nan()).fold(f32::MIN, f32::max)
                    } else {
                        vals.iter().map(|&v| f64::from(v)).sum::<f64>() as f32
                    });
                }
            }
        }
        y
    }

    fn check<const C: usize>(win: Windows, entries: usize) {
        let win = Windows { channels: C, ..win };
        // Values in steps of 1/8 (sums exact in f32), a NaN and -inf among them.
        let mut x: Vec<f32> =
            (0..entries * win.input[0] * win.input[1] * C).map(|i| ((i * 37 % 101) as f32 - 50.0) / 8.0).collect();
        x[C + 1] = f32::NEG_INFINITY;
        let len = entries * win.positions() * C;
        for max in [true, false] {
            if !max {
                x[2 * C] = f32::NAN;
            }
            let what = format!("{win:?}, {C} channels, {entries} entries, max {max}");
            let mut y = vec![f32::INFINITY; len + 2];
            crate::dispatch!(|_L| if max {
                pool_windows::<C, true>(&win, &x, &mut y[..len])
            } else {
                pool_windows::<C, false>(&win, &x, &mut y[..len])
            });
            let want = reference::<C>(&x, &win, max);
            let same = y[..len].iter().zip(&want).all(|(a, b)| a == b || a.is_nan() && b.is_nan());
            assert!(same, "{what}: {:?} against {want:?}", &y[..len]);
            assert!(y[len..].iter().all(|v| *v == f32::INFINITY), "nothing written past the outputs: {what}");
            // Wrong lengths: nothing written.
            let mut y = vec![f32::INFINITY; len + 1];
            pool_windows::<C, true>(&win, &x, &mut y);
            assert!(y.iter().all(|v| *v == f32::INFINITY), "{what}");
        }
    }

    #[test]
    fn every_window_is_reduced_in_place() {
        // 2×2 of stride 2 (the common max pool), several entries.
        check::<16>(win([6, 8], [2, 2], [2, 2], [1, 1], [0, 0]), 2);
        // Padded: windows partly, and at a corner wholly, in the padding.
        check::<3>(win([5, 7], [3, 3], [1, 1], [1, 1], [1, 1]), 1);
        check::<5>(win([4, 4], [2, 2], [1, 1], [1, 1], [1, 1]), 1);
        check::<4>(win([3, 3], [2, 2], [1, 1], [1, 1], [2, 2]), 1);
        // Strided, dilated; 1-D as a height of 1.
        check::<8>(win([9, 8], [2, 3], [2, 3], [2, 1], [1, 2]), 1);
        check::<1>(win([1, 19], [1, 4], [1, 3], [1, 1], [0, 2]), 3);
        // Channels past one block of lanes: two whole blocks; a block and 5 lanes, padded.
        check::<64>(win([4, 6], [2, 2], [2, 2], [1, 1], [0, 0]), 2);
        check::<37>(win([5, 7], [3, 3], [1, 1], [1, 1], [1, 1]), 1);
    }
}
