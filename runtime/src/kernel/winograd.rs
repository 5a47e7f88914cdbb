//! A 3×3 convolution of stride 1 by Winograd's minimal filtering, F(2×2, 3×3): each 2×2
//! block of outputs (a *tile*; with a dilation, outputs as far apart as the taps) from the
//! 4×4 block of inputs under it, with 16 products of
//! a channel vector by a transformed weight matrix where the direct sum takes 36 — 2.25×
//! fewer multiply–adds. For a block of tiles the input is transformed (`Bᵀ·d·B`, additions
//! only) into a work area, the 16 products run through the dense kernel of many rows
//! ([`super::dense_rows_wide`], the block's tiles its rows), and their results are
//! transformed back (`Aᵀ·m·A`), the bias added and written out, the layer's activation
//! then mapped over the block's outputs.
//!
//! The weights are transformed at compile time (`U = G·g·Gᵀ` for each output and input
//! channel, then packed for the dense kernel, one layer per component). The values differ
//! from a direct sum's by rounding alone: the transforms add and subtract (and halve,
//! exactly, in the weights').
//!
//! The transforms add up to four inputs, and the products of transformed values are larger
//! than the direct sum's: inputs past `f32::MAX / 4` (or an infinity, or a NaN) make a
//! tile's outputs infinite or NaN where the direct sum may give a finite value (or, for an
//! infinite input, an infinity). So every tile whose outputs are not all finite is
//! computed again by the direct sum, over the layer's weights as the model holds them:
//! the layer gives what the direct sum gives for every input.
use super::{Block, Row, Schedule, Windows, dense_rows_wide};
use crate::simd::Isa;
use cellc_pack::winograd::{Grid, input_columns, input_rows, output_columns, output_rows};

/// The input and output transforms at one level: in arrays of lanes, or in vector
/// registers. Every level adds the same terms in the same order.
///
/// Their arrays are filled by loops, not `core::array::from_fn`: its closures are compiled
/// without the dispatched level's target features (see `array!` in the kernels' module),
/// and were left as calls, each vector load with them (a tenth of a 32-channel layer's time,
/// AMD Zen 3).
trait Transforms: Copy {
    /// The most tiles transformed and multiplied together at this level, whatever the work
    /// area holds.
    const MOST: usize;
    /// The components of `Bᵀ·d·B` for a 4×4 block `d` of `C`-channel runs (row-major),
    /// component `ξ` written to `v[ξ·stride]` (nothing when `v` is too short).
    fn input<const C: usize>(self, d: &[&[f32; C]; 16], v: &mut [[f32; C]], stride: usize);
    /// `Aᵀ·m·A + b` for the 16 components `m` of a tile's products: its outputs (0, 0),
    /// (0, 1), (1, 0), (1, 1). Adds to `fin`, lane by lane, a term of each output `y` that is
    /// zero for a finite `y` and NaN otherwise (`y − y`, or `0·y`): `fin` stays zero while
    /// every output is finite.
    fn output<const W: usize>(self, m: &[&[f32; W]; 16], b: &[f32; W], fin: &mut [f32; W]) -> [[f32; W]; 4];
}

/// Arrays of lanes, any level.
#[derive(Clone, Copy)]
struct InArrays;

impl Transforms for InArrays {
    const MOST: usize = usize::MAX;

    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn input<const C: usize>(self, d: &[&[f32; C]; 16], v: &mut [[f32; C]], stride: usize) {
        if v.len() <= 15 * stride {
            return;
        }
        for c in 0..C {
            let mut x = [0.0f32; 16];
            for (x, d) in x.iter_mut().zip(d) {
                *x = d[c];
            }
            let t = input_rows(&x, |a, b| a + b, |a, b| a - b);
            let out = input_columns(&t, |a, b| a + b, |a, b| a - b);
            for (xi, o) in out.into_iter().enumerate() {
                v[xi * stride][c] = o;
            }
        }
    }

    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn output<const W: usize>(self, m: &[&[f32; W]; 16], b: &[f32; W], fin: &mut [f32; W]) -> [[f32; W]; 4] {
        let mut out = [[0.0f32; W]; 4];
        for l in 0..W {
            let mut q = [0.0f32; 16];
            for (q, m) in q.iter_mut().zip(m) {
                *q = m[l];
            }
            let y = output_columns(&output_rows(&q, |a, b| a + b, |a, b| a - b), b[l], |a, b| a + b, |a, b| a - b);
            for (o, y) in out.iter_mut().zip(y) {
                o[l] = y;
                fin[l] += 0.0 * y;
            }
        }
        out
    }
}

/// Vector registers of one level (x86-64).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct InRegs<G>(G);

#[cfg(target_arch = "x86_64")]
impl<G: super::blocked::Reg> Transforms for InRegs<G> {
    // At AVX2 (8 lanes), 12 tiles: a 32 → 64-channel layer over 32×80 took 0.90× the time
    // of 24 tiles at a time, a 64-channel one 0.91× (AMD Zen 3; the 16 products' outputs
    // of 24 tiles, 96 KiB for 64 outputs, leave the first-level cache). 24, the compiler's
    // work area, at AVX-512, where they were measured fastest.
    const MOST: usize = if G::LANES == 8 { 12 } else { usize::MAX };

    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn input<const C: usize>(self, d: &[&[f32; C]; 16], v: &mut [[f32; C]], stride: usize) {
        let g = self.0;
        if v.len() <= 15 * stride {
            return;
        }
        for j in 0..C.div_ceil(G::LANES) {
            let mut x = [g.splat(0.0); 16];
            for (x, d) in x.iter_mut().zip(d) {
                *x = g.load(d, j);
            }
            let t = input_rows(&x, |a, b| g.add(a, b), |a, b| g.sub(a, b));
            let out = input_columns(&t, |a, b| g.add(a, b), |a, b| g.sub(a, b));
            for (xi, o) in out.into_iter().enumerate() {
                g.store(&mut v[xi * stride], j, o);
            }
        }
    }

    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn output<const W: usize>(self, m: &[&[f32; W]; 16], b: &[f32; W], fin: &mut [f32; W]) -> [[f32; W]; 4] {
        let g = self.0;
        let mut out = [[0.0f32; W]; 4];
        for j in 0..W.div_ceil(G::LANES) {
            let mut q = [g.splat(0.0); 16];
            for (q, m) in q.iter_mut().zip(m) {
                *q = g.load(m, j);
            }
            let (add, sub) = (|a, b| g.add(a, b), |a, b| g.sub(a, b));
            let y = output_columns(&output_rows(&q, add, sub), g.load(b, j), add, sub);
            let mut f = g.load(fin, j);
            for (o, y) in out.iter_mut().zip(y) {
                g.store(o, j, y);
                f = g.add(f, g.sub(y, y));
            }
            g.store(fin, j, f);
        }
        out
    }
}

/// For each entry of `x` (its `[height, width, C]` values) and each output position `p`,
/// `y[p·n + j]` as [`super::dense_windows_then`] computes it over 3×3 windows of stride 1
/// (any dilation and padding), by F(2×2, 3×3): `panels` holds the 16 transformed weight
/// matrices (component `ξ = 4·row + column` of `G·g·Gᵀ`), each `tiles` panels of `C` rows
/// as the dense kernel packs them, `bias` the layer's bias in its tiles, `direct` its
/// weights as the model holds them (`[n][9][C]`: output, tap row-major, channel) for the
/// tiles the transforms overflow, `work` the work area ([`cellc_pack::winograd::work`] for at least one
/// tile). Writes nothing unless the sizes hold together.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(clippy::too_many_arguments)]
pub fn dense_winograd_then<const C: usize, const W: usize, const R: usize, const V: usize, P, I, F>(
    panels: &[[P; C]],
    bias: &[[f32; W]],
    direct: &[f32],
    x: &[f32],
    y: &mut [f32],
    n: usize,
    win: &Windows,
    work: &mut [f32],
    block: Block<R, V>,
    isa: I,
    then: F,
) where
    P: Row<W>,
    I: Isa,
    F: Fn(&mut [f32]) + Copy,
{
    let tiles = bias.len();
    let Some(np) = tiles.checked_mul(W) else { return };
    let positions = win.positions();
    let Some(entry) = win.entry() else { return };
    let entries = x.len().checked_div(entry).unwrap_or(0);
    let Some(per_tile) = C.checked_add(np).and_then(|v| v.checked_mul(16)) else { return };
    let most = work.len().saturating_sub(np) / per_tile.max(1);
    let fits = win.kernel == [3, 3]
        && win.strides == [1, 1]
        && win.dilations[0] > 0
        && win.dilations[1] > 0
        && win.holds::<C>()
        && W != 0
        && np >= n
        && tiles.checked_mul(16) == Some(panels.len())
        && n.checked_mul(9 * C) == Some(direct.len())
        && entries * entry == x.len()
        && entries.checked_mul(positions).and_then(|r| r.checked_mul(n)) == Some(y.len())
        && most > 0;
    if !fits || positions == 0 || n == 0 {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    {
        use super::blocked::{Ymm, Zmm};
        if let Some(z) = isa.avx512() {
            return tiles_of::<C, W, R, V, P, I, F, _>(
                InRegs(Zmm(z)),
                (panels, bias, direct, x, y, n, win, work),
                block,
                isa,
                then,
            );
        }
        if let Some(v) = isa.avx2() {
            return tiles_of::<C, W, R, V, P, I, F, _>(
                InRegs(Ymm(v)),
                (panels, bias, direct, x, y, n, win, work),
                block,
                isa,
                then,
            );
        }
    }
    tiles_of::<C, W, R, V, P, I, F, _>(InArrays, (panels, bias, direct, x, y, n, win, work), block, isa, then);
}

/// What [`dense_winograd_then`] reads and writes: the panels, the bias, the direct weights,
/// the input, the outputs, the outputs a position, the windows and the work area.
type Io<'a, P, const C: usize, const W: usize> =
    (&'a [[P; C]], &'a [[f32; W]], &'a [f32], &'a [f32], &'a mut [f32], usize, &'a Windows, &'a mut [f32]);

/// The `n` outputs `y` of the window at `base` of entry `x` by the direct sum: the bias,
/// then each tap's channels in order, over the weights `direct` (`[n][9][C]`).
fn direct_sum<const C: usize, const W: usize>(
    (direct, bias): (&[f32], &[[f32; W]]),
    x: &[f32],
    win: &Windows,
    base: [isize; 2],
    y: &mut [f32],
) {
    for ((j, out), wj) in y.iter_mut().enumerate().zip(direct.chunks_exact(9 * C)) {
        let mut s = bias.get(j / W).map_or(0.0, |b| b[j % W]);
        for (tap, wt) in wj.chunks_exact(C).enumerate() {
            if let Some(xs) = win.tap::<C>(x, base, tap / 3, tap % 3) {
                for (w, v) in wt.iter().zip(xs) {
                    s += w * v;
                }
            }
        }
        *out = s;
    }
}

/// [`dense_winograd_then`] once the sizes are known to hold, its transforms `tr`.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn tiles_of<const C: usize, const W: usize, const R: usize, const V: usize, P, I, F, T>(
    tr: T,
    (panels, bias, direct, x, y, n, win, work): Io<'_, P, C, W>,
    block: Block<R, V>,
    isa: I,
    then: F,
) where
    P: Row<W>,
    I: Isa,
    F: Fn(&mut [f32]) + Copy,
    T: Transforms,
{
    let tiles = bias.len();
    let np = tiles * W;
    let (positions, entry) = (win.positions(), win.entry().unwrap_or(0));
    let most = (work.len().saturating_sub(np) / (16 * (C + np))).min(T::MOST);
    let grid = Grid::of(win);
    let ow = win.output[1];
    let (zb, work) = work.split_at_mut(np);
    zb.fill(0.0);
    let zb = zb.as_chunks::<W>().0;
    let (v, m) = work.split_at_mut(16 * most * C);
    let v = v.as_chunks_mut::<C>().0;
    let m = &mut m[..16 * most * np];
    let zero = [0.0f32; C];
    let zero_w = [0.0f32; W];
    // Tiles in a band: the `dh` rows of tiles whose outputs are `2·dh` whole rows.
    let dh = grid.dilations[0];
    let band = dh.saturating_mul(grid.per_row).max(1);
    for (xe, ye) in x.chunks_exact(entry.max(1)).zip(y.chunks_exact_mut(positions * n)) {
        let mut t0 = 0;
        // Rows of outputs the activation has been applied to.
        let mut applied = 0;
        while t0 < grid.count {
            let tb = most.min(grid.count - t0);
            // The inputs of the block's tiles, transformed: component ξ of tile i at
            // `v[ξ·tb + i]`.
            for i in 0..tb {
                let [ti, tj] = grid.origin(t0 + i);
                let base = [ti as isize - win.pads[0] as isize, tj as isize - win.pads[1] as isize];
                let mut d = [&zero; 16];
                for (k, d) in d.iter_mut().enumerate() {
                    *d = win.tap::<C>(xe, base, k / 4, k % 4).unwrap_or(&zero);
                }
                tr.input(&d, &mut v[i..], tb);
            }
            // The 16 products: component ξ of tile i's outputs at `m[(ξ·tb + i)·np..]`.
            for xi in 0..16 {
                let vx = &v[xi * tb..(xi + 1) * tb];
                let mx = &mut m[xi * tb * np..(xi + 1) * tb * np];
                let px = &panels[xi * tiles..(xi + 1) * tiles];
                dense_rows_wide::<C, W, R, 1, R, V, 1, 1, P, I>(px, zb, vx, mx, np, block, Schedule::<1, 1>, isa);
            }
            // Back to outputs: y = Aᵀ·m·A + bias for each 2×2 tile, `fin` zero while all are
            // finite.
            let mut fin = [0.0f32; W];
            for i in 0..tb {
                let at = grid.outputs(t0 + i).map(|o| o.map(|[r, c]| (r * ow + c) * n));
                for (k, b) in bias.iter().enumerate() {
                    let j0 = k * W;
                    let mut q = [&zero_w; 16];
                    for (xi, q) in q.iter_mut().enumerate() {
                        let s = (xi * tb + i) * np + j0;
                        *q = m.get(s..).and_then(|r| r.first_chunk::<W>()).unwrap_or(&zero_w);
                    }
                    let out = tr.output(&q, b, &mut fin);
                    let len = W.min(n.saturating_sub(j0));
                    for (vals, p) in out.iter().zip(at) {
                        let Some(p) = p else { continue };
                        if len == W {
                            if let Some(dst) = ye.get_mut(p + j0..).and_then(|r| r.first_chunk_mut::<W>()) {
                                *dst = *vals;
                            }
                        } else if let Some(dst) = ye.get_mut(p + j0..p + j0 + len) {
                            dst.copy_from_slice(&vals[..len]);
                        }
                    }
                }
            }
            // Some output of the block is not finite (or one past the output, or past the
            // layer's outputs, is): each tile with an output the transforms overflowed, by
            // the direct sum instead.
            if fin.iter().any(|&f| f != 0.0) {
                for t in t0..t0 + tb {
                    for [r, c] in grid.outputs(t).into_iter().flatten() {
                        let p = (r * ow + c) * n;
                        let Some(row) = ye.get_mut(p..p + n) else { continue };
                        if row.iter().all(|v| v.is_finite()) {
                            continue;
                        }
                        let base = [r as isize - win.pads[0] as isize, c as isize - win.pads[1] as isize];
                        direct_sum::<C, W>((direct, bias), xe, win, base, row);
                    }
                }
            }
            // The activation, over the rows of outputs the tiles so far have completed: a
            // band of tiles (`dh` rows of tiles, their outputs `2·dh` rows) at a time, while
            // its values are still in the cache, and over whole rows, which its loop
            // vectorises along.
            let oh = grid.output[0];
            let done = if t0 + tb == grid.count {
                oh
            } else {
                ((t0 + tb) / band).saturating_mul(dh.saturating_mul(2)).min(oh)
            };
            if done > applied {
                if let Some(rows) = ye.get_mut(applied * ow * n..done * ow * n) {
                    then(rows);
                }
                applied = done;
            }
            t0 += tb;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::Portable;
    use std::{format, vec, vec::Vec};

    /// A convolution of `n` outputs over `C` channels through the kernel, against the
    /// direct sum in f64.
    fn check<const C: usize, const W: usize>(n: usize, input: [usize; 2], pads: [usize; 2], dil: [usize; 2]) {
        check_inputs::<C, W>(n, (input, pads, dil), 1.0, |_, v| v);
    }

    /// [`check`] with the weights scaled by `scale` and input `i` of value `v` made
    /// `input(i, v)`: a non-finite output must be the direct sum's (the same infinity, or
    /// NaN), a finite one within 1e-5 of the sum of its terms' magnitudes.
    #[allow(clippy::needless_range_loop)]
    fn check_inputs<const C: usize, const W: usize>(
        n: usize,
        (input, pads, dil): ([usize; 2], [usize; 2], [usize; 2]),
        scale: f64,
        inputs: impl Fn(usize, f32) -> f32,
    ) {
        let entries = 2;
        let output = [input[0] + 2 * pads[0] - 2 * dil[0], input[1] + 2 * pads[1] - 2 * dil[1]];
        let win = Windows { input, output, kernel: [3, 3], strides: [1, 1], dilations: dil, pads, channels: C };
        let val = |i: usize| ((i as f64) * 0.37).sin();
        // Direct weights: output j, tap t, channel c (f32 values).
        let wd = |j: usize, t: usize, c: usize| f64::from((val(j * 1000 + t * 37 + c + 11) * scale) as f32);
        let direct: Vec<f32> = (0..n * 9 * C).map(|i| wd(i / (9 * C), i / C % 9, i % C) as f32).collect();
        let tiles = n.div_ceil(W);
        // The weights transformed and packed as the compiler packs them.
        let mut flat = vec![f32::NAN; cellc_pack::winograd::packed_len(n, C, W).unwrap_or(0)];
        cellc_pack::winograd::pack(&mut flat, &direct, n, C, W);
        let panels = flat.as_chunks::<W>().0.as_chunks::<C>().0;
        assert_eq!(panels.len(), 16 * tiles);
        let bias: Vec<[f32; W]> = (0..tiles)
            .map(|t| core::array::from_fn(|l| if t * W + l < n { val(7000 + t * W + l) as f32 } else { 0.0 }))
            .collect();
        let x: Vec<f32> = (0..entries * input[0] * input[1] * C).map(|i| inputs(i, val(9000 + i) as f32)).collect();
        let positions = output[0] * output[1];
        let mut want = vec![0.0f64; entries * positions * n];
        let mut magnitude = vec![0.0f64; entries * positions * n];
        for e in 0..entries {
            for p in 0..positions {
                for j in 0..n {
                    let mut s = f64::from(bias[j / W][j % W]);
                    let mut m = s.abs();
                    for t in 0..9 {
                        if let Some(at) = crate::kernel::windows::tests::position(&win, p, t) {
                            for c in 0..C {
                                let term = wd(j, t, c) * f64::from(x[(e * input[0] * input[1] + at) * C + c]);
                                s += term;
                                m += term.abs();
                            }
                        }
                    }
                    // A leaky ReLU after (slope ¼, exact), which a second application would
                    // change: NaN stays NaN.
                    want[(e * positions + p) * n + j] = if s < 0.0 { 0.25 * s } else { s };
                    magnitude[(e * positions + p) * n + j] = m;
                }
            }
        }
        let what = format!("{win:?}, {C} channels, {n} outputs, {entries} entries");
        // 24 tiles of work: at AVX2, 12 at a time ([`Transforms::MOST`]).
        for block in [1, 3, 8, 24] {
            let mut work = vec![f32::NAN; cellc_pack::winograd::work(block, C, tiles * W).unwrap_or(0)];
            let len = want.len();
            let mut y = vec![f32::NAN; len + 2];
            let relu = |r: &mut [f32]| r.iter_mut().filter(|v| **v < 0.0).for_each(|v| *v *= 0.25);
            crate::dispatch!(|_L, isa| dense_winograd_then::<C, W, 4, 8, _, _, _>(
                panels,
                &bias,
                &direct,
                &x,
                &mut y[..len],
                n,
                &win,
                &mut work,
                Block,
                isa,
                relu
            ));
            assert!(y[len..].iter().all(|v| v.is_nan()), "nothing past the outputs: {what}");
            let mut z = vec![f32::NAN; len];
            dense_winograd_then::<C, W, 4, 8, _, _, _>(
                panels, &bias, &direct, &x, &mut z, n, &win, &mut work, Block, Portable, relu,
            );
            for (k, ((&a, &b), (&w, &m))) in y.iter().zip(&z).zip(want.iter().zip(&magnitude)).enumerate() {
                let right = |v: f32| {
                    let v = f64::from(v);
                    if !w.is_finite() {
                        v == w || (v.is_nan() && w.is_nan())
                    } else {
                        (v - w).abs() <= 1e-5 * (1.0 + m)
                    }
                };
                assert!(right(a) && right(b), "output {k}: {a} / {b}, want {w}: {what}, {block} tiles a block");
            }
        }
    }

    #[test]
    fn a_winograd_convolution_matches_the_direct_sum() {
        check::<4, 8>(5, [5, 7], [1, 1], [1, 1]);
        check::<8, 16>(16, [6, 6], [0, 0], [1, 1]);
        check::<3, 16>(20, [4, 9], [1, 0], [1, 1]);
        check::<16, 16>(33, [7, 4], [2, 1], [1, 1]);
        // More tiles (36) than a level takes at a time.
        check::<8, 16>(16, [12, 12], [1, 1], [1, 1]);
        // One row of output; one column.
        check::<2, 8>(3, [3, 5], [0, 1], [1, 1]);
        check::<2, 8>(3, [5, 3], [1, 0], [1, 1]);
        // Dilated: outputs of a tile as far apart as the taps, the last tiles partly or
        // wholly past the output.
        check::<4, 8>(5, [9, 7], [1, 1], [2, 1]);
        check::<5, 8>(9, [11, 13], [2, 3], [3, 2]);
        check::<16, 16>(16, [8, 6], [1, 2], [2, 2]);
    }

    #[test]
    fn inputs_the_transforms_overflow_give_what_the_direct_sum_gives() {
        // Inputs near f32's maximum, each window's direct sum finite (small weights) where
        // the transforms' sums of four are not.
        let huge = |i: usize, v: f32| if i % 5 < 3 { v.signum() * f32::MAX * 0.9 } else { v };
        check_inputs::<16, 16>(16, ([6, 6], [1, 1], [1, 1]), 1e-4, huge);
        check_inputs::<4, 8>(5, ([7, 5], [1, 1], [2, 1]), 1e-4, huge);
        // Every value at the maximum: 9·C terms, each below f32::MAX / 1e4.
        check_inputs::<16, 16>(16, ([5, 6], [1, 1], [1, 1]), 1e-4, |_, _| f32::MAX);
        // Infinities of either sign and a NaN: the outputs whose windows hold them are
        // infinite or NaN as the direct sum makes them, the others right.
        let special = |i: usize, v: f32| match i {
            37 => f32::INFINITY,
            300 => f32::NEG_INFINITY,
            301 => f32::INFINITY,
            555 => f32::NAN,
            _ => v,
        };
        check_inputs::<16, 16>(16, ([6, 6], [1, 1], [1, 1]), 1.0, special);
        check_inputs::<4, 8>(5, ([9, 7], [1, 1], [2, 1]), 1.0, special);
    }

    #[test]
    fn sizes_that_do_not_hold_together_write_nothing() {
        let win = Windows {
            input: [4, 4],
            output: [4, 4],
            kernel: [3, 3],
            strides: [1, 1],
            dilations: [1, 1],
            pads: [1, 1],
            channels: 2,
        };
        let panels = vec![[[0.5f32; 8]; 2]; 16];
        let bias = vec![[0.0f32; 8]];
        let x = vec![1.0f32; 32];
        let nothing = |_: &mut [f32]| {};
        // Work too small for one tile; a stride of 2; the wrong number of panels.
        for (work, strides, p) in [
            (10, [1, 1], 16),
            (cellc_pack::winograd::work(1, 2, 8).unwrap_or(0), [2, 1], 16),
            (cellc_pack::winograd::work(1, 2, 8).unwrap_or(0), [1, 1], 15),
        ] {
            let mut y = vec![f32::NAN; 16 * 8];
            let mut w = vec![0.0; work];
            let win = Windows { strides, ..win };
            dense_winograd_then::<2, 8, 4, 8, _, _, _>(
                &panels[..p],
                &bias,
                &[0.5; 8 * 9 * 2],
                &x,
                &mut y,
                8,
                &win,
                &mut w,
                Block,
                Portable,
                nothing,
            );
            assert!(y.iter().all(|v| v.is_nan()));
        }
    }
}
