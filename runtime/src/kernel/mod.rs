//! The inner loop of the tiled kernels, generic over constant sizes so that each use in
//! generated code is monomorphised with its cell's sizes and the loops have fixed trip
//! counts the optimiser can unroll and vectorise.
//!
//! A panel row is one of the [`Row`] types: f32 lanes, IEEE binary16 bits (`[u16; W]`), or
//! bfloat16 pairs (`[u32; ceil(W / 2)]`, see [`crate::pack::panels_bf16`]). Each kernel
//! turns a row into f32 lanes in registers and then computes exactly what it computes on
//! f32 rows, so the 16-bit forms change the bytes read, not the arithmetic.
use crate::simd::Isa;

#[cfg(target_arch = "x86_64")]
mod blocked;
mod dense;
#[cfg(target_arch = "x86_64")]
mod wide;

pub use dense::{dense_rows, dense_rows_wide};

/// A row of `W` packed weights, in one of the stored forms: how a kernel reads it as f32.
pub trait Row<const W: usize>: Copy {
    /// `acc[l] += lane l · v` for every lane, with the level's [`Isa::mul_add8`].
    fn axpy<I: Isa>(&self, isa: I, acc: &mut [f32; W], v: f32);
    /// Lanes `lb..lb + V` (within the row).
    fn block<I: Isa, const V: usize>(&self, isa: I, lb: usize) -> [f32; V];
    /// Lane `l`.
    fn lane(&self, l: usize) -> f32;
    /// How the lanes are stored, for kernels that load them into registers themselves.
    #[inline(always)]
    fn lanes(&self) -> Lanes<'_, W> {
        Lanes::Other
    }
}

/// The storage of a [`Row`]'s lanes, as [`Row::lanes`] tells it.
#[derive(Clone, Copy, Debug)]
pub enum Lanes<'a, const W: usize> {
    /// f32 values.
    F32(&'a [f32; W]),
    /// IEEE binary16 values, as bits.
    F16(&'a [u16; W]),
    /// Another form: read lane by lane ([`Row::lane`]).
    Other,
}

/// `acc[l] += w(l) · v` over the lanes of `acc`, 8 at a time through `isa`, where `w8(c)`
/// gives lanes `8c..8c + 8` and `w(l)` lane `l` of the rest.
#[inline(always)]
fn axpy_by<I: Isa>(isa: I, acc: &mut [f32], v: f32, w8: impl Fn(usize) -> [f32; 8], w: impl Fn(usize) -> f32) {
    let (chunks, rest) = acc.as_chunks_mut::<8>();
    let done = chunks.len() * 8;
    for (c, a) in chunks.iter_mut().enumerate() {
        *a = isa.mul_add8(*a, w8(c), v);
    }
    for (j, a) in rest.iter_mut().enumerate() {
        *a = isa.mul_add(*a, w(done + j), v);
    }
}

impl<const W: usize> Row<W> for [f32; W] {
    #[inline(always)]
    fn axpy<I: Isa>(&self, isa: I, acc: &mut [f32; W], v: f32) {
        let (chunks, _) = self.as_chunks::<8>();
        axpy_by(isa, acc, v, |c| chunks[c], |l| self[l]);
    }
    #[inline(always)]
    fn block<I: Isa, const V: usize>(&self, _: I, lb: usize) -> [f32; V] {
        core::array::from_fn(|j| self[lb + j])
    }
    #[inline(always)]
    fn lane(&self, l: usize) -> f32 {
        self[l]
    }
    #[inline(always)]
    fn lanes(&self) -> Lanes<'_, W> {
        Lanes::F32(self)
    }
}

/// IEEE binary16 weights, as bits.
impl<const W: usize> Row<W> for [u16; W] {
    #[inline(always)]
    fn axpy<I: Isa>(&self, isa: I, acc: &mut [f32; W], v: f32) {
        let (chunks, _) = self.as_chunks::<8>();
        axpy_by(isa, acc, v, |c| isa.f16x8(&chunks[c]), |l| Row::<W>::lane(self, l));
    }
    #[inline(always)]
    fn block<I: Isa, const V: usize>(&self, isa: I, lb: usize) -> [f32; V] {
        let mut out = [0.0f32; V];
        if V == 8
            && let (Some(c), Some(o)) = (self[lb..].first_chunk::<8>(), out.first_chunk_mut::<8>())
        {
            *o = isa.f16x8(c);
            return out;
        }
        for (j, o) in out.iter_mut().enumerate() {
            *o = Row::<W>::lane(self, lb + j);
        }
        out
    }
    #[inline(always)]
    fn lane(&self, l: usize) -> f32 {
        half::f16::from_bits(self[l]).to_f32()
    }
    #[inline(always)]
    fn lanes(&self) -> Lanes<'_, W> {
        Lanes::F16(self)
    }
}

/// bfloat16 pairs: word `j` holds lane `j` in its low half and lane `j + HW` in its high
/// half, so each half becomes an f32 with one shift or one mask.
impl<const W: usize, const HW: usize> Row<W> for [u32; HW] {
    #[inline(always)]
    fn axpy<I: Isa>(&self, isa: I, acc: &mut [f32; W], v: f32) {
        const { assert!(HW == W.div_ceil(2), "a row of W bfloat16 lanes is ceil(W / 2) words") };
        let (lo, hi) = acc.split_at_mut(HW);
        let (words, _) = self.as_chunks::<8>();
        let low = |w: u32| f32::from_bits(w << 16);
        let high = |w: u32| f32::from_bits(w & 0xffff_0000);
        axpy_by(isa, lo, v, |c| words[c].map(low), |j| low(self[j]));
        axpy_by(isa, hi, v, |c| words[c].map(high), |j| high(self[j]));
    }
    #[inline(always)]
    fn block<I: Isa, const V: usize>(&self, _: I, lb: usize) -> [f32; V] {
        core::array::from_fn(|j| Row::<W>::lane(self, lb + j))
    }
    #[inline(always)]
    fn lane(&self, l: usize) -> f32 {
        if l < HW { f32::from_bits(self[l] << 16) } else { f32::from_bits(self[l - HW] & 0xffff_0000) }
    }
}

/// `acc[l] += Σ_k panel[k][l] · v[k]`: one tile of a matrix–vector product over a packed
/// panel (see [`crate::pack`]). Written as a sum of scaled rows, so the `W` lanes are
/// independent accumulators rather than one serial chain of adds.
#[inline(always)]
pub fn panel_acc<const K: usize, const W: usize, P: Row<W>, I: Isa>(
    acc: &mut [f32; W],
    panel: &[P; K],
    v: &[f32; K],
    isa: I,
) {
    let mut a = *acc;
    for (row, &vk) in panel.iter().zip(v) {
        row.axpy(isa, &mut a, vk);
    }
    *acc = a;
}

/// The shape of the register blocks of [`panel_acc_rows_in`]: `R` rows × `V` lanes of
/// accumulators. Passed as a value so the sizes are inferred from it.
#[derive(Clone, Copy, Debug)]
pub struct Block<const R: usize, const V: usize>;

/// [`panel_acc`] for `S` rows at once: `acc[s][l] += Σ_k panel[k][l] · v[s][k]`, in register
/// blocks of several rows, so each weight it loads serves all of them: what makes the
/// input projection of a block of sequence steps cheaper than the steps one by one. The
/// blocks are 4 rows × 8 lanes (two SSE or one AVX register a row) at the portable level,
/// and every lane of the panel for 2–8 rows, in explicit registers, at the AVX2 and
/// AVX-512 levels. Each lane sums in the order of [`panel_acc`], so the results are the
/// same as row by row.
#[inline(always)]
pub fn panel_acc_rows<const K: usize, const W: usize, const S: usize, P: Row<W>, I: Isa>(
    acc: &mut [[f32; W]; S],
    panel: &[P; K],
    v: &[[f32; K]; S],
    isa: I,
) {
    panel_acc_rows_in(acc, panel, v, Block::<4, 8>, isa);
}

/// [`panel_acc_rows`] in register blocks of `R` rows × `V` lanes at the portable level: the
/// shape that keeps its vector registers busy (see `simd::Level::batch_rows`). At the AVX2
/// and AVX-512 levels, any `R` above 1 takes their blocks (see [`panel_acc_rows`]) for a
/// panel of up to 64 lanes.
#[inline(always)]
pub fn panel_acc_rows_in<
    const K: usize,
    const W: usize,
    const S: usize,
    const R: usize,
    const V: usize,
    P: Row<W>,
    I: Isa,
>(
    acc: &mut [[f32; W]; S],
    panel: &[P; K],
    v: &[[f32; K]; S],
    _: Block<R, V>,
    isa: I,
) {
    // One row has no weight to share: the whole panel width is its accumulators, which
    // keeps more independent sums in flight than one block of V lanes at a time (a GRU
    // step, H=128, I=16, measured 4.28 µs in blocks of 8 lanes, 2.4 µs whole).
    if R == 1 {
        for (a, x) in acc.iter_mut().zip(v) {
            panel_acc(a, panel, x, isa);
        }
        return;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(z) = isa.avx512()
            && blocked::rows_avx512(z, acc, panel, v)
        {
            return;
        }
        if let Some(y) = isa.avx2()
            && blocked::rows_avx2(y, acc, panel, v)
        {
            return;
        }
    }
    let (acc_blocks, acc_rest) = acc.as_chunks_mut::<R>();
    let (v_blocks, v_rest) = v.as_chunks::<R>();
    for (a, x) in acc_blocks.iter_mut().zip(v_blocks) {
        block_rows::<K, W, R, V, P, I>(a, panel, x, isa);
    }
    for (a, x) in acc_rest.iter_mut().zip(v_rest) {
        panel_acc(a, panel, x, isa);
    }
}

/// How a product's multiply–adds are arranged, as the compiler decides it once for both
/// languages it writes (cellc's `emit::plan::Schedule`): each lane's sum split into `Q`
/// partial sums over alternate inputs (1, 2 or 4; see [`panel_acc_split`]), and, for one
/// row, `G` tiles side by side (1, 2 or 4). Passed as a value so the numbers are inferred
/// from it.
#[derive(Clone, Copy, Debug)]
pub struct Schedule<const Q: usize, const G: usize>;

/// [`panel_acc_rows_in`] over every tile of a product: `acc[t]` takes the product of tile
/// `t` of `panels`, as `Schedule<Q, G>` arranges it.
///
/// One row at a time has no rows to share a weight between, so its tiles run `G` at a
/// time, their multiply–adds interleaved: each multiply–add waits for the one before it
/// in its lane, and a lone narrow panel (16 lanes, two 8-lane sums) leaves the FMA units
/// idle most of the time (an RNN step, H=128, I=16: 1.26 µs one tile at a time). Several
/// rows go through register blocks of `R` rows × `V` lanes instead. Every lane still sums
/// in the order of [`panel_acc`].
///
/// With `Q` above 1 (a product too narrow to fill the registers even so: the cells of a
/// few dozen units), each lane's sum is split into `Q` partial sums, for every row alike,
/// so one row and a batch of rows still compute the same bits (a GRU step, H=16, I=1: 94
/// ns with one sum per lane).
///
/// A part of a product (a step split across threads, see [`crate::team`]) takes the whole
/// product's schedule, so that every lane's sum is the same, to the bit.
///
/// Tried and not kept: handing each tile to the step's activations as soon as its sums
/// were complete, so that they would overlap the reading of the next tiles' weights (AMD
/// Zen 4, both forms in one program: GRU H=128 2.39 → 2.49 µs, B 77 → 82 ns, RNN and
/// LSTM within 2%).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn tiles_acc_rows<
    const K: usize,
    const W: usize,
    const S: usize,
    const T: usize,
    const R: usize,
    const V: usize,
    const Q: usize,
    const G: usize,
    P: Row<W>,
    I: Isa,
>(
    acc: &mut [[[f32; W]; S]; T],
    panels: &[[P; K]],
    v: &[[f32; K]; S],
    block: Block<R, V>,
    _: Schedule<Q, G>,
    isa: I,
) {
    match Q {
        4 => return tiles_split::<K, W, S, T, 4, P, I>(acc, panels, v, isa),
        2 => return tiles_split::<K, W, S, T, 2, P, I>(acc, panels, v, isa),
        _ => {}
    }
    if R > 1 || S != 1 {
        for (a, panel) in acc.iter_mut().zip(panels) {
            panel_acc_rows_in(a, panel, v, block, isa);
        }
        return;
    }
    match G {
        4 => tiles_interleaved::<K, W, S, T, 4, P, I>(acc, panels, v, isa),
        2 => tiles_interleaved::<K, W, S, T, 2, P, I>(acc, panels, v, isa),
        _ => tiles_interleaved::<K, W, S, T, 1, P, I>(acc, panels, v, isa),
    }
}

/// [`tiles_acc_rows`] with each lane's sum split in `Q` ([`panel_acc_split`]), row by row.
#[inline(always)]
fn tiles_split<const K: usize, const W: usize, const S: usize, const T: usize, const Q: usize, P: Row<W>, I: Isa>(
    acc: &mut [[[f32; W]; S]; T],
    panels: &[[P; K]],
    v: &[[f32; K]; S],
    isa: I,
) {
    // Rows side by side (as many as keep about 128 accumulator values), each summed exactly
    // as `panel_acc_split` sums it alone: a block of rows gives that many more independent
    // chains without changing a bit of any row's result.
    for (a, panel) in acc.iter_mut().zip(panels) {
        if S > 1 && Q * W <= 32 {
            split_rows::<K, W, S, Q, 4, P, I>(a, panel, v, isa);
        } else if S > 1 && Q * W <= 64 {
            split_rows::<K, W, S, Q, 2, P, I>(a, panel, v, isa);
        } else {
            for (a, x) in a.iter_mut().zip(v) {
                panel_acc_split::<K, W, Q, P, I>(a, panel, x, isa);
            }
        }
    }
}

/// [`panel_acc_split`] for each of `S` rows, `B` rows side by side.
#[inline(always)]
fn split_rows<const K: usize, const W: usize, const S: usize, const Q: usize, const B: usize, P: Row<W>, I: Isa>(
    acc: &mut [[f32; W]; S],
    panel: &[P; K],
    v: &[[f32; K]; S],
    isa: I,
) {
    let (blocks, rest) = acc.as_chunks_mut::<B>();
    let (vblocks, vrest) = v.as_chunks::<B>();
    for (a, x) in blocks.iter_mut().zip(vblocks) {
        panel_acc_split_rows::<K, W, Q, B, P, I>(a, panel, x, isa);
    }
    for (a, x) in rest.iter_mut().zip(vrest) {
        panel_acc_split::<K, W, Q, P, I>(a, panel, x, isa);
    }
}

/// [`panel_acc_split`] for `B` rows at once, each row's partial sums formed and added in
/// the same order as for it alone.
#[inline(always)]
pub fn panel_acc_split_rows<const K: usize, const W: usize, const Q: usize, const B: usize, P: Row<W>, I: Isa>(
    acc: &mut [[f32; W]; B],
    panel: &[P; K],
    v: &[[f32; K]; B],
    isa: I,
) {
    const { assert!(Q == 1 || Q == 2 || Q == 4, "1, 2 or 4 partial sums") };
    let mut parts = [[[0.0f32; W]; Q]; B];
    for (p, a) in parts.iter_mut().zip(acc.iter()) {
        p[0] = *a;
    }
    let (rows, rest_rows) = panel.as_chunks::<Q>();
    for (c, rows) in rows.iter().enumerate() {
        for (p, x) in parts.iter_mut().zip(v) {
            for (q, (part, row)) in p.iter_mut().zip(rows).enumerate() {
                row.axpy(isa, part, x[c * Q + q]);
            }
        }
    }
    let done = rows.len() * Q;
    for (p, x) in parts.iter_mut().zip(v) {
        for (q, (part, row)) in p.iter_mut().zip(rest_rows).enumerate() {
            row.axpy(isa, part, x[done + q]);
        }
    }
    for (a, p) in acc.iter_mut().zip(parts.iter_mut()) {
        combine::<W, Q>(p);
        *a = p[0];
    }
}

/// Adds `Q` partial sums pairwise into the first (`(s0 + s2) + (s1 + s3)`).
#[inline(always)]
fn combine<const W: usize, const Q: usize>(parts: &mut [[f32; W]; Q]) {
    let mut n = Q;
    while n > 1 {
        n /= 2;
        let (low, high) = parts.split_at_mut(n);
        for (a, b) in low.iter_mut().zip(high.iter()) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += *y;
            }
        }
    }
}

/// [`panel_acc`] with each lane's sum split in `Q` partial sums (1, 2 or 4) that run side
/// by side: partial `q` takes the inputs `k ≡ q (mod Q)`, the first starting from `acc`;
/// then they are added pairwise (`(s0 + s2) + (s1 + s3)`). A chain of `K` dependent
/// multiply–adds becomes `Q` chains of `K / Q`.
#[inline(always)]
pub fn panel_acc_split<const K: usize, const W: usize, const Q: usize, P: Row<W>, I: Isa>(
    acc: &mut [f32; W],
    panel: &[P; K],
    v: &[f32; K],
    isa: I,
) {
    const { assert!(Q == 1 || Q == 2 || Q == 4, "1, 2 or 4 partial sums") };
    let mut parts = [[0.0f32; W]; Q];
    parts[0] = *acc;
    let (rows, rest_rows) = panel.as_chunks::<Q>();
    let (vs, rest_v) = v.as_chunks::<Q>();
    for (rows, vs) in rows.iter().zip(vs) {
        for ((part, row), &x) in parts.iter_mut().zip(rows).zip(vs) {
            row.axpy(isa, part, x);
        }
    }
    for ((part, row), &x) in parts.iter_mut().zip(rest_rows).zip(rest_v) {
        row.axpy(isa, part, x);
    }
    combine::<W, Q>(&mut parts);
    *acc = parts[0];
}

/// [`tiles_acc_rows`] for one row, `G` tiles at a time.
#[inline(always)]
fn tiles_interleaved<
    const K: usize,
    const W: usize,
    const S: usize,
    const T: usize,
    const G: usize,
    P: Row<W>,
    I: Isa,
>(
    acc: &mut [[[f32; W]; S]; T],
    panels: &[[P; K]],
    v: &[[f32; K]; S],
    isa: I,
) {
    let Some(v) = v.first() else { return };
    let (groups, rest) = acc.as_chunks_mut::<G>();
    let (panel_groups, panel_rest) = panels.as_chunks::<G>();
    for (ag, pg) in groups.iter_mut().zip(panel_groups) {
        tiles_side_by_side(ag, pg, v, isa);
    }
    // The tiles left after the last whole group, side by side too (an RNN step, H=112, 7
    // tiles of 16 lanes: 0.86× the time with its last 3 tiles one at a time, in the C).
    if let (Ok(ag), Ok(pg)) = (<&mut [_; 3]>::try_from(&mut *rest), <&[_; 3]>::try_from(panel_rest)) {
        return tiles_side_by_side(ag, pg, v, isa);
    }
    if let (Ok(ag), Ok(pg)) = (<&mut [_; 2]>::try_from(&mut *rest), <&[_; 2]>::try_from(panel_rest)) {
        return tiles_side_by_side(ag, pg, v, isa);
    }
    for (a, panel) in rest.iter_mut().zip(panel_rest) {
        panel_acc(&mut a[0], panel, v, isa);
    }
}

/// The products of `G` tiles for one row, their multiply–adds interleaved: each lane sums
/// in the order of [`panel_acc`].
#[inline(always)]
fn tiles_side_by_side<const K: usize, const W: usize, const S: usize, const G: usize, P: Row<W>, I: Isa>(
    ag: &mut [[[f32; W]; S]; G],
    pg: &[[P; K]; G],
    v: &[f32; K],
    isa: I,
) {
    let mut a: [[f32; W]; G] = core::array::from_fn(|g| ag[g][0]);
    for (k, &vk) in v.iter().enumerate() {
        for (a, panel) in a.iter_mut().zip(pg) {
            panel[k].axpy(isa, a, vk);
        }
    }
    for (ag, a) in ag.iter_mut().zip(&a) {
        ag[0] = *a;
    }
}

/// [`panel_acc_rows_in`] for one block of `R` rows.
#[inline(always)]
fn block_rows<const K: usize, const W: usize, const R: usize, const V: usize, P: Row<W>, I: Isa>(
    acc: &mut [[f32; W]; R],
    panel: &[P; K],
    v: &[[f32; K]; R],
    isa: I,
) {
    let full = W / V * V;
    let mut lb = 0;
    while lb < full {
        let mut a = [[0.0f32; V]; R];
        for (a, acc) in a.iter_mut().zip(acc.iter()) {
            a.copy_from_slice(&acc[lb..lb + V]);
        }
        for (k, row) in panel.iter().enumerate() {
            let w = row.block::<I, V>(isa, lb);
            for (a, x) in a.iter_mut().zip(v) {
                axpy_by(isa, a, x[k], |c| core::array::from_fn(|j| w[8 * c + j]), |l| w[l]);
            }
        }
        for (a, acc) in a.iter().zip(acc.iter_mut()) {
            acc[lb..lb + V].copy_from_slice(a);
        }
        lb += V;
    }
    for l in full..W {
        for (acc, x) in acc.iter_mut().zip(v) {
            let mut t = acc[l];
            for (row, &xk) in panel.iter().zip(x) {
                t = isa.mul_add(t, row.lane(l), xk);
            }
            acc[l] = t;
        }
    }
}

/// `acc[s][l] += col[l] · v[s][k]` for every row `s`: column `k` of a product over `S` rows,
/// the statement the unrolled kernels repeat once per input element.
#[inline(always)]
pub fn axpy_rows<const K: usize, const W: usize, const S: usize, P: Row<W>, I: Isa>(
    acc: &mut [[f32; W]; S],
    k: usize,
    v: &[[f32; K]; S],
    col: &P,
    isa: I,
) {
    for (acc, v) in acc.iter_mut().zip(v) {
        col.axpy(isa, acc, v[k]);
    }
}

/// `acc[l] += col[l] · v`: one column of a matrix–vector product, the statement the
/// unrolled kernels repeat once per input element.
#[inline(always)]
pub fn axpy<const W: usize, P: Row<W>, I: Isa>(acc: &mut [f32; W], v: f32, col: &P, isa: I) {
    col.axpy(isa, acc, v);
}

#[cfg(test)]
mod tests {
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

    /// A panel of `K` rows of `W` lanes in its 16-bit forms, with the f32 values each holds.
    struct Forms<const K: usize, const W: usize, const HW: usize> {
        f16: [[u16; W]; K],
        f16_values: [[f32; W]; K],
        bf16: [[u32; HW]; K],
        bf16_values: [[f32; W]; K],
    }

    fn forms<const K: usize, const W: usize, const HW: usize>() -> Forms<K, W, HW> {
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
        crate::pack::panels_bf16(bf16.as_flattened_mut(), m.as_flattened(), W, K, &[0], W);
        let f16 = f32.map(|r| r.map(|x| half::f16::from_f32(x).to_bits()));
        Forms {
            f16,
            f16_values: f16.map(|r| r.map(|b| half::f16::from_bits(b).to_f32())),
            bf16,
            bf16_values: f32.map(|r| r.map(|x| half::bf16::from_f32(x).to_f32())),
        }
    }

    /// Each 16-bit form computes, at every level, exactly what the f32 kernel computes on
    /// the values it holds: one row, batched rows in register blocks, and columns.
    fn sixteen_bit_forms_match_f32<const K: usize, const W: usize, const HW: usize>() {
        let p = forms::<K, W, HW>();
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
    fn sixteen_bit_rows_of_a_whole_tile() {
        sixteen_bit_forms_match_f32::<5, 48, 24>();
    }

    #[test]
    fn sixteen_bit_rows_of_four_vectors() {
        sixteen_bit_forms_match_f32::<4, 64, 32>();
    }

    #[test]
    fn sixteen_bit_rows_ending_inside_a_vector() {
        sixteen_bit_forms_match_f32::<3, 20, 10>();
    }

    #[test]
    fn sixteen_bit_rows_of_odd_width() {
        sixteen_bit_forms_match_f32::<3, 13, 7>();
    }

    #[test]
    fn sixteen_bit_rows_narrower_than_a_block() {
        sixteen_bit_forms_match_f32::<2, 3, 2>();
    }
}
