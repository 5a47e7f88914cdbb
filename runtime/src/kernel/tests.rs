//! The tiled kernels against plain sums, at every level the CPU has.
use super::*;
use crate::simd::Portable;

#[test]
fn panel_acc_rows_is_panel_acc_per_row() {
    let panel = [[1.0, -2.0, 0.5], [3.0, 4.0, -1.0]];
    let v = [[1.0, 10.0], [-2.0, 0.25], [0.0, 3.0]];
    let mut acc = [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [-1.0, 5.0, 2.0]];
    let mut want = acc;
    for (a, x) in want.iter_mut().zip(&v) {
        panel_acc(a, &panel, x, Portable);
    }
    panel_acc_rows(&mut acc, &panel, &v, Portable);
    assert_eq!(acc, want);
}

#[test]
fn rows_side_by_side_sum_as_each_row_alone() {
    // 11 inputs (a rest after the chunks of 2 and 4), 8 lanes, 5 rows (a block and a rest).
    let panel: [[f32; 8]; 11] = core::array::from_fn(|k| core::array::from_fn(|l| ((k * 8 + l) as f32).sin()));
    let v: [[f32; 11]; 5] = core::array::from_fn(|r| core::array::from_fn(|k| ((r * 11 + k) as f32 * 0.7).cos()));
    let start: [[f32; 8]; 5] = core::array::from_fn(|r| core::array::from_fn(|l| (r + l) as f32 * 0.1));
    macro_rules! check {
        ($q:literal, $b:literal) => {{
            let mut want = start;
            for (a, x) in want.iter_mut().zip(&v) {
                panel_acc_split::<11, 8, $q, [f32; 8], _>(a, &panel, x, Portable);
            }
            let mut got = start;
            split_rows::<11, 8, 5, $q, $b, [f32; 8], _>(&mut got, &panel, &v, Portable);
            assert_eq!(got.map(|r| r.map(f32::to_bits)), want.map(|r| r.map(f32::to_bits)), "Q {} B {}", $q, $b);
        }};
    }
    check!(1, 4);
    check!(2, 4);
    check!(4, 2);
    check!(4, 4);
}

/// A lone row's product over `T` tiles of `W` lanes, each tile's lane for lane the
/// bits of [`panel_acc`] on it, at the portable level and the one `dispatch!` picks (the
/// CI forces each): the tiles in whole groups and the ones left after them alike.
fn tiles_are_panel_acc_per_tile<const T: usize, const W: usize>() {
    tiles_at::<T, W, _>(Portable);
    crate::dispatch!(|_L, isa| tiles_at::<T, W, _>(isa));
}

fn tiles_at<const T: usize, const W: usize, I: Isa>(isa: I) {
    const K: usize = 9;
    let panels: [[[f32; W]; K]; T] = core::array::from_fn(|t| {
        core::array::from_fn(|k| core::array::from_fn(|l| ((t * 31 + k * 7 + l * 3) % 17) as f32 * 0.173 - 1.4))
    });
    let v: [[f32; K]; 1] = [core::array::from_fn(|k| 0.61 - k as f32 * 0.29)];
    let acc0: [[[f32; W]; 1]; T] = core::array::from_fn(|t| [core::array::from_fn(|l| (t + l) as f32 * 0.01)]);
    let mut want = acc0;
    for (a, panel) in want.iter_mut().zip(&panels) {
        panel_acc(&mut a[0], panel, &v[0], isa);
    }
    // Every number of tiles side by side sums each lane as one tile does.
    for (g, got) in [
        run_with(acc0, &panels, &v, Schedule::<1, 1>, isa),
        run_with(acc0, &panels, &v, Schedule::<1, 2>, isa),
        run_with(acc0, &panels, &v, Schedule::<1, 4>, isa),
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(got, want, "{T} tiles of {W} lanes, {} side by side", 1 << g);
    }
}

fn run_with<const K: usize, const W: usize, const T: usize, const Q: usize, const G: usize, I: Isa>(
    mut acc: [[[f32; W]; 1]; T],
    panels: &[[[f32; W]; K]; T],
    v: &[[f32; K]; 1],
    schedule: Schedule<Q, G>,
    isa: I,
) -> [[[f32; W]; 1]; T] {
    tiles_acc_rows(&mut acc, panels, v, Block::<1, 16>, schedule, isa);
    acc
}

#[test]
fn tiles_side_by_side_keep_each_lanes_sum() {
    // Groups of 4, 2 or 1 tiles, then 1, 2 or 3 left.
    tiles_are_panel_acc_per_tile::<5, 16>();
    tiles_are_panel_acc_per_tile::<6, 16>();
    tiles_are_panel_acc_per_tile::<7, 16>();
    tiles_are_panel_acc_per_tile::<8, 16>();
    tiles_are_panel_acc_per_tile::<5, 32>();
}

/// The tiles of a product read from the last (a recurrence's alternate steps) give each
/// tile's accumulator the product of its own panel, to the bit, whatever the schedule, the
/// rows and the tiles left after the last whole group.
#[test]
fn tiles_back_to_front_sum_as_front_to_back() {
    fn check<const S: usize, const R: usize, const Q: usize, const G: usize, I: Isa>(isa: I) {
        const K: usize = 11;
        const T: usize = 7;
        let panels: [[[f32; 16]; K]; T] = core::array::from_fn(|t| {
            core::array::from_fn(|k| core::array::from_fn(|l| ((t * 13 + k * 5 + l * 3) % 19) as f32 * 0.21 - 1.9))
        });
        let v: [[f32; K]; S] = core::array::from_fn(|s| core::array::from_fn(|k| 0.7 - (k + s) as f32 * 0.23));
        let acc0: [[[f32; 16]; S]; T] =
            core::array::from_fn(|t| core::array::from_fn(|s| core::array::from_fn(|l| (t * 3 + s + l) as f32 * 0.01)));
        let (mut front, mut back) = (acc0, acc0);
        tiles_acc_rows_in_order(&mut front, &panels, &v, Block::<R, 8>, Schedule::<Q, G>, false, isa);
        tiles_acc_rows_in_order(&mut back, &panels, &v, Block::<R, 8>, Schedule::<Q, G>, true, isa);
        assert_eq!(back, front, "{S} rows, blocks of {R}, Schedule<{Q}, {G}>");
    }
    fn all<I: Isa>(isa: I) {
        check::<1, 1, 1, 1, I>(isa);
        check::<1, 1, 1, 2, I>(isa);
        check::<1, 1, 1, 4, I>(isa);
        check::<1, 1, 2, 4, I>(isa);
        check::<1, 1, 4, 1, I>(isa);
        check::<3, 1, 1, 1, I>(isa);
        check::<3, 2, 1, 4, I>(isa);
        check::<3, 2, 2, 1, I>(isa);
        check::<5, 4, 4, 1, I>(isa);
    }
    all(Portable);
    crate::dispatch!(|_L, isa| all(isa));
}

#[test]
fn split_sums_compute_the_product() {
    let panel: [[f32; 5]; 7] = core::array::from_fn(|k| core::array::from_fn(|l| (k * 5 + l) as f32 * 0.37 - 6.0));
    let v: [f32; 7] = core::array::from_fn(|k| 1.5 - k as f32 * 0.45);
    let acc0 = [0.5, -1.0, 2.0, 0.0, 3.5];
    let want: [f64; 5] =
        core::array::from_fn(|l| acc0[l] as f64 + (0..7).map(|k| panel[k][l] as f64 * v[k] as f64).sum::<f64>());
    let mut one = acc0;
    panel_acc(&mut one, &panel, &v, Portable);
    let (mut q1, mut q2, mut q4) = (acc0, acc0, acc0);
    panel_acc_split::<7, 5, 1, _, _>(&mut q1, &panel, &v, Portable);
    panel_acc_split::<7, 5, 2, _, _>(&mut q2, &panel, &v, Portable);
    panel_acc_split::<7, 5, 4, _, _>(&mut q4, &panel, &v, Portable);
    assert_eq!(q1, one, "one partial sum is the plain product");
    for got in [q2, q4] {
        for (g, w) in got.iter().zip(&want) {
            assert!((*g as f64 - w).abs() < 1e-5 * w.abs().max(1.0), "{got:?} against {want:?}");
        }
    }
    // Sums in a different order: the split is really taken.
    assert_ne!(q4, one);
}

#[test]
fn axpy_adds_a_scaled_column() {
    let mut acc = [1.0, 2.0, 3.0];
    axpy(&mut acc, 2.0, &[10.0, 20.0, 30.0], Portable);
    assert_eq!(acc, [21.0, 42.0, 63.0]);
}

#[test]
fn panel_acc_is_a_matrix_vector_product() {
    let panel = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];
    let mut acc = [10.0, 20.0];
    panel_acc(&mut acc, &panel, &[1.0, 10.0, 100.0], Portable);
    assert_eq!(acc, [10.0 + 1.0 + 30.0 + 500.0, 20.0 + 2.0 + 40.0 + 600.0]);
}

/// A panel of `K` rows of `W` lanes in its 16-bit and int8 forms, with the f32 values each
/// holds.
struct Forms<const K: usize, const W: usize, const HW: usize, const RW: usize> {
    f16: [[u16; W]; K],
    f16_values: [[f32; W]; K],
    bf16: [[u32; HW]; K],
    bf16_values: [[f32; W]; K],
    i8: [[i8; RW]; K],
    /// The int8 values, each row's input to be multiplied by its column's scale.
    i8_values: [[f32; W]; K],
    i8_scales: [f32; K],
}

fn forms<const K: usize, const W: usize, const HW: usize, const RW: usize>() -> Forms<K, W, HW, RW> {
    let f32: [[f32; W]; K] =
        core::array::from_fn(|k| core::array::from_fn(|l| ((k * 31 + l * 17) % 23) as f32 * 0.1371 - 1.3));
    // `panels_bf16` reads a matrix [W rows][K columns]: one tile of W lanes.
    let mut m = [[0.0f32; K]; W];
    for (k, r) in f32.iter().enumerate() {
        for (l, &x) in r.iter().enumerate() {
            m[l][k] = x;
        }
    }
    let mut bf16 = [[0u32; HW]; K];
    cellc_pack::panels_bf16(bf16.as_flattened_mut(), m.as_flattened(), W, K, &[0], W);
    let f16 = f32.map(|r| r.map(|x| half::f16::from_f32(x).to_bits()));
    let mut i8 = [[0i8; RW]; K];
    cellc_pack::int8::panels_i8(i8.as_flattened_mut(), m.as_flattened(), W, K, &[0], W);
    // Each row `k` is column `k` of `m`: its values at its scale, as `int8` defines them.
    let i8_scales: [f32; K] = core::array::from_fn(|k| cellc_pack::int8::column_scale(m.as_flattened(), K, k));
    let i8_values = core::array::from_fn(|k| {
        core::array::from_fn(|l| f32::from(cellc_pack::int8::quantise(f32[k][l], i8_scales[k])))
    });
    Forms {
        i8,
        i8_values,
        i8_scales,
        f16,
        f16_values: f16.map(|r| r.map(|b| half::f16::from_bits(b).to_f32())),
        bf16,
        bf16_values: f32.map(|r| r.map(|x| half::bf16::from_f32(x).to_f32())),
    }
}

/// Each 16-bit form computes, at every level, exactly what the f32 kernel computes on the
/// values it holds, and the int8 one what it computes on its values with each input times
/// its row's scale: one row, batched rows in register blocks, and columns.
fn stored_forms_match_f32<const K: usize, const W: usize, const HW: usize, const RW: usize>() {
    let p = forms::<K, W, HW, RW>();
    let v: [[f32; K]; 11] =
        core::array::from_fn(|s| core::array::from_fn(|k| (s as f32 - 5.0) * 0.25 + k as f32 * 0.01));
    let acc0: [[f32; W]; 11] = core::array::from_fn(|s| core::array::from_fn(|l| (s * l) as f32 * 0.001));
    fn run<const K: usize, const W: usize, P: Row<W>, I: Isa>(
        panel: &[P; K],
        v: &[[f32; K]; 11],
        acc0: &[[f32; W]; 11],
        isa: I,
    ) -> [[[f32; W]; 11]; 4] {
        let (mut one, mut blocks, mut wide, mut cols) = (*acc0, *acc0, *acc0, *acc0);
        for (a, x) in one.iter_mut().zip(v) {
            panel_acc(a, panel, x, isa);
        }
        panel_acc_rows_in(&mut blocks, panel, v, Block::<4, 8>, isa);
        panel_acc_rows_in(&mut wide, panel, v, Block::<8, 8>, isa);
        // The same panel as 5 tiles of one product, one row at a time, interleaved (or
        // split): as one tile does, and as all the rows at once do.
        fn rows<const K: usize, const W: usize, const Q: usize, P: Row<W>, I: Isa>(
            panel: &[P; K],
            v: &[[f32; K]; 11],
            acc0: &[[f32; W]; 11],
            one: &[[f32; W]; 11],
            isa: I,
        ) {
            let mut batch = [*acc0; 5];
            tiles_acc_rows(&mut batch, &[*panel; 5], v, Block::<4, 8>, Schedule::<Q, 4>, isa);
            for (s, x) in v.iter().enumerate() {
                let mut tiles = [[acc0[s]; 1]; 5];
                tiles_acc_rows(&mut tiles, &[*panel; 5], &[*x], Block::<1, 8>, Schedule::<Q, 4>, isa);
                assert!(tiles.iter().all(|t| t[0] == tiles[0][0]), "tiles of the same panel sum alike");
                assert!(batch.iter().all(|b| b[s] == tiles[0][0]), "one row sums as a batch of rows does");
                if Q == 1 {
                    assert!(tiles[0][0] == one[s], "interleaved tiles sum as one tile does");
                }
            }
        }
        rows::<K, W, 1, P, I>(panel, v, acc0, &one, isa);
        rows::<K, W, 2, P, I>(panel, v, acc0, &one, isa);
        rows::<K, W, 4, P, I>(panel, v, acc0, &one, isa);
        for (k, col) in panel.iter().enumerate() {
            axpy_rows(&mut cols, k, v, col, isa);
        }
        // Blocks of rows sum each lane in the order of one row.
        assert!(blocks == one && wide == one, "rows in register blocks sum as one row does");
        [one, blocks, wide, cols]
    }
    // Within a level, every path computes the same bits (levels with FMA round
    // differently from the portable one, which has none).
    let same = |a: [[[f32; W]; 11]; 4], b: [[[f32; W]; 11]; 4]| {
        a.as_flattened().as_flattened() == b.as_flattened().as_flattened()
    };
    assert!(same(run(&p.f16, &v, &acc0, Portable), run(&p.f16_values, &v, &acc0, Portable)));
    assert!(same(run(&p.bf16, &v, &acc0, Portable), run(&p.bf16_values, &v, &acc0, Portable)));
    let (f16, f16_values) =
        crate::dispatch!(|_L, isa| (run(&p.f16, &v, &acc0, isa), run(&p.f16_values, &v, &acc0, isa)));
    assert!(same(f16, f16_values));
    let (bf16, bf16_values) =
        crate::dispatch!(|_L, isa| (run(&p.bf16, &v, &acc0, isa), run(&p.bf16_values, &v, &acc0, isa)));
    assert!(same(bf16, bf16_values));
    let scaled: [[f32; K]; 11] = v.map(|x| core::array::from_fn(|k| x[k] * p.i8_scales[k]));
    assert!(same(run(&p.i8, &v, &acc0, Portable), run(&p.i8_values, &scaled, &acc0, Portable)));
    let (i8, i8_values) =
        crate::dispatch!(|_L, isa| (run(&p.i8, &v, &acc0, isa), run(&p.i8_values, &scaled, &acc0, isa)));
    assert!(same(i8, i8_values));
}

/// The levels with FMA round each multiply–add once, the portable level twice: they
/// differ, each within a rounding of the exact sum.
#[test]
fn fused_levels_round_once() {
    let (w, v, acc) = (1.0 + f32::EPSILON, 1.0 - f32::EPSILON, -1.0f32);
    // w·v = 1 - ε² exactly; acc + w·v = -ε², which rounding w·v first loses.
    assert_eq!(Portable.mul_add(acc, w, v), 0.0);
    assert_eq!(Portable.mul_add8([acc; 8], [w; 8], v), [0.0; 8]);
    fn fused<I: Isa>(_: I) -> bool {
        I::FUSED
    }
    let fused = crate::dispatch!(|_L, isa| (fused(isa), isa.mul_add(acc, w, v), isa.mul_add8([acc; 8], [w; 8], v)));
    let want = if fused.0 { -f32::EPSILON * f32::EPSILON } else { 0.0 };
    assert_eq!((fused.1, fused.2), (want, [want; 8]));
}

#[test]
fn stored_rows_of_a_whole_tile() {
    stored_forms_match_f32::<5, 48, 24, 52>();
}

#[test]
fn stored_rows_of_four_vectors() {
    stored_forms_match_f32::<4, 64, 32, 68>();
}

#[test]
fn stored_rows_ending_inside_a_vector() {
    stored_forms_match_f32::<3, 20, 10, 24>();
}

#[test]
fn stored_rows_of_odd_width() {
    stored_forms_match_f32::<3, 13, 7, 17>();
}

#[test]
fn stored_rows_narrower_than_a_block() {
    stored_forms_match_f32::<2, 3, 2, 7>();
}

/// A dense layer of `n` outputs over `K` inputs in tiles of `W` (`T` a group) for `rows`
/// rows, through `dense_rows_wide` with `Q` partial sums, at the AVX2 and the AVX-512
/// level: the same bits (the README's promise for the levels with FMA), whether the
/// AVX-512 level takes its blocks of rows × tiles (`Q` = 1, the schedule the plan gives a
/// layer over many rows) or the row-by-row kernels (`Q` > 1). On a CPU without both levels
/// there is nothing to compare (`.ci/run`'s summary says so).
#[cfg(all(target_arch = "x86_64", feature = "std"))]
#[allow(unsafe_code)]
fn dense_levels_agree<const K: usize, const W: usize, const T: usize, const Q: usize>(n: usize, rows: usize) -> bool {
    use crate::simd::{Avx2, Avx512, Level};
    use std::{vec, vec::Vec};
    if crate::simd::cpu_level() < Level::Avx512 {
        return false;
    }
    let tiles = n.div_ceil(W).div_ceil(T) * T;
    let panels: Vec<[[f32; W]; K]> = (0..tiles)
        .map(|t| {
            core::array::from_fn(|k| {
                core::array::from_fn(|l| {
                    if t * W + l < n { ((t * 131 + k * 17 + l * 7) % 29) as f32 * 0.071 - 1.0 } else { 0.0 }
                })
            })
        })
        .collect();
    let bias: Vec<[f32; W]> = (0..tiles).map(|t| core::array::from_fn(|l| (t * W + l) as f32 * 0.01 - 0.3)).collect();
    let x: Vec<[f32; K]> =
        (0..rows).map(|r| core::array::from_fn(|k| ((r * K + k) as f32 * 0.37).sin() * 1.7)).collect();
    let (mut y2, mut y5) = (vec![f32::NAN; rows * n], vec![f32::NAN; rows * n]);
    const { assert!(Level::Avx2.batch_rows() == Level::Avx512.batch_rows(), "one block of rows at both levels") };
    // SAFETY: `cpu_level()` is AVX-512 only when the CPU has every feature of x86-64-v4,
    // which includes those of x86-64-v3 that `avx2` enables.
    unsafe {
        // Blocks of the rows both levels take (`Level::batch_rows`, `batch_lanes`).
        const S: usize = Level::Avx2.batch_rows();
        const V: usize = Level::Avx2.batch_lanes();
        let (a2, a5) = (Avx2::new_unchecked(), Avx512::new_unchecked());
        crate::simd::avx2(
            #[cfg_attr(not(cellc_unoptimised), inline(always))]
            || dense_rows_wide::<K, W, S, T, S, V, Q, 1, _, _>(&panels, &bias, &x, &mut y2, n, Block, Schedule, a2),
        );
        crate::simd::avx512(
            #[cfg_attr(not(cellc_unoptimised), inline(always))]
            || dense_rows_wide::<K, W, S, T, S, V, Q, 1, _, _>(&panels, &bias, &x, &mut y5, n, Block, Schedule, a5),
        );
    }
    assert!(y2.iter().all(|v| v.is_finite()), "every output written");
    let bits = |y: &[f32]| y.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&y2), bits(&y5), "K {K} W {W} T {T} Q {Q}, {n} outputs, {rows} rows");
    // And the bits of each output's fused sum in order from its bias, whatever block its
    // row fell in.
    let want: Vec<f32> = (0..rows * n)
        .map(|i| {
            let (r, j) = (i / n, i % n);
            let (t, l) = (j / W, j % W);
            (0..K).fold(bias[t][l], |s, k| x[r][k].mul_add(panels[t][k][l], s))
        })
        .collect();
    if Q == 1 {
        assert_eq!(bits(&y5), bits(&want), "K {K} W {W} T {T}, {n} outputs, {rows} rows: the sums in order");
    }
    true
}

#[cfg(all(target_arch = "x86_64", feature = "std"))]
#[test]
fn dense_layers_give_the_same_bits_at_avx2_and_avx512() {
    // The shapes of the fixtures' dense layers and convolutions (a head of 4 outputs over
    // 15 inputs, 1x1 and 3-tap convolutions, heads of 16 and 48), over fewer rows than a
    // block, a block and its rest, and many rows; with the sums split as narrow layers over
    // few rows have them, and unsplit as the plan gives layers over many rows; rows left
    // over a block in threes, a two and a one.
    for rows in [1, 2, 5, 6, 8, 13, 14, 40] {
        if !dense_levels_agree::<15, 4, 1, 1>(4, rows) {
            return;
        }
        dense_levels_agree::<15, 4, 1, 4>(4, rows);
        dense_levels_agree::<6, 8, 1, 1>(7, rows);
        dense_levels_agree::<18, 8, 1, 2>(8, rows);
        dense_levels_agree::<12, 16, 1, 1>(16, rows);
        dense_levels_agree::<40, 16, 3, 1>(48, rows);
        dense_levels_agree::<9, 16, 2, 1>(20, rows);
        dense_levels_agree::<64, 16, 4, 1>(64, rows);
        dense_levels_agree::<8, 2, 1, 4>(2, rows);
    }
}

/// The vector loads and stores at a row's end: a vector starting inside the row reads its
/// lanes and zeros past the end (writes only its lanes); one starting at or past the end
/// reads zeros and writes nothing, at every level the CPU has.
#[cfg(all(target_arch = "x86_64", feature = "std"))]
#[test]
#[allow(unsafe_code)]
fn vectors_at_the_end_of_a_row_touch_only_the_row() {
    use super::blocked::{Reg, Ymm, Zmm};
    use crate::simd::{Avx2, Avx512, Level};
    fn check<R: Reg>(r: R, lanes: usize, to_array: impl Fn(R::V) -> [f32; 16]) {
        let row: [f32; 5] = [1.0, 2.0, 3.0, 4.0, 5.0];
        let half: [u16; 5] = row.map(|v| half::f16::from_f32(v).to_bits());
        let head = to_array(r.load(&row, 0));
        for (l, v) in head.iter().take(lanes).enumerate() {
            assert_eq!(*v, row.get(l).copied().unwrap_or(0.0), "lane {l}");
        }
        assert_eq!(to_array(r.load_f16(&half, 0))[..5], row);
        let q: [i8; 5] = [1, -2, 3, -4, 127];
        let ints = to_array(r.load_i8(&q, 0));
        assert_eq!(ints[..5], [1.0, -2.0, 3.0, -4.0, 127.0]);
        assert!(ints[5..lanes].iter().all(|&v| v == 0.0), "int8 lanes past the row read zeros");
        for j in 1..4 {
            assert!(to_array(r.load(&row, j)).iter().all(|&v| v == 0.0), "a vector past the row reads zeros");
            assert!(to_array(r.load_f16(&half, j)).iter().all(|&v| v == 0.0));
            assert!(to_array(r.load_i8(&q, j)).iter().all(|&v| v == 0.0));
        }
        let mut out = [9.0f32; 5];
        r.store(&mut out, 0, r.splat(7.0));
        assert_eq!(out, [7.0; 5]);
        for j in 1..4 {
            r.store(&mut out, j, r.splat(-1.0));
        }
        assert_eq!(out, [7.0; 5], "a vector past the row writes nothing");
    }
    let cpu = crate::simd::cpu_level();
    if cpu >= Level::Avx2 {
        // SAFETY: the CPU runs x86-64-v3 (asked above); the test is compiled for the build's
        // target, and the intrinsics run under `avx2`'s target features.
        unsafe {
            let y = Ymm(Avx2::new_unchecked());
            crate::simd::avx2(
                #[cfg_attr(not(cellc_unoptimised), inline(always))]
                || {
                    check(y, 8, |v| {
                        let mut a = [0.0f32; 16];
                        core::arch::x86_64::_mm256_storeu_ps(a.as_mut_ptr(), v);
                        a
                    })
                },
            );
        }
    }
    if cpu >= Level::Avx512 {
        // SAFETY: as above, for x86-64-v4.
        unsafe {
            let z = Zmm(Avx512::new_unchecked());
            crate::simd::avx512(
                #[cfg_attr(not(cellc_unoptimised), inline(always))]
                || {
                    check(z, 16, |v| {
                        let mut a = [0.0f32; 16];
                        core::arch::x86_64::_mm512_storeu_ps(a.as_mut_ptr(), v);
                        a
                    })
                },
            );
        }
    }
}

/// Under Miri (which runs the AVX-512 intrinsics it knows when the build enables their
/// target features, and checks every access): the masked loads and stores at a row's end
/// stay inside the row (`.ci/run` runs it so).
#[cfg(all(miri, target_arch = "x86_64", target_feature = "avx512f", target_feature = "avx512bw"))]
#[test]
#[allow(unsafe_code)]
fn masked_vectors_at_the_end_of_a_row_stay_inside_it() {
    use super::blocked::{Reg, Zmm};
    use crate::simd::Avx512;
    fn check<const W: usize>(z: Zmm) {
        let row: [f32; W] = core::array::from_fn(|v| v as f32 + 1.0);
        for j in 0..=W / 16 + 1 {
            let mut a = [0.0f32; 16];
            // SAFETY: `a` holds 16 values; the build enables AVX-512 F.
            unsafe { core::arch::x86_64::_mm512_storeu_ps(a.as_mut_ptr(), z.load(&row, j)) };
            for (l, v) in a.iter().enumerate() {
                assert_eq!(*v, row.get(16 * j + l).copied().unwrap_or(0.0), "{W} values, vector {j}, lane {l}");
            }
            let mut out = row;
            z.store(&mut out, j, z.splat(-1.0));
            for (i, v) in out.iter().enumerate() {
                let want = if i / 16 == j { -1.0 } else { row[i] };
                assert_eq!(*v, want, "{W} values, vector {j} stored");
            }
        }
    }
    // SAFETY: the build enables the AVX-512 features (the cfg above), so every function
    // compiled in it may use them.
    let z = Zmm(unsafe { Avx512::new_unchecked() });
    check::<1>(z);
    check::<5>(z);
    check::<15>(z);
    check::<16>(z);
    check::<17>(z);
    check::<31>(z);
}

#[test]
fn per_output_maps_each_whole_row_with_its_outputs_parameters() {
    let p = [0.5f32, -2.0, 3.0];
    // Two whole rows and one value of a third, left alone.
    let mut y: [f32; 7] = core::array::from_fn(|i| i as f32 - 3.0);
    per_output(&mut y, &p, |v, s| if v >= 0.0 { v } else { v * s });
    assert_eq!(y, [-1.5, 4.0, -3.0, 0.0, 1.0, 2.0, 3.0]);
}
