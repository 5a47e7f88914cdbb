//! Dense layers over many rows at the AVX-512 level (a convolution's windows, a sequence's
//! input projection): register blocks of several rows × several tiles, so that each
//! weight vector loaded serves every row of the block and each broadcast input every tile.
//! The row-by-row kernels share a weight between at most 8 rows of one tile (one load per
//! multiply–add, half the FMA rate); a block of 6 rows × 4 tiles takes 10 loads for 24.
//!
//! Every output sums its inputs in order from its bias, one fused multiply–add each, the
//! order of [`super::panel_acc`], whatever block it falls in: a row's result does not
//! depend on how many rows the call holds.
use super::Row;
use super::blocked::{Reg, Zmm, weights};
use crate::simd::Avx512;
use core::arch::x86_64::{__m512, _mm512_mask_storeu_ps};

/// `y[r·n + j] = bias(j) + Σₖ x[r][k]·w(j, k)` for every row of `x` and `j < n`, over tiles
/// of at most 16 lanes (one register each). The caller has checked the lengths: `y` holds
/// `n` values per row, and `panels` and `bias` the same number of tiles, covering `n`.
#[inline(always)]
pub(super) fn dense_avx512<const K: usize, const W: usize, P: Row<W>>(
    z: Avx512,
    panels: &[[P; K]],
    bias: &[[f32; W]],
    x: &[[f32; K]],
    y: &mut [f32],
    n: usize,
) {
    const { assert!(W <= 16, "one register a tile") };
    let z = Zmm(z);
    // 24 accumulators of the 32 registers, the rest for the weights and a broadcast input.
    match panels.len() {
        1 => rows::<K, W, 1, 24, P>(z, panels, bias, x, y, n),
        2 => rows::<K, W, 2, 12, P>(z, panels, bias, x, y, n),
        3 => rows::<K, W, 3, 8, P>(z, panels, bias, x, y, n),
        _ => rows::<K, W, 4, 6, P>(z, panels, bias, x, y, n),
    }
}

/// Blocks of `RB` rows, each through every tile `G` at a time; the rows left over in
/// blocks of one.
#[inline(always)]
fn rows<const K: usize, const W: usize, const G: usize, const RB: usize, P: Row<W>>(
    z: Zmm,
    panels: &[[P; K]],
    bias: &[[f32; W]],
    x: &[[f32; K]],
    y: &mut [f32],
    n: usize,
) {
    let (blocks, rest) = x.as_chunks::<RB>();
    let (y_blocks, y_rest) = y.split_at_mut(blocks.len() * RB * n);
    for (xs, ys) in blocks.iter().zip(y_blocks.chunks_exact_mut((RB * n).max(1))) {
        tiles::<K, W, G, RB, P>(z, panels, bias, xs, ys, n);
    }
    for (xr, yr) in rest.iter().zip(y_rest.chunks_exact_mut(n.max(1))) {
        // One row has only its tiles to keep the FMA units busy: all of them at once, up to 8.
        tiles::<K, W, 8, 1, P>(z, panels, bias, core::array::from_ref(xr), yr, n);
    }
}

/// One block of `RB` rows (`y` holds exactly their outputs) through every tile.
#[inline(always)]
fn tiles<const K: usize, const W: usize, const G: usize, const RB: usize, P: Row<W>>(
    z: Zmm,
    panels: &[[P; K]],
    bias: &[[f32; W]],
    xs: &[[f32; K]; RB],
    y: &mut [f32],
    n: usize,
) {
    let (groups, rest) = panels.as_chunks::<G>();
    let (bias_groups, bias_rest) = bias.as_chunks::<G>();
    for (g, (pg, bg)) in groups.iter().zip(bias_groups).enumerate() {
        block::<K, W, G, RB, P>(z, pg, bg, xs, y, n, g * G * W);
    }
    let j0 = groups.len() * G * W;
    for (t, (p, b)) in rest.iter().zip(bias_rest).enumerate() {
        block::<K, W, 1, RB, P>(z, core::array::from_ref(p), core::array::from_ref(b), xs, y, n, j0 + t * W);
    }
}

/// `RB` rows × `G` tiles of accumulators, from the bias over every input, stored to the
/// outputs `j0..` of each row (those below `n`).
#[inline(always)]
fn block<const K: usize, const W: usize, const G: usize, const RB: usize, P: Row<W>>(
    z: Zmm,
    pg: &[[P; K]; G],
    bg: &[[f32; W]; G],
    xs: &[[f32; K]; RB],
    y: &mut [f32],
    n: usize,
    j0: usize,
) {
    let b: [__m512; G] = core::array::from_fn(|g| z.load(&bg[g], 0));
    let mut a: [[__m512; G]; RB] = [b; RB];
    for k in 0..K {
        let w: [__m512; G] = core::array::from_fn(|g| weights(z, &pg[g][k], 0));
        let scale: [f32; G] = core::array::from_fn(|g| pg[g][k].scale());
        for (a, x) in a.iter_mut().zip(xs) {
            for ((a, &w), &s) in a.iter_mut().zip(&w).zip(&scale) {
                *a = z.fma(*a, w, z.splat(x[k] * s));
            }
        }
    }
    for (a, yr) in a.iter().zip(y.chunks_exact_mut(n.max(1))) {
        for (g, &v) in a.iter().enumerate() {
            let lb = j0 + g * W;
            if let Some(out) = yr.get_mut(lb..(lb + W).min(n)) {
                store_prefix(z, out, v);
            }
        }
    }
}

/// Writes the first `out.len()` lanes of `v` (at most 16) to `out`.
#[inline(always)]
#[allow(unsafe_code)]
fn store_prefix(_: Zmm, out: &mut [f32], v: __m512) {
    let lanes = out.len().min(16);
    let mask = ((1u32 << lanes) - 1) as u16;
    // SAFETY: `Zmm` holds the token that proves AVX-512 F. The mask selects the first
    // `lanes` lanes, all within `out`; masked-out lanes are neither written nor can fault.
    unsafe { _mm512_mask_storeu_ps(out.as_mut_ptr(), mask, v) }
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

    /// Runs the kernel at the AVX-512 level (false where the CPU has not got it).
    fn wide<const K: usize, const W: usize>(
        panels: &[[[f32; W]; K]],
        bias: &[[f32; W]],
        x: &[[f32; K]],
        y: &mut [f32],
        n: usize,
    ) -> bool {
        crate::dispatch!(|_L, isa| match crate::simd::Isa::avx512(isa) {
            Some(z) => {
                dense_avx512::<K, W, [f32; W]>(z, panels, bias, x, y, n);
                true
            }
            None => false,
        })
    }

    fn check<const K: usize, const W: usize>(tiles: usize, n: usize, rows: usize) {
        let v = |i: usize| ((i as f32) * 0.37).sin();
        let panels: Vec<[[f32; W]; K]> =
            (0..tiles).map(|t| core::array::from_fn(|k| core::array::from_fn(|l| v(t * 1000 + k * W + l)))).collect();
        let bias: Vec<[f32; W]> = (0..tiles).map(|t| core::array::from_fn(|l| v(7000 + t * W + l))).collect();
        let x: Vec<[f32; K]> = (0..rows).map(|r| core::array::from_fn(|k| v(9000 + r * K + k))).collect();
        let mut y = vec![f32::NAN; rows * n + 3];
        if !wide(&panels, &bias, &x, &mut y[..rows * n], n) {
            return;
        }
        assert_eq!(&y[..rows * n], &reference(&panels, &bias, &x, n)[..], "{tiles} tiles, {n} outputs, {rows} rows");
        assert!(y[rows * n..].iter().all(|v| v.is_nan()), "nothing written past the rows");
    }

    #[test]
    fn every_block_shape_sums_in_order() {
        // Each tile count takes its own block shape; row counts with and without a rest.
        for rows in [1, 5, 6, 7, 13, 24, 25, 50] {
            check::<27, 16>(1, 16, rows);
            check::<27, 16>(2, 32, rows);
            check::<9, 16>(3, 40, rows);
            check::<5, 16>(4, 64, rows);
            check::<5, 16>(9, 130, rows);
            check::<3, 4>(1, 3, rows);
        }
    }
}
