//! The int8 form of a packed matrix: each value `q · s`, `q` an integer in `−127..=127` and
//! `s` the scale of its column (an input of the matrix: a feature of `W`, a state unit of
//! `R`), `s = max |column| / 127`. A row of the packed form is one column of one tile, so it
//! carries its column's scale in front of its lanes; a kernel multiplies the row's input by
//! the scale once and its lanes (integers, exact in f32) by that product: `Σ q · (s · x)`, a
//! quarter of the bytes of f32 weights and no more arithmetic per weight than they take,
//! each weight `q · s` within `s / 2` of the matrix's.
//!
//! One scale a column rather than one a row of the matrix: the column's scale is the row's
//! in every tile, so the kernels need nothing but the row and scale an input, not each
//! weight, and the values the code computes with are fixed by the matrix alone, whatever the
//! tiles (a test can compute them again).
use crate::{panels_each, tiles};

/// Bytes of a row's scale, in front of its lanes: an f32, little-endian.
pub const SCALE_BYTES: usize = 4;

/// The largest magnitude of a quantised value.
pub const Q_MAX: i8 = 127;

/// Values (`i8`) in one row of `width` lanes: the scale's bytes, then one a lane.
pub const fn row_len(width: usize) -> usize {
    width + SCALE_BYTES
}

/// Length of the int8 form of a packed matrix ([`panels_i8`]), in `i8` values.
pub const fn panel_len_i8(hidden: usize, cols: usize, gates: usize, tile: usize) -> usize {
    tiles(hidden, tile) * cols * row_len(gates * tile)
}

/// The index of the first value of `m` that int8 cannot hold: one that is not finite.
pub fn i8_unfit(m: &[f32]) -> Option<usize> {
    m.iter().position(|v| !v.is_finite())
}

/// The scale of column `k` of `m` (`cols` columns, every value finite): its largest
/// magnitude / 127 (zero for a column of zeros).
pub fn column_scale(m: &[f32], cols: usize, k: usize) -> f32 {
    let max = m.iter().skip(k).step_by(cols.max(1)).fold(0.0f32, |a, &v| a.max(v.abs()));
    max / f32::from(Q_MAX)
}

/// `v` quantised at scale `s`: `v / s` rounded to the nearest integer (ties to even) and
/// held to `±127`; zero at scale zero.
pub fn quantise(v: f32, s: f32) -> i8 {
    if s == 0.0 || !s.is_finite() {
        return 0;
    }
    let y = (v / s).clamp(-f32::from(Q_MAX), f32::from(Q_MAX));
    // Adding and taking away 1.5 · 2^23 rounds a magnitude under 2^22 to an integer, ties to
    // even (f32's own rounding; `core` has no `round_ties_even` for f32).
    const SHIFT: f32 = 12_582_912.0;
    let r = (y + SHIFT) - SHIFT;
    // `r` is an integer within ±127.
    r as i8
}

/// The scale of a packed row, from its first [`SCALE_BYTES`] values.
#[inline(always)]
pub fn row_scale(row: &[i8]) -> f32 {
    match row.first_chunk::<SCALE_BYTES>() {
        Some(b) => f32::from_le_bytes(b.map(|x| x as u8)),
        None => 0.0,
    }
}

/// [`crate::panels`] in the int8 form: each row of `width = sel.len() * tile` lanes is its
/// column's scale ([`column_scale`], over every row of `m`, whatever `sel` takes) as
/// [`SCALE_BYTES`] bytes, then its lanes quantised ([`quantise`]), zero past `hidden`.
/// Every value of `m` must be finite: check with [`i8_unfit`] first (a value that is not
/// makes its column zero).
pub fn panels_i8(dst: &mut [i8], m: &[f32], hidden: usize, cols: usize, sel: &[usize], tile: usize) {
    let width = sel.len() * tile;
    let row = row_len(width);
    // Finite values only: a column holding another has scale zero.
    let scale = |k: usize| {
        let s = column_scale(m, cols, k);
        if s.is_finite() { s } else { 0.0 }
    };
    let mut last = (usize::MAX, 0.0f32);
    panels_each(m, hidden, cols, sel, tile, |d, v| {
        let (r, lane) = (d / width, d % width);
        let k = r % cols;
        if last.0 != k {
            last = (k, scale(k));
        }
        let s = last.1;
        let at = r * row;
        if lane == 0 {
            for (b, x) in dst[at..at + SCALE_BYTES].iter_mut().zip(s.to_le_bytes()) {
                *b = x as i8;
            }
        }
        dst[at + SCALE_BYTES + lane] = quantise(v, s);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantise_rounds_to_nearest_even_and_holds_to_127() {
        assert_eq!(quantise(2.5, 1.0), 2);
        assert_eq!(quantise(3.5, 1.0), 4);
        assert_eq!(quantise(-2.5, 1.0), -2);
        assert_eq!(quantise(-0.4, 1.0), 0);
        assert_eq!(quantise(300.0, 1.0), 127);
        assert_eq!(quantise(-300.0, 1.0), -127);
        assert_eq!(quantise(5.0, 0.0), 0);
    }

    #[test]
    fn each_row_carries_its_column_s_scale_and_values_within_half_of_it() {
        // 2 gates x 3 rows x 2 columns; column 1 is ten times column 0.
        let m: [f32; 12] = core::array::from_fn(|i| {
            let (r, k) = (i / 2, i % 2);
            (r as f32 - 2.3) * if k == 1 { 10.0 } else { 1.0 }
        });
        let (tile, sel) = (2, [1usize, 0]);
        let len = panel_len_i8(3, 2, 2, tile);
        assert_eq!(len, 2 * 2 * (4 + 4));
        let mut dst = [0i8; 32];
        panels_i8(&mut dst, &m, 3, 2, &sel, tile);
        let mut f = [0.0f32; 16];
        crate::panels(&mut f, &m, 3, 2, &sel, tile);
        for (r, row) in dst.chunks_exact(row_len(4)).enumerate() {
            let k = r % 2;
            let s = row_scale(row);
            assert_eq!(s, column_scale(&m, 2, k));
            for (l, &q) in row[SCALE_BYTES..].iter().enumerate() {
                let want = f[r * 4 + l];
                assert!((f32::from(q) * s - want).abs() <= s / 2.0 * 1.000_001, "row {r} lane {l}");
            }
        }
        // The largest magnitude of a column is ±127 exactly.
        let s0 = column_scale(&m, 2, 0);
        assert_eq!(s0, 2.7 / 127.0);
        assert_eq!(quantise(2.7 * 10.0, column_scale(&m, 2, 1)), 127);
    }

    #[test]
    fn values_that_are_not_finite_are_found() {
        assert_eq!(i8_unfit(&[1.0, 2.0]), None);
        assert_eq!(i8_unfit(&[1.0, f32::INFINITY, f32::NAN]), Some(1));
        assert_eq!(i8_unfit(&[f32::NAN]), Some(0));
    }
}
