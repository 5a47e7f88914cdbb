//! Dense layers over many rows at the AVX2 and AVX-512 levels (a convolution's windows, a
//! sequence's input projection): register blocks of several rows × several tiles, so that
//! each weight vector loaded serves every row of the block and each broadcast input every
//! tile. The row-by-row kernels share a weight between at most 8 rows of one tile (one load
//! per multiply–add, half the FMA rate); a block of 6 rows × 4 tiles takes 10 loads for 24.
//! AVX2's 16 registers hold 6 rows × 16 lanes (12 accumulators, a tile's two weight vectors
//! and a broadcast input), as BLAS kernels for AVX2 take them: the row-by-row kernel's
//! blocks of 8 rows × 16 lanes need all 16 registers for their sums alone (PLCMOS, whose
//! F(2×2, 3×3) products run here, 8.26 → 7.22 ms a call on AMD Zen 3).
//!
//! The rows need not be packed: a convolution whose every window is one run of the input
//! (a 1-D layer's taps over few channels, an STFT's frames) has its windows read here in
//! place, each row a slice of the input a stride after the one before (see [`Rows`]).
//!
//! Every output sums its inputs in order from its bias, one fused multiply–add each, the
//! order of [`super::panel_acc`], whatever block it falls in: a row's result does not
//! depend on how many rows the call holds.
use super::Row;
use super::blocked::{Reg, Ymm, Zmm, weights};
use crate::simd::{Avx2, Avx512};

/// The rows of a product's left operand, `K` values each: row `p` starts at
/// `(p / per_line)·line + (p % per_line)·step` in `x`. Packed rows are one line a row
/// apart (`step = K`); the windows of a convolution that each read one run of the input are
/// lines of output positions (`per_line` of them), a stride apart, whose rows overlap.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rows<'a, const K: usize> {
    x: &'a [f32],
    count: usize,
    per_line: usize,
    line: usize,
    step: usize,
}

impl<'a, const K: usize> Rows<'a, K> {
    /// The rows of `x`, one after the other.
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    pub(super) fn packed(x: &'a [[f32; K]]) -> Self {
        Self { x: x.as_flattened(), count: x.len(), per_line: usize::MAX, line: 0, step: K }
    }

    /// `count` rows in lines of `per_line` (`line` values apart), each `step` values after
    /// the one before in its line: `None` unless every row lies inside `x`.
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    pub(super) fn strided(x: &'a [f32], count: usize, per_line: usize, line: usize, step: usize) -> Option<Self> {
        let last = count.checked_sub(1)?;
        let per_line = per_line.max(1);
        // The furthest row starts on the last line, at its furthest position.
        let lines = last / per_line;
        let along = if lines == 0 { last } else { per_line - 1 };
        let end = lines.checked_mul(line)?.checked_add(along.checked_mul(step)?)?.checked_add(K)?;
        (end <= x.len()).then_some(Self { x, count, per_line, line, step })
    }

    /// How many rows there are.
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn len(&self) -> usize {
        self.count
    }
}

/// Where the next row of [`Rows`] starts, row after row.
struct Cursor {
    /// The next row's position along its line.
    col: usize,
    /// Where its line starts.
    line_at: usize,
    /// Where it starts.
    at: usize,
}

impl Cursor {
    /// The next `RB` rows: `None` past the rows' values (which [`Rows::strided`] rules out).
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn take<'a, const K: usize, const RB: usize>(&mut self, rows: &Rows<'a, K>) -> Option<[&'a [f32; K]; RB]> {
        if rows.per_line == usize::MAX && rows.step == K {
            // Packed rows: one block of them, so that the compiler sees each row a constant
            // offset from the first and addresses them all from one register. Row by row,
            // the 24 rows' pointers of an AVX-512 block did not fit the registers beside its
            // 24 sums, and each multiply–add reloaded one from the stack (a layer of 16
            // outputs over 1,984 rows at 80 % of the peak where the C ran at 96 %; AMD Zen 4).
            let block = rows.x.get(self.at..)?.as_chunks::<K>().0.first_chunk::<RB>()?;
            self.at = self.at.saturating_add(RB.saturating_mul(K));
            return Some(core::array::from_fn(|r| &block[r]));
        }
        let first = self.next(rows)?;
        let mut out = [first; RB];
        for r in out.iter_mut().skip(1) {
            *r = self.next(rows)?;
        }
        Some(out)
    }

    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn next<'a, const K: usize>(&mut self, rows: &Rows<'a, K>) -> Option<&'a [f32; K]> {
        let row = rows.x.get(self.at..)?.first_chunk::<K>()?;
        self.col += 1;
        if self.col >= rows.per_line {
            self.col = 0;
            self.line_at = self.line_at.saturating_add(rows.line);
            self.at = self.line_at;
        } else {
            // Saturated past the last row: the next read finds nothing and the blocks stop.
            self.at = self.at.saturating_add(rows.step);
        }
        Some(row)
    }
}

/// `y[r·n + j] = bias(j) + Σₖ row(r)[k]·w(j, k)` for every row of `x` and `j < n`, over tiles
/// of at most 16 lanes (one register each), then `then` over each block of rows' outputs
/// while they are in the cache. The caller has checked the lengths: `y` holds `n` values per
/// row, and `panels` and `bias` the same number of tiles, covering `n`.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub(super) fn dense_avx512<const K: usize, const W: usize, P: Row<W>, F: Fn(&mut [f32]) + Copy>(
    z: Avx512,
    panels: &[[P; K]],
    bias: &[[f32; W]],
    x: Rows<'_, K>,
    y: &mut [f32],
    n: usize,
    then: F,
) {
    const { assert!(W <= 16, "one register a tile") };
    let z = Zmm(z);
    let io = (panels, bias, x, y, n);
    // 24 accumulators of the 32 registers, the rest for the weights and a broadcast input.
    // Rows left over: 3 at a time over 8 tiles, or one over 8 (a row has only its tiles to
    // keep the FMA units busy).
    match panels.len() {
        1 => rows::<K, W, 1, 24, 1, 8, 8, P, _, F>(z, io, then),
        2 => rows::<K, W, 2, 12, 1, 8, 8, P, _, F>(z, io, then),
        3 => rows::<K, W, 3, 8, 1, 8, 8, P, _, F>(z, io, then),
        _ => rows::<K, W, 4, 6, 1, 8, 8, P, _, F>(z, io, then),
    }
}

/// [`dense_avx512`] at the AVX2 level: tiles of at most 16 lanes in one or two registers.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub(super) fn dense_avx2<const K: usize, const W: usize, P: Row<W>, F: Fn(&mut [f32]) + Copy>(
    v: Avx2,
    panels: &[[P; K]],
    bias: &[[f32; W]],
    x: Rows<'_, K>,
    y: &mut [f32],
    n: usize,
    then: F,
) {
    const { assert!(W <= 16, "two registers a tile") };
    let v = Ymm(v);
    let io = (panels, bias, x, y, n);
    // 12 accumulators of the 16 registers, the rest for the weights and a broadcast input
    // (the rows left over: 3 rows × 12 registers, then one row × 8).
    if W > 8 {
        rows::<K, W, 1, 6, 2, 2, 4, P, _, F>(v, io, then);
    } else if panels.len() == 1 {
        rows::<K, W, 1, 12, 1, 4, 8, P, _, F>(v, io, then);
    } else {
        rows::<K, W, 2, 6, 1, 4, 8, P, _, F>(v, io, then);
    }
}

/// What the blocks read and write: the panels, their bias, the rows, their outputs and the
/// outputs a row.
type Io<'a, P, const K: usize, const W: usize> = (&'a [[P; K]], &'a [[f32; W]], Rows<'a, K>, &'a mut [f32], usize);

/// Blocks of `RB` rows, each through every tile `G` at a time (a tile in `NV` registers);
/// the rows left over in blocks of 3 (`G3` tiles at a time), then one of 2 (`G3`) or of one
/// (`G1`): a call of few rows (a convolution over a short input) still shares each weight it
/// loads. Panels larger than [`cellc_pack::PASS_BYTES`] go in passes of as many tiles as fit
/// in it, each over every row; `then` maps the outputs after the last.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn rows<
    const K: usize,
    const W: usize,
    const G: usize,
    const RB: usize,
    const NV: usize,
    const G3: usize,
    const G1: usize,
    P: Row<W>,
    Z: Reg,
    F: Fn(&mut [f32]) + Copy,
>(
    z: Z,
    (panels, bias, x, y, n): Io<'_, P, K, W>,
    then: F,
) {
    let per_pass = cellc_pack::pass_tiles(panels.len(), core::mem::size_of::<[P; K]>(), G);
    let one = panels.len() <= per_pass;
    // One call of the blocks (inlined whole: a second call would be a second copy). The
    // passes by hand, not `chunks(…).zip(…)`: its lengths take two divisions, and the call
    // that computes them was left out of line (3 % of a Winograd layer's time, 16 calls a
    // block of tiles; Intel Xeon, AVX-512).
    let mut start = 0;
    while start < panels.len() {
        let end = panels.len().min(start.saturating_add(per_pass));
        let (Some(pp), Some(bp)) = (panels.get(start..end), bias.get(start..end)) else { break };
        pass::<K, W, G, RB, NV, G3, G1, P, Z, F>(z, (pp, bp, x, &mut *y, n), start * W, one.then_some(then));
        start = end;
    }
    if !one {
        for yr in y.chunks_mut((RB * n).max(1)) {
            then(yr);
        }
    }
}

/// One pass of [`rows`] over every row, through the tiles of `panels`, whose outputs start
/// at `j0` in each row; `then`, if any, over each block's outputs. (An `Option` rather than
/// a closure that does nothing: one copy of the blocks for both uses.)
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn pass<
    const K: usize,
    const W: usize,
    const G: usize,
    const RB: usize,
    const NV: usize,
    const G3: usize,
    const G1: usize,
    P: Row<W>,
    Z: Reg,
    F: Fn(&mut [f32]) + Copy,
>(
    z: Z,
    (panels, bias, x, y, n): Io<'_, P, K, W>,
    j0: usize,
    then: Option<F>,
) {
    let then = |ys: &mut [f32]| {
        if let Some(f) = then {
            f(ys);
        }
    };
    let mut at = Cursor { col: 0, line_at: 0, at: 0 };
    let blocks = x.len() / RB;
    let (y_blocks, y_rest) = y.split_at_mut(blocks * RB * n);
    for ys in y_blocks.chunks_exact_mut((RB * n).max(1)) {
        let Some(xs) = at.take::<K, RB>(&x) else { return };
        tiles::<K, W, G, RB, NV, P, Z>(z, panels, bias, &xs, ys, (j0, n));
        then(ys);
    }
    let threes = (x.len() - blocks * RB) / 3;
    let (y_threes, y_ones) = y_rest.split_at_mut(threes * 3 * n);
    for ys in y_threes.chunks_exact_mut((3 * n).max(1)) {
        let Some(xs) = at.take::<K, 3>(&x) else { return };
        tiles::<K, W, G3, 3, NV, P, Z>(z, panels, bias, &xs, ys, (j0, n));
        then(ys);
    }
    // Two rows left: one block of two, not two passes over the weights of one row each (a
    // product of 8 rows, 6 + 2: an STFT of 512 taps into 257 coefficients, 22.7 → 20.8 µs;
    // Intel Xeon, AVX-512).
    if y_ones.len() == 2 * n && n > 0 {
        let Some(xs) = at.take::<K, 2>(&x) else { return };
        tiles::<K, W, G3, 2, NV, P, Z>(z, panels, bias, &xs, y_ones, (j0, n));
        then(y_ones);
        return;
    }
    for yr in y_ones.chunks_exact_mut(n.max(1)) {
        let Some(xs) = at.take::<K, 1>(&x) else { return };
        tiles::<K, W, G1, 1, NV, P, Z>(z, panels, bias, &xs, yr, (j0, n));
        then(yr);
    }
}

/// One block of `RB` rows (`y` holds exactly their outputs, `n` each) through every tile,
/// the first writing output `j0`.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn tiles<const K: usize, const W: usize, const G: usize, const RB: usize, const NV: usize, P: Row<W>, Z: Reg>(
    z: Z,
    panels: &[[P; K]],
    bias: &[[f32; W]],
    xs: &[&[f32; K]; RB],
    y: &mut [f32],
    (j0, n): (usize, usize),
) {
    let (groups, rest) = panels.as_chunks::<G>();
    let (bias_groups, bias_rest) = bias.as_chunks::<G>();
    for (g, (pg, bg)) in groups.iter().zip(bias_groups).enumerate() {
        block::<K, W, G, RB, NV, P, Z>(z, pg, bg, xs, y, n, j0 + g * G * W);
    }
    let j0 = j0 + groups.len() * G * W;
    for (t, (p, b)) in rest.iter().zip(bias_rest).enumerate() {
        block::<K, W, 1, RB, NV, P, Z>(z, core::array::from_ref(p), core::array::from_ref(b), xs, y, n, j0 + t * W);
    }
}

/// `RB` rows × `G` tiles of `NV` registers of accumulators, from the bias over every input,
/// stored to the outputs `j0..` of each row (those below `n`).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn block<const K: usize, const W: usize, const G: usize, const RB: usize, const NV: usize, P: Row<W>, Z: Reg>(
    z: Z,
    pg: &[[P; K]; G],
    bg: &[[f32; W]; G],
    xs: &[&[f32; K]; RB],
    y: &mut [f32],
    n: usize,
    j0: usize,
) {
    let b: [[Z::V; NV]; G] = array!([z.splat(0.0); NV], |g| array!(z.splat(0.0), |v| z.load(&bg[g], v)));
    let mut a: [[[Z::V; NV]; G]; RB] = [b; RB];
    for k in 0..K {
        let w: [[Z::V; NV]; G] = array!([z.splat(0.0); NV], |g| array!(z.splat(0.0), |v| weights(z, &pg[g][k], v)));
        let scale: [f32; G] = core::array::from_fn(|g| pg[g][k].scale());
        for (a, x) in a.iter_mut().zip(xs) {
            for ((a, w), &s) in a.iter_mut().zip(&w).zip(&scale) {
                let xs = z.splat(x[k] * s);
                for (a, &w) in a.iter_mut().zip(w) {
                    *a = z.fma(*a, w, xs);
                }
            }
        }
    }
    for (a, yr) in a.iter().zip(y.chunks_exact_mut(n.max(1))) {
        for (g, v) in a.iter().enumerate() {
            let lb = j0 + g * W;
            if let Some(out) = yr.get_mut(lb..).and_then(|r| r.first_chunk_mut::<W>()) {
                for (j, &v) in v.iter().enumerate() {
                    z.store(out, j, v);
                }
            } else if let Some(out) = yr.get_mut(lb..n) {
                // The last tile, past the outputs: through a tile of its own.
                let mut t = [0.0f32; W];
                for (j, &v) in v.iter().enumerate() {
                    z.store(&mut t, j, v);
                }
                for (o, t) in out.iter_mut().zip(t) {
                    *o = t;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{vec, vec::Vec};

    /// The product in the order every output sums: from the bias, input by input, each
    /// step one fused multiply–add.
    fn reference<const K: usize, const W: usize>(
        panels: &[[[f32; W]; K]],
        bias: &[[f32; W]],
        x: &[[f32; K]],
        n: usize,
    ) -> Vec<f32> {
        let mut y = vec![0.0; x.len() * n];
        for (r, xr) in x.iter().enumerate() {
            for j in 0..n {
                let (t, l) = (j / W, j % W);
                let mut s = bias[t][l];
                for (k, &xk) in xr.iter().enumerate() {
                    s = panels[t][k][l].mul_add(xk, s);
                }
                y[r * n + j] = s;
            }
        }
        y
    }

    /// Runs the kernel at each level the CPU has of AVX2 and AVX-512: the results, none
    /// where it has neither.
    fn wide<const K: usize, const W: usize>(
        panels: &[[[f32; W]; K]],
        bias: &[[f32; W]],
        x: &[[f32; K]],
        y: &[f32],
        n: usize,
    ) -> Vec<Vec<f32>> {
        let mut out = Vec::new();
        crate::dispatch!(|_L, isa| {
            if let Some(z) = crate::simd::Isa::avx512(isa) {
                let mut y = y.to_vec();
                dense_avx512::<K, W, [f32; W], _>(z, panels, bias, Rows::packed(x), &mut y[..x.len() * n], n, |_| {});
                out.push(y);
            }
            if let Some(v) = crate::simd::Isa::avx2(isa) {
                let mut y = y.to_vec();
                dense_avx2::<K, W, [f32; W], _>(v, panels, bias, Rows::packed(x), &mut y[..x.len() * n], n, |_| {});
                out.push(y);
            }
        });
        out
    }

    fn check<const K: usize, const W: usize>(tiles: usize, n: usize, rows: usize) {
        let v = |i: usize| ((i as f32) * 0.37).sin();
        let panels: Vec<[[f32; W]; K]> =
            (0..tiles).map(|t| core::array::from_fn(|k| core::array::from_fn(|l| v(t * 1000 + k * W + l)))).collect();
        let bias: Vec<[f32; W]> = (0..tiles).map(|t| core::array::from_fn(|l| v(7000 + t * W + l))).collect();
        let x: Vec<[f32; K]> = (0..rows).map(|r| core::array::from_fn(|k| v(9000 + r * K + k))).collect();
        let want = reference(&panels, &bias, &x, n);
        for y in wide(&panels, &bias, &x, &vec![f32::NAN; rows * n + 3], n) {
            assert_eq!(&y[..rows * n], &want[..], "{tiles} tiles, {n} outputs, {rows} rows");
            assert!(y[rows * n..].iter().all(|v| v.is_nan()), "nothing written past the rows");
        }
    }

    #[test]
    fn every_block_shape_sums_in_order() {
        // Each tile count takes its own block shape; row counts with and without a rest.
        for rows in [1, 3, 4, 5, 6, 7, 13, 24, 25, 50] {
            check::<27, 16>(1, 16, rows);
            check::<27, 16>(2, 32, rows);
            check::<9, 16>(3, 40, rows);
            check::<5, 16>(4, 64, rows);
            check::<5, 16>(9, 130, rows);
            check::<3, 4>(1, 3, rows);
            // Tiles of 8 lanes or fewer: one AVX2 register each, two tiles a block.
            check::<7, 8>(1, 8, rows);
            check::<7, 8>(3, 20, rows);
            check::<4, 5>(2, 9, rows);
            // 12 lanes: two AVX2 registers, the second part past the tile.
            check::<6, 12>(3, 30, rows);
        }
    }
}
