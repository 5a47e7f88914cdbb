//! Products over several rows in explicit vector registers, at the AVX2 and AVX-512 levels:
//! a register block holds every lane of a tile for several rows, so that each weight vector
//! it loads serves all of them and its multiply–adds are independent of one another. Left
//! to the optimiser, blocks of that size did not stay in registers (8 rows × 16 lanes of
//! `[f32; 16]` arrays: 3 GFLOP/s); written in register types, a panel of 48 lanes over 8
//! rows runs at 114 GFLOP/s with AVX-512 on Zen 4, against 77 in blocks of 8 rows × 8 lanes.
//!
//! Each lane sums in the order of [`super::panel_acc`] with the same fused multiply–add, so
//! the results are those of the other paths at the same level, bit for bit.
use super::{Lanes, Row};
use crate::simd::{Avx2, Avx512};
use core::arch::x86_64::{
    __m256, __m512, __mmask16, _mm_loadl_epi64, _mm_loadu_si128, _mm_maskz_loadu_epi8, _mm256_add_ps,
    _mm256_cvtepi8_epi32, _mm256_cvtepi32_ps, _mm256_cvtph_ps, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_loadu_si256,
    _mm256_maskz_loadu_epi16, _mm256_set1_ps, _mm256_storeu_ps, _mm256_sub_ps, _mm512_add_ps, _mm512_cvtepi8_epi32,
    _mm512_cvtepi32_ps, _mm512_cvtph_ps, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_mask_storeu_ps,
    _mm512_maskz_loadu_ps, _mm512_set1_ps, _mm512_setzero_ps, _mm512_storeu_ps, _mm512_sub_ps,
};

/// A vector register of f32 lanes at one level, and the few operations a block needs.
pub(super) trait Reg: Copy {
    /// The register.
    type V: Copy;
    /// Its lanes.
    const LANES: usize;
    /// Lanes `LANES·j ..` of a row, zero past its end.
    fn load<const W: usize>(self, row: &[f32; W], j: usize) -> Self::V;
    /// Lanes `LANES·j ..` of a row of IEEE binary16 values, as f32 (exactly), zero past its end.
    fn load_f16<const W: usize>(self, row: &[u16; W], j: usize) -> Self::V;
    /// Lanes `LANES·j ..` of a row of int8 values, as f32 (exactly), zero past its end.
    fn load_i8<const W: usize>(self, row: &[i8; W], j: usize) -> Self::V;
    /// Writes the lanes of `v` that fall inside the row at `LANES·j ..`.
    fn store<const W: usize>(self, row: &mut [f32; W], j: usize, v: Self::V);
    /// `x` in every lane.
    fn splat(self, x: f32) -> Self::V;
    /// `a + w · x` in each lane, rounded once.
    fn fma(self, a: Self::V, w: Self::V, x: Self::V) -> Self::V;
    /// `a + b` in each lane.
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a - b` in each lane.
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
}

/// Lanes `lb..lb + N` of a row that ends inside them, zero past its end.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn tail<T: Copy + Default, const W: usize, const N: usize>(row: &[T; W], lb: usize) -> [T; N] {
    core::array::from_fn(|i| if lb + i < W { row[lb + i] } else { T::default() })
}

/// 512-bit registers (16 lanes), with masked loads and stores at the end of a row.
#[derive(Clone, Copy)]
pub(super) struct Zmm(pub(super) Avx512);

/// The first `n` lanes (all 16 from `n = 16` on).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn mask16(n: usize) -> __mmask16 {
    ((1u32 << n.min(16)) - 1) as __mmask16
}

#[allow(unsafe_code)]
impl Reg for Zmm {
    type V = __m512;
    const LANES: usize = 16;
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn load<const W: usize>(self, row: &[f32; W], j: usize) -> __m512 {
        let lb = 16 * j;
        // SAFETY: the token proves AVX-512 F; no memory is touched.
        if lb >= W {
            return unsafe { _mm512_setzero_ps() };
        }
        // SAFETY: the token proves AVX-512 F, and `lb < W`. A full vector reads lanes
        // `lb..lb + 16`, within the row when `lb + 16 <= W`; otherwise the mask (of the
        // `W - lb < 16` lanes left) leaves out every lane at or past `W`, and masked-out
        // lanes are not read (nor can they fault).
        unsafe {
            if lb + 16 <= W {
                _mm512_loadu_ps(row.as_ptr().add(lb))
            } else {
                _mm512_maskz_loadu_ps(mask16(W - lb), row.as_ptr().add(lb))
            }
        }
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn load_f16<const W: usize>(self, row: &[u16; W], j: usize) -> __m512 {
        let lb = 16 * j;
        // SAFETY: the token proves AVX-512 F; no memory is touched.
        if lb >= W {
            return unsafe { _mm512_setzero_ps() };
        }
        // SAFETY: the token proves AVX-512 F, BW and VL, and `lb < W`. As in `load`: 16
        // lanes of 2 bytes from `lb`, within the row or masked (masked-out lanes are not read).
        unsafe {
            let h = if lb + 16 <= W {
                _mm256_loadu_si256(row.as_ptr().add(lb).cast())
            } else {
                _mm256_maskz_loadu_epi16(mask16(W - lb), row.as_ptr().add(lb).cast())
            };
            _mm512_cvtph_ps(h)
        }
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn load_i8<const W: usize>(self, row: &[i8; W], j: usize) -> __m512 {
        let lb = 16 * j;
        // SAFETY: the token proves AVX-512 F; no memory is touched.
        if lb >= W {
            return unsafe { _mm512_setzero_ps() };
        }
        // SAFETY: the token proves AVX-512 F, BW and VL, and `lb < W`. As in `load`: 16
        // lanes of 1 byte from `lb`, within the row or masked (masked-out lanes are not read).
        unsafe {
            let q = if lb + 16 <= W {
                _mm_loadu_si128(row.as_ptr().add(lb).cast())
            } else {
                _mm_maskz_loadu_epi8(mask16(W - lb), row.as_ptr().add(lb).cast())
            };
            _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q))
        }
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn store<const W: usize>(self, row: &mut [f32; W], j: usize, v: __m512) {
        let lb = 16 * j;
        if lb >= W {
            return;
        }
        // SAFETY: as in `load`, for writes (`lb < W`): lanes at or past `W` are masked out.
        unsafe {
            if lb + 16 <= W {
                _mm512_storeu_ps(row.as_mut_ptr().add(lb), v);
            } else {
                _mm512_mask_storeu_ps(row.as_mut_ptr().add(lb), mask16(W - lb), v);
            }
        }
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn splat(self, x: f32) -> __m512 {
        // SAFETY: the token proves AVX-512 F; no memory is touched.
        unsafe { _mm512_set1_ps(x) }
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn fma(self, a: __m512, w: __m512, x: __m512) -> __m512 {
        // SAFETY: as in `splat`.
        unsafe { _mm512_fmadd_ps(w, x, a) }
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn add(self, a: __m512, b: __m512) -> __m512 {
        // SAFETY: as in `splat`.
        unsafe { _mm512_add_ps(a, b) }
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn sub(self, a: __m512, b: __m512) -> __m512 {
        // SAFETY: as in `splat`.
        unsafe { _mm512_sub_ps(a, b) }
    }
}

/// 256-bit registers (8 lanes); the end of a row goes through a copy (AVX2 has no masked
/// 16-bit loads, and the copy is one per panel row, not one per multiply–add).
#[derive(Clone, Copy)]
pub(super) struct Ymm(pub(super) Avx2);

#[allow(unsafe_code)]
impl Reg for Ymm {
    type V = __m256;
    const LANES: usize = 8;
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn load<const W: usize>(self, row: &[f32; W], j: usize) -> __m256 {
        let lb = 8 * j;
        let rest: [f32; 8];
        let p = if lb + 8 <= W {
            // SAFETY: lanes `lb..lb + 8` lie within the row.
            unsafe { row.as_ptr().add(lb) }
        } else {
            rest = tail(row, lb);
            rest.as_ptr()
        };
        // SAFETY: the token proves AVX; `p` covers 8 lanes (of the row, or of `rest`).
        unsafe { _mm256_loadu_ps(p) }
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn load_f16<const W: usize>(self, row: &[u16; W], j: usize) -> __m256 {
        let lb = 8 * j;
        let rest: [u16; 8];
        let p = if lb + 8 <= W {
            // SAFETY: lanes `lb..lb + 8` lie within the row.
            unsafe { row.as_ptr().add(lb) }
        } else {
            rest = tail(row, lb);
            rest.as_ptr()
        };
        // SAFETY: the token proves AVX and F16C; `p` covers 8 lanes of 2 bytes.
        unsafe { _mm256_cvtph_ps(_mm_loadu_si128(p.cast())) }
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn load_i8<const W: usize>(self, row: &[i8; W], j: usize) -> __m256 {
        let lb = 8 * j;
        let rest: [i8; 8];
        let p = if lb + 8 <= W {
            // SAFETY: lanes `lb..lb + 8` lie within the row.
            unsafe { row.as_ptr().add(lb) }
        } else {
            rest = tail(row, lb);
            rest.as_ptr()
        };
        // SAFETY: the token proves AVX2; `p` covers 8 lanes of 1 byte.
        unsafe { _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(p.cast()))) }
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn store<const W: usize>(self, row: &mut [f32; W], j: usize, v: __m256) {
        let lb = 8 * j;
        if lb + 8 <= W {
            // SAFETY: the token proves AVX; lanes `lb..lb + 8` lie within the row.
            unsafe { _mm256_storeu_ps(row.as_mut_ptr().add(lb), v) };
        } else {
            let mut rest = [0.0f32; 8];
            // SAFETY: as above, into the 8 lanes of `rest`.
            unsafe { _mm256_storeu_ps(rest.as_mut_ptr(), v) };
            for (r, x) in row.iter_mut().skip(lb).zip(rest) {
                *r = x;
            }
        }
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn splat(self, x: f32) -> __m256 {
        // SAFETY: the token proves AVX; no memory is touched.
        unsafe { _mm256_set1_ps(x) }
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn fma(self, a: __m256, w: __m256, x: __m256) -> __m256 {
        // SAFETY: the token proves FMA; no memory is touched.
        unsafe { _mm256_fmadd_ps(w, x, a) }
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn add(self, a: __m256, b: __m256) -> __m256 {
        // SAFETY: the token proves AVX; no memory is touched.
        unsafe { _mm256_add_ps(a, b) }
    }
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn sub(self, a: __m256, b: __m256) -> __m256 {
        // SAFETY: the token proves AVX; no memory is touched.
        unsafe { _mm256_sub_ps(a, b) }
    }
}

/// `acc[s][l] += Σ_k panel[k][l] · v[s][k]` for every row in 512-bit blocks: `false` (and
/// nothing done) when the panel is wider than 4 registers.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub(super) fn rows_avx512<const K: usize, const W: usize, P: Row<W>>(
    z: Avx512,
    acc: &mut [[f32; W]],
    panel: &[P; K],
    v: &[[f32; K]],
) -> bool {
    let z = Zmm(z);
    // 16–24 accumulators of the 32 registers, in blocks of rows that divide 8, the rows a
    // batched step takes together at this level.
    match W.div_ceil(16) {
        1 => rows_in::<Zmm, K, W, 1, 8, P>(z, acc, panel, v),
        2 => rows_in::<Zmm, K, W, 2, 8, P>(z, acc, panel, v),
        3 => rows_in::<Zmm, K, W, 3, 8, P>(z, acc, panel, v),
        4 => rows_in::<Zmm, K, W, 4, 4, P>(z, acc, panel, v),
        _ => return false,
    }
    true
}

/// [`rows_avx512`] in 256-bit blocks: `false` (and nothing done) when the panel is wider
/// than 8 registers.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub(super) fn rows_avx2<const K: usize, const W: usize, P: Row<W>>(
    y: Avx2,
    acc: &mut [[f32; W]],
    panel: &[P; K],
    v: &[[f32; K]],
) -> bool {
    let y = Ymm(y);
    // At most 12 accumulators of the 16 registers, in blocks of rows that divide 4.
    match W.div_ceil(8) {
        1 => rows_in::<Ymm, K, W, 1, 4, P>(y, acc, panel, v),
        2 => rows_in::<Ymm, K, W, 2, 4, P>(y, acc, panel, v),
        3 => rows_in::<Ymm, K, W, 3, 4, P>(y, acc, panel, v),
        4 => rows_in::<Ymm, K, W, 4, 2, P>(y, acc, panel, v),
        5 => rows_in::<Ymm, K, W, 5, 2, P>(y, acc, panel, v),
        6 => rows_in::<Ymm, K, W, 6, 2, P>(y, acc, panel, v),
        7 => rows_in::<Ymm, K, W, 7, 1, P>(y, acc, panel, v),
        8 => rows_in::<Ymm, K, W, 8, 1, P>(y, acc, panel, v),
        _ => return false,
    }
    true
}

/// Blocks of `RB` rows × `NV` registers; the rows left over one by one.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn rows_in<G: Reg, const K: usize, const W: usize, const NV: usize, const RB: usize, P: Row<W>>(
    g: G,
    acc: &mut [[f32; W]],
    panel: &[P; K],
    v: &[[f32; K]],
) {
    let (acc_blocks, acc_rest) = acc.as_chunks_mut::<RB>();
    let (v_blocks, v_rest) = v.as_chunks::<RB>();
    for (a, x) in acc_blocks.iter_mut().zip(v_blocks) {
        block::<G, K, W, NV, RB, P>(g, a, panel, x);
    }
    for (a, x) in acc_rest.iter_mut().zip(v_rest) {
        block::<G, K, W, NV, 1, P>(g, core::array::from_mut(a), panel, core::array::from_ref(x));
    }
}

/// Register `j` of a panel row.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub(super) fn weights<G: Reg, const W: usize, P: Row<W>>(g: G, row: &P, j: usize) -> G::V {
    match row.lanes() {
        Lanes::F32(r) => g.load(r, j),
        Lanes::F16(r) => g.load_f16(r, j),
        Lanes::I8(q) => g.load_i8(q, j),
        Lanes::Other => {
            let lanes: [f32; 16] =
                core::array::from_fn(|i| if G::LANES * j + i < W { row.lane(G::LANES * j + i) } else { 0.0 });
            g.load(&lanes, 0)
        }
    }
}

/// One register block: `RB` rows × `NV` registers of accumulators, over the whole panel.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn block<G: Reg, const K: usize, const W: usize, const NV: usize, const RB: usize, P: Row<W>>(
    g: G,
    acc: &mut [[f32; W]; RB],
    panel: &[P; K],
    v: &[[f32; K]; RB],
) {
    let mut a: [[G::V; NV]; RB] = array!([g.splat(0.0); NV], |r| array!(g.splat(0.0), |j| g.load(&acc[r], j)));
    for (k, row) in panel.iter().enumerate() {
        let scale = row.scale();
        if NV > RB {
            // More registers of weights than rows: the rows' inputs broadcast first, then
            // each weight register loaded once and used for every row, so that one holds
            // it, not NV: 6 registers × 2 rows at AVX2 (a GRU's tile of 3 × 16 lanes) held
            // 12 accumulators, 6 weights and an input in 16 registers, and three
            // accumulators went to the stack and back every column.
            let x: [G::V; RB] = array!(g.splat(0.0), |r| g.splat(v[r][k] * scale));
            for j in 0..NV {
                let w = weights(g, row, j);
                for (a, &x) in a.iter_mut().zip(&x) {
                    a[j] = g.fma(a[j], w, x);
                }
            }
            continue;
        }
        let w: [G::V; NV] = array!(g.splat(0.0), |j| weights(g, row, j));
        for (a, x) in a.iter_mut().zip(v) {
            let x = g.splat(x[k] * scale);
            for (a, &w) in a.iter_mut().zip(&w) {
                *a = g.fma(*a, w, x);
            }
        }
    }
    for (a, acc) in a.iter().zip(acc.iter_mut()) {
        for (j, &a) in a.iter().enumerate() {
            g.store(acc, j, a);
        }
    }
}
