//! Packing of gate-stacked weight matrices into the panels the tiled kernels read. The
//! compiler packs embedded weights with these functions at compile time and generated code
//! calls them (as `cellc_runtime::__private::pack`) for weights given at run time, so the layout has
//! one definition. A crate of its own so that both can depend on it; it also holds the
//! other things both must agree on: the activations' polynomials ([`poly`]), the windows
//! of a convolution or a pool ([`Windows`]) and the planar copy of its input ([`Planar`]), Winograd's transforms ([`winograd`]), the
//! int8 form of weights ([`int8`]) and the order a `TopK` takes its values in ([`top_k_before`]).
#![no_std]
//!
//! A matrix `m` stacks `gates` blocks of `hidden` rows of `cols` columns, row-major (the
//! OpenVINO layout of `W` and `R`). Its packed form, for the gates `sel` and a tile width
//! `tile`, is `[tiles][cols][sel.len() * tile]` with `tiles = ceil(hidden / tile)`: for
//! output tile `t`, column `k` holds the `tile` consecutive rows of each selected gate side
//! by side, so one broadcast of input `k` updates every gate of the tile. Rows past
//! `hidden` are zero.

pub mod int8;
pub mod planar;
pub mod poly;
pub mod windows;
pub mod winograd;

pub use planar::Planar;
pub use windows::Windows;

/// Whether value `a` at index `ai` comes before `b` at index `bi` in a `TopK`'s output:
/// numbers first (the larger first when `largest`, else the smaller), equal ones by index,
/// NaN (a value unequal to itself) last by index. In f32 for generated code, in f64 for the
/// compiler's reference.
#[inline(always)]
pub fn top_k_before<T: PartialOrd + Copy>(largest: bool, (a, ai): (T, usize), (b, bi): (T, usize)) -> bool {
    #[allow(clippy::eq_op)]
    let (a_nan, b_nan) = (a != a, b != b);
    match (a_nan, b_nan) {
        (false, true) => true,
        (true, false) => false,
        (true, true) => ai < bi,
        (false, false) => (if largest { a > b } else { a < b }) || (a == b && ai < bi),
    }
}

/// Number of tiles of width `tile` covering `hidden` rows.
pub const fn tiles(hidden: usize, tile: usize) -> usize {
    hidden.div_ceil(tile)
}

/// The weights a dense layer's kernel keeps in the second-level cache while it goes over
/// every row: a layer whose panels are larger goes through its tiles in passes of
/// [`pass_tiles`], each over every row, instead of reading every panel again from the third
/// level (or memory) for each block of rows (an STFT's 257 outputs over 512 taps, 526 KB; a
/// 1-D layer of 512 → 512 channels over 3 taps, 3 MB: 1.18 → 0.73 ms over 50 positions,
/// Intel Xeon, AVX-512). Both the runtime's kernels and the generated C read it.
pub const PASS_BYTES: usize = 256 * 1024;

/// The tiles of a pass (see [`PASS_BYTES`]) over `tiles` panels of `tile_bytes` each: all
/// of them when they fit, else as many as fit, rounded down to a multiple of `multiple`
/// (the tiles a block takes), at least `multiple`.
pub const fn pass_tiles(tiles: usize, tile_bytes: usize, multiple: usize) -> usize {
    let multiple = if multiple == 0 { 1 } else { multiple };
    let fit = PASS_BYTES / if tile_bytes == 0 { 1 } else { tile_bytes };
    if tiles <= fit {
        return if tiles == 0 { 1 } else { tiles };
    }
    let most = if fit < multiple { multiple } else { fit / multiple * multiple };
    if most < tiles { most } else { tiles }
}

/// Length of the packed form of a matrix.
pub const fn panel_len(hidden: usize, cols: usize, gates: usize, tile: usize) -> usize {
    tiles(hidden, tile) * cols * gates * tile
}

/// Packs the gates `sel` of `m` (`hidden` rows per gate, `cols` columns) into `dst`.
///
/// `dst.len()` must be [`panel_len`]`(hidden, cols, sel.len(), tile)` and `m` must hold
/// every selected gate; the caller checks both (generated code checks lengths first).
pub fn panels(dst: &mut [f32], m: &[f32], hidden: usize, cols: usize, sel: &[usize], tile: usize) {
    let width = sel.len() * tile;
    for (t, tile_dst) in dst.chunks_exact_mut(cols * width).enumerate() {
        for (k, row) in tile_dst.chunks_exact_mut(width).enumerate() {
            for (gi, &g) in sel.iter().enumerate() {
                for l in 0..tile {
                    let j = t * tile + l;
                    row[gi * tile + l] = if j < hidden { m[(g * hidden + j) * cols + k] } else { 0.0 };
                }
            }
        }
    }
}

/// Packs the gates `sel` of `m` as [`panels`] does, giving each value with its index in the
/// packed form.
fn panels_each(m: &[f32], hidden: usize, cols: usize, sel: &[usize], tile: usize, mut put: impl FnMut(usize, f32)) {
    let width = sel.len() * tile;
    for t in 0..tiles(hidden, tile) {
        for k in 0..cols {
            for (gi, &g) in sel.iter().enumerate() {
                for l in 0..tile {
                    let j = t * tile + l;
                    let dst = (t * cols + k) * width + gi * tile + l;
                    put(dst, if j < hidden { m[(g * hidden + j) * cols + k] } else { 0.0 });
                }
            }
        }
    }
}

/// Length of the f16 form of a packed matrix ([`panels_f16`]): one `u16` per value.
pub const fn panel_len_f16(hidden: usize, cols: usize, gates: usize, tile: usize) -> usize {
    panel_len(hidden, cols, gates, tile)
}

/// [`panels`] with each value rounded to the nearest IEEE binary16 (ties to even), stored as
/// its bits: half the bytes for the kernel to read. A finite value too large for f16 becomes
/// infinite: check with [`f16_overflow`] first.
pub fn panels_f16(dst: &mut [u16], m: &[f32], hidden: usize, cols: usize, sel: &[usize], tile: usize) {
    panels_each(m, hidden, cols, sel, tile, |d, v| dst[d] = half::f16::from_f32(v).to_bits());
}

/// The index of the first finite value of `m` that f16 cannot hold (its magnitudes end at
/// 65504; rounding takes anything from 65520 to infinity).
pub fn f16_overflow(m: &[f32]) -> Option<usize> {
    m.iter().position(|&v| v.is_finite() && half::f16::from_f32(v).is_infinite())
}

/// The index of the first finite value of `m` that bfloat16 cannot hold (rounding takes
/// magnitudes from about 3.39e38 to infinity).
pub fn bf16_overflow(m: &[f32]) -> Option<usize> {
    m.iter().position(|&v| v.is_finite() && half::bf16::from_f32(v).is_infinite())
}

/// Words in one row of `width` lanes of bfloat16 pairs ([`panels_bf16`]).
pub const fn bf16_words(width: usize) -> usize {
    width.div_ceil(2)
}

/// Length of the bfloat16 form of a packed matrix ([`panels_bf16`]), in `u32` words.
pub const fn panel_len_bf16(hidden: usize, cols: usize, gates: usize, tile: usize) -> usize {
    tiles(hidden, tile) * cols * bf16_words(gates * tile)
}

/// [`panels`] with each value rounded to the nearest bfloat16 (ties to even), two to a
/// 32-bit word: in each row of `width = sel.len() * tile` lanes, word `j` holds lane `j` in
/// its low half and lane `j + ceil(width / 2)` in its high half (zero past the row). A kernel
/// turns a word into its two f32 lanes with one shift and one mask. A finite value too
/// large for bfloat16 becomes infinite: check with [`bf16_overflow`] first.
pub fn panels_bf16(dst: &mut [u32], m: &[f32], hidden: usize, cols: usize, sel: &[usize], tile: usize) {
    let width = sel.len() * tile;
    let words = bf16_words(width);
    dst.fill(0);
    panels_each(m, hidden, cols, sel, tile, |d, v| {
        let (row, lane) = (d / width, d % width);
        let (word, shift) = if lane < words { (lane, 0) } else { (lane - words, 16) };
        dst[row * words + word] |= u32::from(half::bf16::from_f32(v).to_bits()) << shift;
    });
}

/// Packs bias segments (each `hidden` long, `None` for zero) into `[tiles][segs * tile]`,
/// the initial accumulators of each tile.
pub fn bias_panels(dst: &mut [f32], segs: &[Option<&[f32]>], hidden: usize, tile: usize) {
    let width = segs.len() * tile;
    for (t, row) in dst.chunks_exact_mut(width).enumerate() {
        for (si, seg) in segs.iter().enumerate() {
            for l in 0..tile {
                let j = t * tile + l;
                row[si * tile + l] = match seg {
                    Some(s) if j < hidden => s[j],
                    _ => 0.0,
                };
            }
        }
    }
}

/// Writes `dst` block by block (`hidden` values each): block `k` is the sum of
/// `coef · src block g` over the terms `(g, coef)` of `terms[k]`, added in order from zero.
/// How a bias stored in another tool's convention (separate input and recurrent biases,
/// or per-gate sums beside the input side) becomes the kernels' own.
///
/// `dst` must hold `terms.len()` blocks and `src` every block a term names; the caller
/// checks both (generated code checks lengths first).
pub fn fold_blocks(dst: &mut [f32], src: &[f32], hidden: usize, terms: &[&[(usize, f32)]]) {
    for (block, sum) in dst.chunks_exact_mut(hidden).zip(terms) {
        for (j, out) in block.iter_mut().enumerate() {
            *out = sum.iter().fold(0.0, |acc, &(g, coef)| acc + coef * src[g * hidden + j]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panels_put_each_gate_row_in_its_lane() {
        // 2 gates x 3 rows x 2 cols; m[(g*3 + j)*2 + k] = 100g + 10j + k.
        let mut m = [0.0f32; 12];
        for g in 0..2 {
            for j in 0..3 {
                for k in 0..2 {
                    m[(g * 3 + j) * 2 + k] = (100 * g + 10 * j + k) as f32;
                }
            }
        }
        let mut dst = [f32::NAN; 16];
        assert_eq!(panel_len(3, 2, 2, 2), 16);
        panels(&mut dst, &m, 3, 2, &[1, 0], 2);
        // Tile 0, k=0: gate 1 rows 0,1 then gate 0 rows 0,1.
        assert_eq!(&dst[0..4], &[100.0, 110.0, 0.0, 10.0]);
        // Tile 0, k=1.
        assert_eq!(&dst[4..8], &[101.0, 111.0, 1.0, 11.0]);
        // Tile 1 holds row 2 and zero padding.
        assert_eq!(&dst[8..12], &[120.0, 0.0, 20.0, 0.0]);
        assert_eq!(&dst[12..16], &[121.0, 0.0, 21.0, 0.0]);
    }

    #[test]
    fn sixteen_bit_panels_round_the_f32_panels() {
        // 3 gates x 3 rows x 2 cols, with values that need rounding.
        let m: [f32; 18] = core::array::from_fn(|n| (n as f32 - 8.0) * 0.3001);
        let sel = [2, 0, 1];
        let n = panel_len(3, 2, 3, 2);
        let mut f = [0.0f32; 24];
        panels(&mut f, &m, 3, 2, &sel, 2);
        let mut h = [0u16; 24];
        assert_eq!(panel_len_f16(3, 2, 3, 2), n);
        panels_f16(&mut h, &m, 3, 2, &sel, 2);
        for (h, f) in h.iter().zip(&f) {
            assert_eq!(*h, half::f16::from_f32(*f).to_bits());
        }
        // Rows of 6 lanes: 3 words, lane j low and lane j + 3 high.
        assert_eq!(panel_len_bf16(3, 2, 3, 2), 4 * 3);
        let mut b = [u32::MAX; 12];
        panels_bf16(&mut b, &m, 3, 2, &sel, 2);
        for (row, words) in f.chunks(6).zip(b.chunks(3)) {
            for j in 0..3 {
                assert_eq!(words[j] & 0xffff, u32::from(half::bf16::from_f32(row[j]).to_bits()));
                assert_eq!(words[j] >> 16, u32::from(half::bf16::from_f32(row[j + 3]).to_bits()));
            }
        }
    }

    #[test]
    fn odd_rows_leave_the_last_high_half_zero() {
        // 1 gate x 1 row x 2 cols, tile 1: rows of one lane.
        let mut b = [u32::MAX; 2];
        panels_bf16(&mut b, &[1.0, -2.0], 1, 2, &[0], 1);
        assert_eq!(b, [0x3f80, 0xc000]);
    }

    #[test]
    fn values_too_large_are_named_by_their_index() {
        assert_eq!(f16_overflow(&[1.0, 65504.0, 65519.0, -7.0e4, 1.0e5]), Some(3));
        assert_eq!(bf16_overflow(&[1.0, 1.0e38, f32::MAX]), Some(2));
        // Infinities stay infinities; only finite values that would become infinite count.
        assert_eq!(f16_overflow(&[f32::INFINITY, f32::NAN, 0.0]), None);
    }

    #[test]
    fn fold_blocks_sums_and_subtracts_whole_blocks() {
        let src = [1.0, 2.0, 10.0, 20.0, 100.0, 200.0];
        let mut dst = [f32::NAN; 6];
        fold_blocks(&mut dst, &src, 2, &[&[(0, 1.0), (1, 1.0)], &[(2, 1.0), (0, -1.0)], &[]]);
        assert_eq!(dst, [11.0, 22.0, 99.0, 198.0, 0.0, 0.0]);
    }

    #[test]
    fn bias_panels_pad_with_zero() {
        let a = [1.0, 2.0, 3.0];
        let mut dst = [f32::NAN; 8];
        bias_panels(&mut dst, &[Some(&a), None], 3, 2);
        assert_eq!(dst, [1.0, 2.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0]);
    }
}
