//! A matrix product of two operands known only at run time (attention's scores, a mixing
//! of two computed tensors): no packing, `b` read in place a row at a time, so each block
//! of outputs holds `MR` rows × `PV` vectors of columns in registers, a row of `b` loaded
//! once for the `MR` rows and each entry of `a` broadcast to the `PV` vectors.
//!
//! Every output sums from zero over `k` in order, one multiply–add each (fused where the
//! level has FMA).
use super::vector::{Eight, Vector};
use crate::simd::Isa;

/// Where the operands of one product sit in their slices: `dst[i·dst_row + j] =
/// Σ_q a[i·a[0] + q·a[1]] · b[q·b_row + j]` for `i < m`, `j < n`, `q < k` (`b`'s columns
/// one apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Product {
    /// Rows of the product.
    pub m: usize,
    /// Contraction length.
    pub k: usize,
    /// Columns of the product.
    pub n: usize,
    /// Strides of `a` along its rows and along `k`.
    pub a: [usize; 2],
    /// Stride of `b` along `k`.
    pub b_row: usize,
    /// Stride of `dst` along its rows.
    pub dst_row: usize,
}

impl Product {
    /// Values a slice must hold to reach index `Σ (count − 1)·stride` (none when an axis
    /// is empty); `None` on overflow.
    fn span(axes: &[(usize, usize)]) -> Option<usize> {
        if axes.iter().any(|&(count, _)| count == 0) {
            return Some(0);
        }
        axes.iter().try_fold(1usize, |s, &(count, stride)| s.checked_add((count - 1).checked_mul(stride)?))
    }

    /// Whether `a`, `b` and `dst` hold every value the product reads and writes.
    fn fits(&self, a: usize, b: usize, dst: usize) -> bool {
        let need = |axes: &[(usize, usize)], len: usize| Self::span(axes).is_some_and(|s| s <= len);
        need(&[(self.m, self.a[0]), (self.k, self.a[1])], a)
            && need(&[(self.k, self.b_row), (self.n, 1)], b)
            && need(&[(self.m, self.dst_row), (self.n, 1)], dst)
    }
}

/// The product `p` of `a` and `b` into `dst` (see [`Product`]); writes nothing when a
/// slice is too short for it or it is empty.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn product<I: Isa>(p: &Product, a: &[f32], b: &[f32], dst: &mut [f32], isa: I) {
    if p.m == 0 || p.n == 0 || !p.fits(a.len(), b.len(), dst.len()) {
        return;
    }
    if p.k == 0 {
        for i in 0..p.m {
            if let Some(row) = dst.get_mut(i * p.dst_row..).and_then(|r| r.get_mut(..p.n)) {
                row.fill(0.0);
            }
        }
        return;
    }
    let io = Io { p, a, b };
    #[cfg(target_arch = "x86_64")]
    {
        use super::blocked::{Ymm, Zmm};
        use super::vector::reg;
        // Sums: 12 × 2 vectors of AVX-512's 32 registers, 6 × 2 of AVX2's 16, besides a
        // row of `b` and a broadcast entry of `a`.
        if let Some(z) = isa.avx512() {
            return columns::<reg::Z, 12, 2>(reg::Z(Zmm(z)), &io, dst);
        }
        if let Some(v) = isa.avx2() {
            return columns::<reg::Y, 6, 2>(reg::Y(Ymm(v)), &io, dst);
        }
    }
    columns::<Eight<I>, 4, 1>(Eight(isa), &io, dst);
}

/// What every block reads.
struct Io<'a> {
    p: &'a Product,
    a: &'a [f32],
    b: &'a [f32],
}

/// Columns in strips of `PV` vectors while whole ones fit, then of one vector (the last
/// one partial).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn columns<B: Vector, const MR: usize, const PV: usize>(v: B, io: &Io<'_>, dst: &mut [f32]) {
    let n = io.p.n;
    let mut j = 0;
    while j + PV * B::L <= n {
        rows::<B, MR, PV>(v, io, dst, j);
        j += PV * B::L;
    }
    while j < n {
        rows::<B, MR, 1>(v, io, dst, j);
        j += B::L;
    }
}

/// The rows of the strip of columns from `j`: blocks of `MR` rows, then of 4, then single.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn rows<B: Vector, const MR: usize, const PV: usize>(v: B, io: &Io<'_>, dst: &mut [f32], j: usize) {
    let m = io.p.m;
    let mut i = 0;
    while i + MR <= m {
        block::<B, MR, PV>(v, io, dst, (i, j));
        i += MR;
    }
    while i + 4 <= m {
        block::<B, 4, PV>(v, io, dst, (i, j));
        i += 4;
    }
    while i < m {
        block::<B, 1, PV>(v, io, dst, (i, j));
        i += 1;
    }
}

/// Rows `i..i + R` × columns `j..` (up to `PV` vectors, as many as the product has).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn block<B: Vector, const R: usize, const PV: usize>(v: B, io: &Io<'_>, dst: &mut [f32], (i, j): (usize, usize)) {
    let p = io.p;
    let cols = (p.n - j).min(PV * B::L);
    let mut acc: [[B::V; PV]; R] = [[v.fill(0.0); PV]; R];
    let summed = if cols == PV * B::L && p.a[1] == 1 {
        whole::<B, R, PV>(v, io, &mut acc, (i, j))
    } else {
        part::<B, R, PV>(v, io, &mut acc, (i, j, cols))
    };
    if summed.is_none() {
        return;
    }
    for (r, acc) in acc.iter().enumerate() {
        let Some(out) = dst.get_mut((i + r) * p.dst_row + j..).and_then(|o| o.get_mut(..cols)) else { return };
        for (c, &acc) in acc.iter().enumerate() {
            if let Some(out) = out.get_mut(c * B::L..) {
                v.store(out, acc);
            }
        }
    }
}

/// [`block`]'s sums over a whole strip of `PV` vectors with each row of `a` one run of `k`
/// values: every row of `a` taken as a slice of its known length once, so that each entry
/// is broadcast straight from memory. Read through a check, with zero in its place past
/// the slice, each entry was loaded into a vector register of its own before its
/// broadcast, and the block's 24 sums no longer fit the registers beside them (four
/// products of 100 × 64 by 64 × 100 took 107 µs where the C took 51; Intel Xeon, AVX-512).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn whole<B: Vector, const R: usize, const PV: usize>(
    v: B,
    io: &Io<'_>,
    acc: &mut [[B::V; PV]; R],
    (i, j): (usize, usize),
) -> Option<()> {
    let p = io.p;
    let mut rows: [&[f32]; R] = [&[]; R];
    for (r, row) in rows.iter_mut().enumerate() {
        // In range: `fits` checked the last row of `a`.
        *row = io.a.get((i + r) * p.a[0]..)?.get(..p.k)?;
    }
    let b = io.b.get(j..)?;
    for q in 0..p.k {
        let row = b.get(q * p.b_row..)?.get(..PV * B::L)?;
        let x: [B::V; PV] = array!(v.fill(0.0), |c| v.load(&row[c * B::L..]));
        for (acc, a) in acc.iter_mut().zip(&rows) {
            let s = v.splat(a[q]);
            for (acc, &x) in acc.iter_mut().zip(&x) {
                *acc = v.fma(*acc, x, s);
            }
        }
    }
    Some(())
}

/// [`block`]'s sums over `cols` columns from `j` (the last strip, partly past the
/// columns), or with `a`'s entries along `k` apart.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn part<B: Vector, const R: usize, const PV: usize>(
    v: B,
    io: &Io<'_>,
    acc: &mut [[B::V; PV]; R],
    (i, j, cols): (usize, usize, usize),
) -> Option<()> {
    let p = io.p;
    for q in 0..p.k {
        // In range: `fits` checked the last row of `b` and of `a`.
        let row = io.b.get(q * p.b_row + j..)?.get(..cols)?;
        let x: [B::V; PV] = array!(v.fill(0.0), |c| match row.get(c * B::L..) {
            Some(s) if !s.is_empty() => v.load_part(s),
            _ => v.fill(0.0),
        });
        for (r, acc) in acc.iter_mut().enumerate() {
            let s = v.splat(io.a.get((i + r) * p.a[0] + q * p.a[1]).copied().unwrap_or(0.0));
            for (acc, &x) in acc.iter_mut().zip(&x) {
                *acc = v.fma(*acc, x, s);
            }
        }
    }
    Some(())
}

#[cfg(test)]
mod tests;
