//! Winograd's minimal filtering F(2×2, 3×3), once for the compiler (which transforms and
//! packs a layer's weights, and writes the C kernel's transforms from these functions) and
//! the runtime (whose kernel transforms inputs and products with them).
//!
//! A 3×3 convolution of stride 1 computes each 2×2 block of outputs (a *tile*; with a
//! dilation, outputs as far apart as the taps) from the 4×4 inputs under it: the inputs
//! transformed (`Bᵀ·d·B`, additions only), 16 products of a channel vector by a
//! transformed weight matrix (`U = G·g·Gᵀ` per output and input channel) where the direct
//! sum takes 36, and the products transformed back (`Aᵀ·m·A`). The results differ from the
//! direct sum's by rounding alone.
//!
//! The transforms are generic over the value they add (`V`: a lane, a vector register, or
//! the text of a C expression), so every reader adds the same terms in the same order.

use crate::windows::Windows;

/// `G`, which transforms a kernel's rows and columns.
pub const G: [[f64; 3]; 4] = [[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]];

/// `G·g·Gᵀ` for a 3×3 kernel `g` (row-major taps): its 16 components, `ξ = 4·row + column`,
/// computed in f64 (the scalar reference both the packing and the tests use).
pub fn transform_kernel(g: &[[f64; 3]; 3]) -> [f64; 16] {
    core::array::from_fn(|xi| {
        let (a, b) = (xi / 4, xi % 4);
        let mut u = 0.0;
        for (kh, ga) in G[a].iter().enumerate() {
            for (kw, gb) in G[b].iter().enumerate() {
                u += ga * g[kh][kw] * gb;
            }
        }
        u
    })
}

/// `|G·g·Gᵀ| ≤ 2.25·max|g|`: weights up to `f32::MAX / 2.25` transform without overflow.
pub const WEIGHT_GROWTH: f64 = 2.25;

/// `t = Bᵀ·x` over the rows of a 4×4 block `x` (row-major), by `add` and `sub`.
///
/// Written as four passes of straight-line assignments, which the optimiser unrolls at
/// every vector level: the same terms through `core::array::from_fn` (one closure per
/// component) took 15 % longer at AVX2 on a 64-channel 3×3 layer over 32×32.
#[inline(always)]
pub fn input_rows<V: Clone>(x: &[V; 16], add: impl Fn(V, V) -> V, sub: impl Fn(V, V) -> V) -> [V; 16] {
    let mut t = x.clone();
    for s in 0..4 {
        t[s] = sub(x[s].clone(), x[8 + s].clone());
        t[4 + s] = add(x[4 + s].clone(), x[8 + s].clone());
        t[8 + s] = sub(x[8 + s].clone(), x[4 + s].clone());
        t[12 + s] = sub(x[4 + s].clone(), x[12 + s].clone());
    }
    t
}

/// `v = t·B` over the columns of a 4×4 block `t` (row-major): with [`input_rows`], the
/// input transform `Bᵀ·d·B`, component `ξ` at `v[ξ]`.
#[inline(always)]
pub fn input_columns<V: Clone>(t: &[V; 16], add: impl Fn(V, V) -> V, sub: impl Fn(V, V) -> V) -> [V; 16] {
    let mut v = t.clone();
    for r in (0..16).step_by(4) {
        v[r] = sub(t[r].clone(), t[r + 2].clone());
        v[r + 1] = add(t[r + 1].clone(), t[r + 2].clone());
        v[r + 2] = sub(t[r + 2].clone(), t[r + 1].clone());
        v[r + 3] = sub(t[r + 1].clone(), t[r + 3].clone());
    }
    v
}

/// `u = Aᵀ·m` over the rows of a tile's 16 products `m` (row-major): its two rows, the
/// first four values then the second four.
#[inline(always)]
pub fn output_rows<V: Clone>(m: &[V; 16], add: impl Fn(V, V) -> V, sub: impl Fn(V, V) -> V) -> [V; 8] {
    let mut u = [
        m[0].clone(),
        m[1].clone(),
        m[2].clone(),
        m[3].clone(),
        m[4].clone(),
        m[5].clone(),
        m[6].clone(),
        m[7].clone(),
    ];
    for s in 0..4 {
        u[s] = add(add(m[s].clone(), m[4 + s].clone()), m[8 + s].clone());
        u[4 + s] = sub(sub(m[4 + s].clone(), m[8 + s].clone()), m[12 + s].clone());
    }
    u
}

/// `u·A + b` over the columns of [`output_rows`]'s two rows: the tile's outputs (0, 0),
/// (0, 1), (1, 0), (1, 1), each with the bias `b` added last.
#[inline(always)]
pub fn output_columns<V: Clone>(u: &[V; 8], b: V, add: impl Fn(V, V) -> V, sub: impl Fn(V, V) -> V) -> [V; 4] {
    let row = |r: usize| {
        let even = add(add(u[r].clone(), u[r + 1].clone()), u[r + 2].clone());
        let odd = sub(sub(u[r + 1].clone(), u[r + 2].clone()), u[r + 3].clone());
        (add(even, b.clone()), add(odd, b.clone()))
    };
    let ((y00, y01), (y10, y11)) = (row(0), row(4));
    [y00, y01, y10, y11]
}

/// The work area, in f32 values, of a kernel that transforms `tiles` tiles at a time of a
/// layer of `c` input channels and `np` outputs padded to whole tiles of the dense kernel:
/// the transformed inputs and the products, 16 of each a tile, and `np` zeros (the bias of
/// the products). `None` where it overflows.
pub const fn work(tiles: usize, c: usize, np: usize) -> Option<usize> {
    let Some(per) = c.checked_add(np) else { return None };
    let Some(per) = per.checked_mul(16) else { return None };
    let Some(all) = per.checked_mul(tiles) else { return None };
    all.checked_add(np)
}

/// How a layer's outputs split into tiles: tile `t` has its first output at row
/// `first(t / per_row, dilation 0)` and column `first(t % per_row, dilation 1)`, and its
/// others a dilation further along each axis ([`Grid::outputs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    /// Tiles along a row of outputs.
    pub per_row: usize,
    /// Tiles in all.
    pub count: usize,
    /// The output's extents.
    pub output: [usize; 2],
    /// The dilations: a tile's two outputs along an axis are a dilation apart.
    pub dilations: [usize; 2],
}

impl Grid {
    /// The tiles over the outputs of `w` (a 3×3 kernel of stride 1).
    pub const fn of(w: &Windows) -> Grid {
        let [oh, ow] = w.output;
        let [dh, dw] = [
            if w.dilations[0] == 0 { 1 } else { w.dilations[0] },
            if w.dilations[1] == 0 { 1 } else { w.dilations[1] },
        ];
        // A model sets the dilations: saturating, so that none of this can overflow.
        let per_row = dw.saturating_mul(ow.div_ceil(dw.saturating_mul(2)));
        let count = dh.saturating_mul(oh.div_ceil(dh.saturating_mul(2))).saturating_mul(per_row);
        Grid { per_row, count, output: w.output, dilations: [dh, dw] }
    }

    /// Along an axis of dilation `d`, a tile's two outputs are `d` apart: the `i`-th tile
    /// along it starts at output `(i / d)·2d + i % d`.
    #[inline(always)]
    pub const fn first(i: usize, d: usize) -> usize {
        (i / d) * 2 * d + i % d
    }

    /// The output (row, column) where tile `t` starts.
    #[inline(always)]
    pub const fn origin(&self, t: usize) -> [usize; 2] {
        let per_row = if self.per_row == 0 { 1 } else { self.per_row };
        [Grid::first(t / per_row, self.dilations[0]), Grid::first(t % per_row, self.dilations[1])]
    }

    /// Tile `t`'s outputs (0, 0), (0, 1), (1, 0), (1, 1) as (row, column), `None` for
    /// those past the output.
    #[inline(always)]
    pub fn outputs(&self, t: usize) -> [Option<[usize; 2]>; 4] {
        let [r0, c0] = self.origin(t);
        core::array::from_fn(|o| {
            let (r, c) =
                (r0.saturating_add((o / 2) * self.dilations[0]), c0.saturating_add((o % 2) * self.dilations[1]));
            (r < self.output[0] && c < self.output[1]).then_some([r, c])
        })
    }
}

/// Values of a layer's transformed weights as [`pack`] writes them: 16 layers of
/// `ceil(n / tile)` tiles of `c` rows of `tile` lanes. `None` where it overflows.
pub fn packed_len(n: usize, c: usize, tile: usize) -> Option<usize> {
    n.div_ceil(tile.max(1)).checked_mul(c)?.checked_mul(tile)?.checked_mul(16)
}

/// Transforms the weights `w` of a 3×3 layer of `n` outputs over `c` channels (`[n][9][c]`:
/// output, tap row-major, channel) and packs them into `dst`: 16 dense layers of `c`
/// inputs (component `ξ` first), each `[tiles][c][tile]`, zero past `n`. `dst` must be
/// [`packed_len`] long and `w` `9·n·c`; writes nothing otherwise.
pub fn pack(dst: &mut [f32], w: &[f32], n: usize, c: usize, tile: usize) {
    let fits = packed_len(n, c, tile) == Some(dst.len()) && n.checked_mul(9 * c) == Some(w.len());
    if !fits || dst.is_empty() {
        return;
    }
    let layer = dst.len() / 16;
    dst.fill(0.0);
    for o in 0..n {
        for ch in 0..c {
            let g = core::array::from_fn(|kh| core::array::from_fn(|kw| f64::from(w[(o * 9 + kh * 3 + kw) * c + ch])));
            let at = ((o / tile) * c + ch) * tile + o % tile;
            for (xi, u) in transform_kernel(&g).into_iter().enumerate() {
                dst[xi * layer + at] = u as f32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Bᵀ`, `Aᵀ` as matrices, for checking the transforms' terms.
    const BT: [[f64; 4]; 4] =
        [[1.0, 0.0, -1.0, 0.0], [0.0, 1.0, 1.0, 0.0], [0.0, -1.0, 1.0, 0.0], [0.0, 1.0, 0.0, -1.0]];
    const AT: [[f64; 4]; 2] = [[1.0, 1.0, 1.0, 0.0], [0.0, 1.0, -1.0, -1.0]];

    fn add(a: f64, b: f64) -> f64 {
        a + b
    }
    fn sub(a: f64, b: f64) -> f64 {
        a - b
    }

    #[test]
    fn the_transforms_are_the_matrices_products() {
        let d: [f64; 16] = core::array::from_fn(|k| ((k * 7 + 3) % 11) as f64 - 5.0);
        let v = input_columns(&input_rows(&d, add, sub), add, sub);
        for (xi, got) in v.iter().enumerate() {
            let (a, b) = (xi / 4, xi % 4);
            let want: f64 = (0..16).map(|k| BT[a][k / 4] * d[k] * BT[b][k % 4]).sum();
            assert_eq!(*got, want, "component {xi}");
        }
        let y = output_columns(&output_rows(&d, add, sub), 0.5, add, sub);
        for (o, got) in y.iter().enumerate() {
            let (a, b) = (o / 2, o % 2);
            let want: f64 = (0..16).map(|k| AT[a][k / 4] * d[k] * AT[b][k % 4]).sum::<f64>() + 0.5;
            assert_eq!(*got, want, "output {o}");
        }
    }

    #[test]
    fn a_tile_by_the_transforms_is_the_direct_sum() {
        // One 4×4 input block and one kernel: Aᵀ·((G·g·Gᵀ) ⊙ (Bᵀ·d·B))·A is the 2×2 valid
        // correlation of d with g.
        let d: [f64; 16] = core::array::from_fn(|k| ((k * 5 + 1) % 9) as f64 - 4.0);
        let g = [[1.0, -2.0, 0.5], [3.0, 0.25, -1.0], [2.0, 1.0, -0.5]];
        let u = transform_kernel(&g);
        let v = input_columns(&input_rows(&d, add, sub), add, sub);
        let m: [f64; 16] = core::array::from_fn(|xi| u[xi] * v[xi]);
        let y = output_columns(&output_rows(&m, add, sub), 0.0, add, sub);
        for (o, got) in y.iter().enumerate() {
            let (r, c) = (o / 2, o % 2);
            let want: f64 = (0..9).map(|t| g[t / 3][t % 3] * d[(r + t / 3) * 4 + c + t % 3]).sum();
            assert!((got - want).abs() < 1e-12, "output {o}: {got} against {want}");
        }
    }

    #[test]
    fn the_grid_covers_every_output_once() {
        for (output, dilations) in [([5, 7], [1, 1]), ([9, 7], [2, 1]), ([11, 13], [3, 2]), ([2, 3], [1, 1])] {
            let w = Windows {
                input: output,
                output,
                kernel: [3, 3],
                strides: [1, 1],
                dilations,
                pads: [1, 1],
                channels: 1,
            };
            let grid = Grid::of(&w);
            let mut seen = [[0u8; 16]; 16];
            for t in 0..grid.count {
                for [r, c] in grid.outputs(t).into_iter().flatten() {
                    seen[r][c] += 1;
                }
            }
            for (r, row) in seen.iter().enumerate() {
                for (c, &s) in row.iter().enumerate() {
                    let inside = r < output[0] && c < output[1];
                    assert_eq!(s, u8::from(inside), "{output:?} {dilations:?}: ({r}, {c})");
                }
            }
        }
    }

    #[test]
    fn packing_puts_each_component_in_its_layer() {
        // 20 outputs over 2 channels, tiles of 16: the second tile holds 4 outputs.
        let (n, c, tile) = (20, 2, 16);
        let w: [f32; 20 * 9 * 2] = core::array::from_fn(|i| ((i as f32) * 0.37).sin());
        let len = packed_len(n, c, tile).unwrap_or(0);
        assert_eq!(len, 16 * 2 * c * tile);
        let mut dst = [f32::NAN; 16 * 2 * 2 * 16];
        pack(&mut dst, &w, n, c, tile);
        let layer = len / 16;
        for o in [0, 7, 19] {
            for ch in 0..c {
                let g =
                    core::array::from_fn(|kh| core::array::from_fn(|kw| f64::from(w[(o * 9 + kh * 3 + kw) * c + ch])));
                let u = transform_kernel(&g);
                for (xi, u) in u.iter().enumerate() {
                    assert_eq!(dst[xi * layer + ((o / tile) * c + ch) * tile + o % tile], *u as f32);
                }
            }
        }
        // Past the 20 outputs: zeros. A destination of the wrong length is left alone.
        assert!(dst[layer - 12..layer].iter().all(|&v| v == 0.0));
        let mut short = [f32::NAN; 8];
        pack(&mut short, &w, n, c, tile);
        assert!(short.iter().all(|v| v.is_nan()));
    }
}
