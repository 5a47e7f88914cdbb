//! Packing of gate-stacked weight matrices into the panels the tiled kernels read. The
//! compiler packs embedded weights with these functions at compile time and generated code
//! calls them (as `cellc_runtime::pack`) for weights given at run time, so the layout has
//! one definition. A crate of its own so that both can depend on it.
#![no_std]
//!
//! A matrix `m` stacks `gates` blocks of `hidden` rows of `cols` columns, row-major (the
//! OpenVINO layout of `W` and `R`). Its packed form, for the gates `sel` and a tile width
//! `tile`, is `[tiles][cols][sel.len() * tile]` with `tiles = ceil(hidden / tile)`: for
//! output tile `t`, column `k` holds the `tile` consecutive rows of each selected gate side
//! by side, so one broadcast of input `k` updates every gate of the tile. Rows past
//! `hidden` are zero.

/// Number of tiles of width `tile` covering `hidden` rows.
pub const fn tiles(hidden: usize, tile: usize) -> usize {
    hidden.div_ceil(tile)
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
