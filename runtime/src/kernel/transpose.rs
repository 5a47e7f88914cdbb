//! A transpose: the copy that turns rows into columns (a layout change between channels
//! first and channels last, a `Transpose` of two axes). Read in tiles of 8 × 8 values, so
//! each cache line read and written is used whole while it is in the cache; at the AVX2 and
//! AVX-512 levels each tile goes through eight 256-bit registers (eight loads, 24 shuffles,
//! eight stores), elsewhere value by value in the same tile order. A copy: every level
//! writes the same bits.
use crate::simd::Isa;

/// Rows of a tile and values of a tile's row.
const TILE: usize = 8;

/// Rows of the source a band takes before the tiles move along its rows: 64 rows of 8
/// values (2 KiB read, whole lines over two bands' steps) and 8 destination rows of 64
/// values (2 KiB written, whole lines) in the cache at a time.
const BAND: usize = 64;

/// `dst[j·ds + i] = src[i·ss + j]` for every `i < m` and `j < n`: the `m × n` matrix whose
/// rows are `ss` apart in `src` written as the `n × m` one whose rows are `ds` apart in
/// `dst`. Writes nothing unless `src` reaches `(m − 1)·ss + n` values and `dst`
/// `(n − 1)·ds + m` (without overflow), and `ss ≥ n`, `ds ≥ m` (rows do not overlap).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn transpose<I: Isa>(src: &[f32], dst: &mut [f32], (m, n): (usize, usize), (ss, ds): (usize, usize), isa: I) {
    if m == 0 || n == 0 {
        return;
    }
    let reach =
        |rows: usize, stride: usize, len: usize| (rows - 1).checked_mul(stride).and_then(|r| r.checked_add(len));
    let (Some(sr), Some(dr)) = (reach(m, ss, n), reach(n, ds, m)) else { return };
    if sr > src.len() || dr > dst.len() || ss < n || ds < m {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = isa.avx2().or_else(|| isa.avx512().map(crate::simd::Avx512::avx2)) {
        // Inlined by force: a closure is compiled without the dispatched level's target
        // features, so out of line its intrinsics would be calls (see `array!`).
        return bands(
            src,
            dst,
            (m, n),
            (ss, ds),
            #[cfg_attr(not(cellc_unoptimised), inline(always))]
            |s, d, i, j| x86::tile(t, s, d, (i, j), (ss, ds)),
        );
    }
    let _ = isa;
    bands(src, dst, (m, n), (ss, ds), |s, d, i, j| tile(s, d, (i, j), (ss, ds)));
}

/// Every tile of the whole 8 × 8 ones by `whole` (the tile at source row `i`, column
/// `j`), band by band of [`BAND`] rows, each band's tiles along its rows; the edges value by
/// value. The caller checked the reach.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn bands(
    src: &[f32],
    dst: &mut [f32],
    (m, n): (usize, usize),
    (ss, ds): (usize, usize),
    mut whole: impl FnMut(&[f32], &mut [f32], usize, usize),
) {
    let (mt, nt) = (m - m % TILE, n - n % TILE);
    for band in (0..mt).step_by(BAND) {
        let end = (band + BAND).min(mt);
        for j in (0..nt).step_by(TILE) {
            for i in (band..end).step_by(TILE) {
                whole(src, dst, i, j);
            }
        }
    }
    // The columns past the whole tiles, then the rows past them.
    let mut one = |i: usize, j: usize| {
        if let (Some(&v), Some(d)) = (src.get(i * ss + j), dst.get_mut(j * ds + i)) {
            *d = v;
        }
    };
    for i in 0..mt {
        (nt..n).for_each(|j| one(i, j));
    }
    for i in mt..m {
        (0..n).for_each(|j| one(i, j));
    }
}

/// The 8 × 8 tile at source row `i`, column `j`, value by value.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn tile(src: &[f32], dst: &mut [f32], (i, j): (usize, usize), (ss, ds): (usize, usize)) {
    for r in 0..TILE {
        let Some(row) = src.get((i + r) * ss + j..).and_then(|s| s.get(..TILE)) else { return };
        for (c, &v) in row.iter().enumerate() {
            if let Some(d) = dst.get_mut((j + c) * ds + i + r) {
                *d = v;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::TILE;
    use crate::simd::Avx2;
    use core::arch::x86_64::{
        __m256, _mm256_loadu_ps, _mm256_permute2f128_ps, _mm256_shuffle_ps, _mm256_storeu_ps, _mm256_unpackhi_ps,
        _mm256_unpacklo_ps,
    };

    /// The 8 × 8 tile at source row `i`, column `j`, through eight registers: pairs of rows
    /// interleaved, then pairs of pairs, then the 128-bit halves swapped.
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    #[allow(unsafe_code)]
    pub(super) fn tile(_: Avx2, src: &[f32], dst: &mut [f32], (i, j): (usize, usize), (ss, ds): (usize, usize)) {
        // One check of each side's reach for the tile, not one per row: with a check and a
        // slice per row, SwiftF0's transposes of 32 × 32 and 64 × 32 blocks took 1.5–1.8×
        // the generated C's time, with one 0.6–1.0× (AMD Zen 4, `bench/profile.py`).
        let (Some(s), Some(d)) = (reach(src.len(), (i, j), ss), reach(dst.len(), (j, i), ds)) else { return };
        // SAFETY: the token proves AVX; `reach` checked that row `k < 8` of the tile, its 8
        // values from `s + k * ss`, lies within `src`.
        let out: [__m256; TILE] = unsafe {
            let at = src.as_ptr().add(s);
            let (r0, r1, r2, r3) = (
                _mm256_loadu_ps(at),
                _mm256_loadu_ps(at.add(ss)),
                _mm256_loadu_ps(at.add(2 * ss)),
                _mm256_loadu_ps(at.add(3 * ss)),
            );
            let (r4, r5, r6, r7) = (
                _mm256_loadu_ps(at.add(4 * ss)),
                _mm256_loadu_ps(at.add(5 * ss)),
                _mm256_loadu_ps(at.add(6 * ss)),
                _mm256_loadu_ps(at.add(7 * ss)),
            );
            let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
            let (t2, t3) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
            let (t4, t5) = (_mm256_unpacklo_ps(r4, r5), _mm256_unpackhi_ps(r4, r5));
            let (t6, t7) = (_mm256_unpacklo_ps(r6, r7), _mm256_unpackhi_ps(r6, r7));
            let (s0, s1) = (_mm256_shuffle_ps::<0x44>(t0, t2), _mm256_shuffle_ps::<0xEE>(t0, t2));
            let (s2, s3) = (_mm256_shuffle_ps::<0x44>(t1, t3), _mm256_shuffle_ps::<0xEE>(t1, t3));
            let (s4, s5) = (_mm256_shuffle_ps::<0x44>(t4, t6), _mm256_shuffle_ps::<0xEE>(t4, t6));
            let (s6, s7) = (_mm256_shuffle_ps::<0x44>(t5, t7), _mm256_shuffle_ps::<0xEE>(t5, t7));
            [
                _mm256_permute2f128_ps::<0x20>(s0, s4),
                _mm256_permute2f128_ps::<0x20>(s1, s5),
                _mm256_permute2f128_ps::<0x20>(s2, s6),
                _mm256_permute2f128_ps::<0x20>(s3, s7),
                _mm256_permute2f128_ps::<0x31>(s0, s4),
                _mm256_permute2f128_ps::<0x31>(s1, s5),
                _mm256_permute2f128_ps::<0x31>(s2, s6),
                _mm256_permute2f128_ps::<0x31>(s3, s7),
            ]
        };
        for (c, v) in out.into_iter().enumerate() {
            // SAFETY: the token proves AVX; `reach` checked that row `c < 8` of the
            // destination's tile, its 8 values from `d + c * ds`, lies within `dst`.
            unsafe { _mm256_storeu_ps(dst.as_mut_ptr().add(d + c * ds), v) };
        }
    }

    /// Where a tile of 8 rows of 8 values `stride` apart, from row `r`, column `c`, starts in
    /// a slice of `len` values, if it lies wholly within it.
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn reach(len: usize, (r, c): (usize, usize), stride: usize) -> Option<usize> {
        let start = r.checked_mul(stride)?.checked_add(c)?;
        let end = stride.checked_mul(TILE - 1)?.checked_add(start)?.checked_add(TILE)?;
        (end <= len).then_some(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{vec, vec::Vec};

    #[test]
    fn every_value_lands_where_the_transpose_puts_it_at_every_level() {
        // Whole tiles, edges of every width, bands past the first, rows with gaps.
        for (m, n, gap_s, gap_d) in [
            (8, 8, 0, 0),
            (32, 3, 0, 0),
            (3, 32, 0, 0),
            (32, 32382 % 97, 1, 0),
            (130, 17, 0, 5),
            (9, 9, 3, 2),
            (1, 1, 0, 0),
        ] {
            let (ss, ds) = (n + gap_s, m + gap_d);
            let src: Vec<f32> = (0..(m - 1) * ss + n).map(|v| v as f32 + 0.5).collect();
            at_every_level!(|isa, level| {
                let mut dst = vec![-1.0f32; (n - 1) * ds + m];
                transpose(&src, &mut dst, (m, n), (ss, ds), isa);
                for i in 0..m {
                    for j in 0..n {
                        assert_eq!(dst[j * ds + i], src[i * ss + j], "{level}: {m}×{n}, ({i}, {j})");
                    }
                }
                // The gaps between the destination's rows are left alone.
                for j in 0..n.saturating_sub(1) {
                    assert!(dst[j * ds + m..(j + 1) * ds].iter().all(|&v| v == -1.0), "{level}: gap {j}");
                }
            });
        }
    }

    #[test]
    fn nothing_is_written_unless_the_rows_fit() {
        let src = [1.0f32; 64];
        at_every_level!(|isa, level| {
            let mut dst = [0.0f32; 64];
            // The source is one value short; rows that overlap; a destination too short.
            transpose(&src[..63], &mut dst, (8, 8), (8, 8), isa);
            transpose(&src, &mut dst, (8, 8), (4, 8), isa);
            transpose(&src, &mut dst[..63], (8, 8), (8, 8), isa);
            transpose(&src, &mut dst, (usize::MAX, 2), (usize::MAX, 2), isa);
            assert!(dst.iter().all(|&v| v == 0.0), "{level}");
        });
    }
}
