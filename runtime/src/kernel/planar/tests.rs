use super::*;
use crate::kernel::windows::tests::{position, win};
use crate::kernel::{Windows, dense_windows};
use crate::simd::Portable;
use std::{format, vec, vec::Vec};

/// The layer from the definition over the input laid out channels first, each output summed
/// from its bias tap by tap, channel by channel (its group's), as `isa` multiplies and adds;
/// laid out channels first.
fn reference<const C: usize, const K: usize, const NB: usize, I: Isa>(
    panels: &[[[f32; NB]; K]],
    bias: &[[f32; NB]],
    x: &[f32],
    (groups, n): (usize, usize),
    win: &Windows,
    isa: I,
) -> Vec<f32> {
    let area = win.input[0] * win.input[1];
    let per = n.div_ceil(NB);
    let mut y = Vec::new();
    for xe in x.chunks_exact(area * C * groups) {
        for (grp, xg) in xe.chunks_exact(area * C).enumerate() {
            for j in 0..n {
                let (g, l) = (grp * per + j / NB, j % NB);
                for p in 0..win.positions() {
                    let mut s = bias[g][l];
                    for t in 0..win.taps() {
                        for c in 0..C {
                            let v = position(win, p, t).map_or(0.0, |at| xg[c * area + at]);
                            s = isa.mul_add(s, panels[g][t * C + c][l], v);
                        }
                    }
                    y.push(s);
                }
            }
        }
    }
    y
}

/// Runs the kernel over `entries` entries of `win` (its channels set to `C`) with `n`
/// outputs in panels of `NB`, at this CPU's level and the portable one, against the
/// reference, and at this level against the channels-last kernel on the same values.
fn check<const C: usize, const K: usize, const NB: usize>(n: usize, win: Windows, entries: usize) {
    grouped::<C, K, NB>((1, n), win, entries);
}

/// [`check`] over `groups` groups of `C` channels and `n` outputs each (against the
/// channels-last kernel only with one group).
fn grouped<const C: usize, const K: usize, const NB: usize>((groups, n): (usize, usize), win: Windows, entries: usize) {
    let win = Windows { channels: C, ..win };
    let geo = Planar::of(&win).expect("the copy's sizes fit");
    let size = geo.work().expect("the copy's sizes fit");
    let per = n.div_ceil(NB);
    let v = |i: usize| ((i as f32) * 0.37).sin();
    let panels: Vec<[[f32; NB]; K]> = (0..groups * per)
        .map(|g| {
            core::array::from_fn(|k| {
                core::array::from_fn(|l| if g % per * NB + l < n { v(g * 1000 + k * NB + l) } else { 0.0 })
            })
        })
        .collect();
    let bias: Vec<[f32; NB]> = (0..groups * per).map(|g| core::array::from_fn(|l| v(7000 + g * NB + l))).collect();
    let area = win.input[0] * win.input[1];
    let x: Vec<f32> = (0..entries * groups * area * C).map(|i| v(9000 + i) + 1.5).collect();
    let len = entries * win.positions() * n * groups;
    let what = format!("{win:?}, {groups} groups of {C} channels, {n} outputs in panels of {NB}, {entries} entries");
    let outs = (groups, n);
    // A work area dirtied before: every value the kernel reads is one it wrote.
    let mut work = vec![f32::NAN; size + 16];
    let mut y = vec![f32::NAN; len + 3];
    let expected = crate::dispatch!(|_L, isa| {
        dense_planar_then::<C, K, NB, _, _>(&panels, &bias, &x, &mut y[..len], outs, &geo, &mut work, isa, |_, _| {});
        reference::<C, K, NB, _>(&panels, &bias, &x, outs, &win, isa)
    });
    assert_eq!(&y[..len], &expected[..], "{what}");
    assert!(y[len..].iter().all(|v| v.is_nan()), "nothing written past the outputs: {what}");
    // The copy starts on a cache line wherever the work area starts.
    for skew in 1..16 {
        let mut y = vec![f32::NAN; len];
        let work = &mut work[skew..];
        crate::dispatch!(|_L, isa| dense_planar_then::<C, K, NB, _, _>(
            &panels,
            &bias,
            &x,
            &mut y,
            outs,
            &geo,
            work,
            isa,
            |_, _| {}
        ));
        assert_eq!(y, expected, "work from value {skew}: {what}");
    }
    // The channels-last kernel on the same values: the same bits.
    if groups == 1 {
        channels_last::<C, K, NB>((&panels, &bias), &x, &y, n, win, entries);
    }
    let positions = win.positions();
    // Every level this CPU has (the blocks of each), and the portable one.
    at_every_level!(|isa, level| {
        let mut y = vec![f32::NAN; len];
        dense_planar_then::<C, K, NB, _, _>(&panels, &bias, &x, &mut y, outs, &geo, &mut work, isa, |_, _| {});
        assert_eq!(y, reference::<C, K, NB, _>(&panels, &bias, &x, outs, &win, isa), "{level}: {what}");
    });
    // The map sees each output's runs once, with the output's index.
    let mut y = vec![f32::NAN; len];
    let then = |j: usize, run: &mut [f32]| run.iter_mut().for_each(|v| *v = v.max(0.0) * 0.5 - j as f32);
    crate::dispatch!(|_L, isa| dense_planar_then::<C, K, NB, _, _>(
        &panels, &bias, &x, &mut y, outs, &geo, &mut work, isa, then
    ));
    let mapped: Vec<f32> =
        expected.iter().enumerate().map(|(i, v)| v.max(0.0) * 0.5 - ((i / positions) % (n * groups)) as f32).collect();
    assert_eq!(y, mapped, "mapped: {what}");
    // Wrong lengths, a short work area: nothing written.
    let mut y = vec![f32::NAN; len + 1];
    dense_planar_then::<C, K, NB, _, _>(&panels, &bias, &x, &mut y, outs, &geo, &mut work, Portable, |_, _| {});
    assert!(y.iter().all(|v| v.is_nan()), "{what}");
    let mut y = vec![f32::NAN; len];
    let mut short = vec![0.0; size - 1];
    dense_planar_then::<C, K, NB, _, _>(&panels, &bias, &x, &mut y, outs, &geo, &mut short, Portable, |_, _| {});
    assert!(y.iter().all(|v| v.is_nan()), "short work area: {what}");
}

/// The channels-last kernel over the same weights and values (laid out channels last) gives
/// the same bits as `y`.
fn channels_last<const C: usize, const K: usize, const NB: usize>(
    (panels, bias): (&[[[f32; NB]; K]], &[[f32; NB]]),
    x: &[f32],
    y: &[f32],
    n: usize,
    win: Windows,
    entries: usize,
) {
    let tile = 16;
    let area = win.input[0] * win.input[1];
    let what = format!("{win:?}, {C} channels, {n} outputs in panels of {NB}, {entries} entries");
    let tiles = n.div_ceil(tile);
    let wide: Vec<[[f32; 16]; K]> = (0..tiles)
        .map(|t| {
            core::array::from_fn(|k| {
                core::array::from_fn(|l| {
                    let j = t * tile + l;
                    if j < n { panels[j / NB][k][j % NB] } else { 0.0 }
                })
            })
        })
        .collect();
    let wide_bias: Vec<[f32; 16]> = (0..tiles)
        .map(|t| {
            core::array::from_fn(|l| {
                let j = t * tile + l;
                if j < n { bias[j / NB][j % NB] } else { 0.0 }
            })
        })
        .collect();
    let last: Vec<f32> = x
        .chunks_exact(area * C)
        .flat_map(|xe| (0..area).flat_map(move |p| (0..C).map(move |c| xe[c * area + p])))
        .collect();
    let positions = win.positions();
    let mut z = vec![0.0f32; entries * positions * n];
    crate::dispatch!(|_L, isa| dense_windows::<C, K, 16, 1, _, _>(&wide, &wide_bias, &last, &mut z, n, &win, isa));
    for e in 0..entries {
        for p in 0..positions {
            for j in 0..n {
                let at = e * positions * n;
                assert_eq!(
                    y[at + j * positions + p].to_bits(),
                    z[at + p * n + j].to_bits(),
                    "{what}: output {j} at {p}"
                );
            }
        }
    }
}

#[test]
fn every_position_reads_its_taps_from_the_copy() {
    // 2-D, padded: rows of fewer positions than a vector, of several, and a rest.
    for width in [3, 8, 13, 16, 31, 40, 70] {
        let w = win([5, width], [3, 3], [1, 1], [1, 1], [1, 1]);
        check::<3, 27, 12>(12, w, 1);
        check::<3, 27, 4>(4, w, 2);
        check::<1, 9, 1>(1, w, 1);
        check::<2, 18, 8>(16, w, 1);
        check::<2, 18, 6>(11, w, 1);
        // Panels of 10 to 12 outputs take two blocks (AVX2): apart, overlapping, and the
        // second past the layer's outputs.
        check::<2, 18, 10>(10, w, 1);
        check::<2, 18, 11>(22, w, 1);
        check::<3, 27, 12>(9, w, 1);
    }
    // Strided and dilated along both axes, uneven padding, a kernel larger than the input.
    check::<5, 30, 12>(12, win([9, 40], [2, 3], [2, 3], [2, 1], [1, 2]), 1);
    check::<2, 18, 7>(13, win([6, 37], [3, 3], [2, 2], [2, 2], [2, 0]), 3);
    check::<1, 9, 3>(3, win([1, 4], [1, 9], [1, 1], [1, 1], [0, 4]), 2);
    // Dilated along the height past the data, as a pitch model's harmonics.
    check::<4, 12, 12>(12, win([20, 33], [3, 1], [1, 1], [9, 1], [9, 0]), 1);
    // 1-D, as a height of 1.
    check::<4, 20, 12>(24, win([1, 100], [1, 5], [1, 1], [1, 1], [0, 2]), 1);
    check::<8, 24, 5>(5, win([1, 61], [1, 3], [1, 2], [1, 3], [0, 0]), 2);
}

#[test]
fn narrow_layers_take_blocks_of_rows() {
    // Rows of one to seven vectors over enough rows for blocks of 8 (AVX-512) and 4 (AVX2)
    // rows, the last block short; padded along the height, strided and dilated.
    for width in [5, 16, 20, 33, 64, 100] {
        check::<1, 9, 1>(1, win([21, width], [3, 3], [1, 1], [1, 1], [1, 1]), 2);
        check::<2, 10, 3>(3, win([19, width], [1, 5], [1, 1], [1, 1], [0, 2]), 1);
        check::<3, 27, 5>(5, win([17, width], [3, 3], [2, 1], [1, 2], [1, 2]), 1);
        check::<2, 6, 9>(9, win([13, width], [3, 1], [1, 1], [3, 1], [3, 0]), 1);
    }
}

#[test]
fn groups_read_their_own_channels() {
    // Depthwise (one channel and one output a group), a channel multiplier of 2, groups of
    // 2 channels and 3 outputs; 1-D and 2-D, several entries.
    for width in [7, 32, 45] {
        let w = win([12, width], [3, 3], [1, 1], [1, 1], [1, 1]);
        grouped::<1, 9, 1>((5, 1), w, 2);
        grouped::<1, 9, 2>((3, 2), w, 1);
        grouped::<2, 18, 3>((4, 3), w, 2);
        grouped::<2, 18, 11>((2, 11), w, 1);
        grouped::<1, 7, 1>((6, 1), win([1, width * 4], [1, 7], [1, 1], [1, 1], [0, 3]), 2);
    }
    grouped::<1, 9, 1>((8, 1), win([10, 40], [3, 3], [2, 2], [1, 1], [1, 1]), 1);
}
