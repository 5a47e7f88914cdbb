//! Dense layers (a matrix product by constant weights, a bias, an activation) over weights
//! packed like a cell's input projection: the same register-blocked products.
use super::{Block, Row, Schedule, tiles_acc_rows};
use crate::simd::Isa;

/// For each row `r` of `x`: `y[r·n + j] = Σₖ x[r][k]·w(j, k) + bias(j)` for `j < n`,
/// where tile `t` of `panels` holds the weights of outputs `t·W..t·W + W` (see
/// [`cellc_pack`]) and `bias[t]` their bias. Rows go `S` at a time through
/// [`tiles_acc_rows`] (then the rest one by one), tiles `T` at a time, so the accumulators
/// are `T·S·W` values whatever the layer's size; `panels` and `bias` hold a whole number of
/// groups of `T` tiles (padded with zero tiles past `n`).
///
/// Writes nothing unless `y` holds `n` values per row of `x` and the tiles cover `n`
/// outputs (generated code passes slices of those lengths). The layer's activation is the
/// caller's, applied to `y` afterwards in its own loop: a closure passed in here would be
/// compiled apart from the caller's vector level when it is not inlined.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(clippy::too_many_arguments)]
pub fn dense_rows<
    const K: usize,
    const W: usize,
    const S: usize,
    const T: usize,
    const R: usize,
    const V: usize,
    const Q: usize,
    const G: usize,
    P,
    I,
>(
    panels: &[[P; K]],
    bias: &[[f32; W]],
    x: &[[f32; K]],
    y: &mut [f32],
    n: usize,
    block: Block<R, V>,
    schedule: Schedule<Q, G>,
    isa: I,
) where
    P: Row<W>,
    I: Isa,
{
    if !fits::<K, W, T, P>(panels, bias, x, y, n) {
        return;
    }
    let (blocks, rest) = x.as_chunks::<S>();
    let (y_blocks, y_rest) = y.split_at_mut(blocks.len() * S * n);
    for (xs, ys) in blocks.iter().zip(y_blocks.chunks_exact_mut(S * n.max(1))) {
        rows_block::<K, W, S, T, R, V, Q, G, P, I>(panels, bias, xs, ys, n, block, schedule, isa);
    }
    for (xr, yr) in rest.iter().zip(y_rest.chunks_exact_mut(n.max(1))) {
        rows_block::<K, W, 1, T, 1, V, Q, G, P, I>(
            panels,
            bias,
            core::array::from_ref(xr),
            yr,
            n,
            Block,
            schedule,
            isa,
        );
    }
}

/// [`dense_rows`] for a layer that runs over many rows (a convolution's windows): at the
/// AVX2 and AVX-512 levels, in register blocks of several rows × several tiles (see `wide`), where
/// every output sums in the order of [`super::panel_acc`] however many rows the call holds;
/// elsewhere, as [`dense_rows`]. Writes nothing on the lengths [`dense_rows`] refuses.
///
/// The blocks are taken only with one sum per lane (`Q` = 1), the schedule whose sums
/// [`dense_rows`] adds in that same order at every level: with the sums split, every level
/// goes through [`dense_rows`], so the levels with FMA give the same bits either way.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(clippy::too_many_arguments)]
pub fn dense_rows_wide<
    const K: usize,
    const W: usize,
    const S: usize,
    const T: usize,
    const R: usize,
    const V: usize,
    const Q: usize,
    const G: usize,
    P,
    I,
>(
    panels: &[[P; K]],
    bias: &[[f32; W]],
    x: &[[f32; K]],
    y: &mut [f32],
    n: usize,
    block: Block<R, V>,
    schedule: Schedule<Q, G>,
    isa: I,
) where
    P: Row<W>,
    I: Isa,
{
    #[cfg(target_arch = "x86_64")]
    if W <= 16
        && Q == 1
        && let Some(z) = isa.avx512()
    {
        if fits::<K, W, T, P>(panels, bias, x, y, n) {
            super::wide::dense_avx512::<K, W, P, _>(z, panels, bias, super::wide::Rows::packed(x), y, n, |_| {});
        }
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if W <= 16
        && Q == 1
        && let Some(v) = isa.avx2()
    {
        if fits::<K, W, T, P>(panels, bias, x, y, n) {
            super::wide::dense_avx2::<K, W, P, _>(v, panels, bias, super::wide::Rows::packed(x), y, n, |_| {});
        }
        return;
    }
    dense_rows::<K, W, S, T, R, V, Q, G, P, I>(panels, bias, x, y, n, block, schedule, isa);
}

/// Whether the lengths are those of a layer of `n` outputs in groups of `T` tiles over
/// the rows of `x` (see [`dense_rows`]).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn fits<const K: usize, const W: usize, const T: usize, P>(
    panels: &[[P; K]],
    bias: &[[f32; W]],
    x: &[[f32; K]],
    y: &[f32],
    n: usize,
) -> bool {
    let groups = panels.len() / T.max(1);
    T != 0
        && W != 0
        && Some(y.len()) == x.len().checked_mul(n)
        && panels.len() == bias.len()
        && panels.len().is_multiple_of(T)
        && groups.saturating_mul(T * W) >= n
}

/// [`dense_rows`] for one block of `S` rows (`y` holds exactly their outputs).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(clippy::too_many_arguments)]
fn rows_block<
    const K: usize,
    const W: usize,
    const S: usize,
    const T: usize,
    const R: usize,
    const V: usize,
    const Q: usize,
    const G: usize,
    P,
    I,
>(
    panels: &[[P; K]],
    bias: &[[f32; W]],
    xs: &[[f32; K]; S],
    y: &mut [f32],
    n: usize,
    block: Block<R, V>,
    schedule: Schedule<Q, G>,
    isa: I,
) where
    P: Row<W>,
    I: Isa,
{
    for (g, (pg, bg)) in panels.chunks_exact(T).zip(bias.chunks_exact(T)).enumerate() {
        let mut acc = [[[0.0f32; W]; S]; T];
        for (a, b) in acc.iter_mut().zip(bg) {
            *a = [*b; S];
        }
        tiles_acc_rows::<K, W, S, T, R, V, Q, G, P, I>(&mut acc, pg, xs, block, schedule, isa);
        let j0 = g * T * W;
        for (s, yr) in y.chunks_exact_mut(n.max(1)).enumerate().take(S) {
            let Some(yr) = yr.get_mut(j0.min(n)..(j0 + T * W).min(n)) else { continue };
            for (j, v) in yr.iter_mut().enumerate() {
                *v = acc[j / W][s][j % W];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::Portable;

    #[test]
    fn dense_rows_is_the_product_plus_bias() {
        // 3 inputs, 5 outputs in tiles of 2 (3 tiles, padded to 4 for groups of 2), 3 rows.
        const K: usize = 3;
        let n = 5;
        let w = |j: usize, k: usize| (j * K + k) as f32 * 0.25 - 1.0;
        let b = |j: usize| j as f32 * 0.5;
        let panels: [[[f32; 2]; K]; 4] = core::array::from_fn(|t| {
            core::array::from_fn(|k| core::array::from_fn(|l| if t * 2 + l < n { w(t * 2 + l, k) } else { 0.0 }))
        });
        let bias: [[f32; 2]; 4] =
            core::array::from_fn(|t| core::array::from_fn(|l| if t * 2 + l < n { b(t * 2 + l) } else { 0.0 }));
        let x = [[1.0, 2.0, -1.0], [0.5, 0.0, 3.0], [-2.0, 1.0, 1.0]];
        let mut y = [f32::NAN; 15];
        dense_rows::<K, 2, 2, 2, 2, 8, 4, 1, _, _>(&panels, &bias, &x, &mut y, n, Block, Schedule, Portable);
        for r in 0..3 {
            for j in 0..n {
                let want = (0..K).map(|k| x[r][k] * w(j, k)).sum::<f32>() + b(j);
                assert!((y[r * n + j] - want).abs() < 1e-6, "row {r} output {j}: {} against {want}", y[r * n + j]);
            }
        }
        // Wrong lengths: nothing written.
        let mut short = [7.0f32; 14];
        dense_rows::<K, 2, 2, 2, 2, 8, 4, 1, _, _>(&panels, &bias, &x, &mut short, n, Block, Schedule, Portable);
        assert_eq!(short, [7.0; 14]);
    }
}
