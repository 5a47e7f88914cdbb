//! The inner loop of the tiled kernels, generic over constant sizes so that each use in
//! generated code is monomorphised with its cell's sizes and the loops have fixed trip
//! counts the optimiser can unroll and vectorise.
//!
//! A panel row is one of the [`Row`] types: f32 lanes, IEEE binary16 bits (`[u16; W]`), or
//! bfloat16 pairs (`[u32; ceil(W / 2)]`, see [`cellc_pack::panels_bf16`]). Each kernel
//! turns a row into f32 lanes in registers and then computes exactly what it computes on
//! f32 rows, so the 16-bit forms change the bytes read, not the arithmetic.
use crate::simd::Isa;

/// Evaluates `$e` with `$isa` bound to the portable level, then to each level this CPU has
/// (AVX2, AVX-512), `$what` naming it: a kernel's tests check every level they can reach,
/// not only the best one.
#[cfg(test)]
macro_rules! at_every_level {
    (|$isa:ident, $what:ident| $e:expr) => {{
        {
            let ($isa, $what) = (crate::simd::Portable, "portable");
            $e
        }
        #[cfg(target_arch = "x86_64")]
        #[allow(unsafe_code)]
        {
            use crate::simd::{Avx2, Avx512, Level, cpu_level};
            let level = cpu_level();
            if level >= Level::Avx2 {
                // SAFETY: the CPU has every feature `avx2` enables (asked at run time).
                unsafe {
                    let ($isa, $what) = (Avx2::new_unchecked(), "AVX2");
                    crate::simd::avx2(
                        #[cfg_attr(not(cellc_unoptimised), inline(always))]
                        || $e,
                    );
                }
            }
            if level >= Level::Avx512 {
                // SAFETY: as above, for `avx512`.
                unsafe {
                    let ($isa, $what) = (Avx512::new_unchecked(), "AVX-512");
                    crate::simd::avx512(
                        #[cfg_attr(not(cellc_unoptimised), inline(always))]
                        || $e,
                    );
                }
            }
        }
    }};
}

/// An array whose element `$i` is `$e`, filled by a loop in the calling function (`$fill`
/// is only the value it starts from, of the element type). Kernels build their register
/// arrays with it rather than with `core::array::from_fn`: a closure is a function of its
/// own, compiled without the target features of the level `dispatch!` entered (a closure
/// takes those only from a `#[target_feature]` function around it, and a kernel is a
/// generic function inlined into one), so when LLVM does not inline it, each intrinsic in
/// it stays a call — every vector load, in a build without `-C target-cpu` (seen as
/// `_mm256_loadu_ps` and `_mm512_loadu_ps` out of line).
macro_rules! array {
    ($fill:expr, |$i:ident| $e:expr) => {{
        let mut array = [$fill; _];
        for ($i, slot) in array.iter_mut().enumerate() {
            *slot = $e;
        }
        array
    }};
}

#[cfg(target_arch = "x86_64")]
mod blocked;
mod dense;
mod planar;
mod pool;
mod product;
mod row;
mod transpose;
mod vector;
#[cfg(target_arch = "x86_64")]
mod wide;
mod windows;
mod winograd;

pub use dense::{dense_rows, dense_rows_wide};
pub use planar::{Planar, dense_planar_then};
pub use pool::pool_windows;
pub use product::{Product, product};
use row::axpy_by;
pub use row::{Lanes, Row};
pub use transpose::transpose;
pub use windows::{Windows, dense_windows, dense_windows_then};
pub use winograd::dense_winograd_then;

/// `acc[l] += Σ_k panel[k][l] · v[k]`: one tile of a matrix–vector product over a packed
/// panel (see [`cellc_pack`]). Written as a sum of scaled rows, so the `W` lanes are
/// independent accumulators rather than one serial chain of adds.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
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

/// [`panel_acc`] for several rows at once: `acc[s][l] += Σ_k panel[k][l] · v[s][k]` (over
/// the rows both slices have: a block of steps of any length), in register
/// blocks of several rows, so each weight it loads serves all of them: what makes the
/// input projection of a block of sequence steps cheaper than the steps one by one. The
/// blocks are 4 rows × 8 lanes (two SSE or one AVX register a row) at the portable level,
/// and every lane of the panel for 2–8 rows, in explicit registers, at the AVX2 and
/// AVX-512 levels. Each lane sums in the order of [`panel_acc`], so the results are the
/// same as row by row.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn panel_acc_rows<const K: usize, const W: usize, P: Row<W>, I: Isa>(
    acc: &mut [[f32; W]],
    panel: &[P; K],
    v: &[[f32; K]],
    isa: I,
) {
    panel_acc_rows_in(acc, panel, v, Block::<4, 8>, isa);
}

/// [`panel_acc_rows`] in register blocks of `R` rows × `V` lanes at the portable level: the
/// shape that keeps its vector registers busy (see `simd::Level::batch_rows`). At the AVX2
/// and AVX-512 levels, any `R` above 1 takes their blocks (see [`panel_acc_rows`]) for a
/// panel of up to 64 lanes.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn panel_acc_rows_in<const K: usize, const W: usize, const R: usize, const V: usize, P: Row<W>, I: Isa>(
    acc: &mut [[f32; W]],
    panel: &[P; K],
    v: &[[f32; K]],
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
/// A part of a product (a step split across threads, see [`crate::__private::team`]) takes the whole
/// product's schedule, so that every lane's sum is the same, to the bit.
///
/// Tried and not kept: handing each tile to the step's activations as soon as its sums
/// were complete, so that they would overlap the reading of the next tiles' weights (AMD
/// Zen 4, both forms in one program: GRU H=128 2.39 → 2.49 µs, B 77 → 82 ns, RNN and
/// LSTM within 2%).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
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
    schedule: Schedule<Q, G>,
    isa: I,
) {
    tiles_acc_rows_in_order(acc, panels, v, block, schedule, false, isa);
}

/// [`tiles_acc_rows`] over the tiles from the last to the first when `back`: every sum the
/// same, to the bit, only the order in which the tiles' weights are read changes.
///
/// A recurrence alternates the order from step to step (a "snake"), so that a step starts
/// on the weights the step before it read last, which are still in the caches when all of
/// them are not: each step reads the whole recurrent matrix, and read in the same order
/// every time, a matrix larger than a cache level finds none of it there (the cache keeps
/// the most recently read lines, which the step needs last).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(clippy::too_many_arguments)]
pub fn tiles_acc_rows_in_order<
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
    back: bool,
    isa: I,
) {
    match Q {
        4 => return tiles_split::<K, W, S, T, 4, P, I>(acc, panels, v, back, isa),
        2 => return tiles_split::<K, W, S, T, 2, P, I>(acc, panels, v, back, isa),
        _ => {}
    }
    if R > 1 || S != 1 {
        let n = acc.len().min(panels.len());
        for i in 0..n {
            if let (Some(a), Some(panel)) = (acc.get_mut(nth(i, n, back)), panels.get(nth(i, n, back))) {
                panel_acc_rows_in(a, panel, v, block, isa);
            }
        }
        return;
    }
    match G {
        4 => tiles_interleaved::<K, W, S, T, 4, P, I>(acc, panels, v, back, isa),
        2 => tiles_interleaved::<K, W, S, T, 2, P, I>(acc, panels, v, back, isa),
        _ => tiles_interleaved::<K, W, S, T, 1, P, I>(acc, panels, v, back, isa),
    }
}

/// The `i`-th of `n` items, counted from the last when `back`. (A loop over the tiles
/// rather than a closure run for each: closures do not take the target features of the
/// function they are in, and would call the vector instructions out of line.)
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn nth(i: usize, n: usize, back: bool) -> usize {
    if back { n - 1 - i } else { i }
}

/// [`tiles_acc_rows`] with each lane's sum split in `Q` ([`panel_acc_split`]), row by row.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn tiles_split<const K: usize, const W: usize, const S: usize, const T: usize, const Q: usize, P: Row<W>, I: Isa>(
    acc: &mut [[[f32; W]; S]; T],
    panels: &[[P; K]],
    v: &[[f32; K]; S],
    back: bool,
    isa: I,
) {
    // Rows side by side (as many as keep about 128 accumulator values), each summed exactly
    // as `panel_acc_split` sums it alone: a block of rows gives that many more independent
    // chains without changing a bit of any row's result.
    let n = acc.len().min(panels.len());
    for i in 0..n {
        let (Some(a), Some(panel)) = (acc.get_mut(nth(i, n, back)), panels.get(nth(i, n, back))) else { continue };
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
#[cfg_attr(not(cellc_unoptimised), inline(always))]
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
#[cfg_attr(not(cellc_unoptimised), inline(always))]
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
#[cfg_attr(not(cellc_unoptimised), inline(always))]
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
#[cfg_attr(not(cellc_unoptimised), inline(always))]
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
#[cfg_attr(not(cellc_unoptimised), inline(always))]
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
    back: bool,
    isa: I,
) {
    let Some(v) = v.first() else { return };
    let (groups, rest) = acc.as_chunks_mut::<G>();
    let (panel_groups, panel_rest) = panels.as_chunks::<G>();
    if back {
        tiles_left(rest, panel_rest, v, isa);
    }
    let n = groups.len().min(panel_groups.len());
    for i in 0..n {
        if let (Some(ag), Some(pg)) = (groups.get_mut(nth(i, n, back)), panel_groups.get(nth(i, n, back))) {
            tiles_side_by_side(ag, pg, v, isa);
        }
    }
    if !back {
        tiles_left(rest, panel_rest, v, isa);
    }
}

/// The tiles left after the last whole group of [`tiles_interleaved`], side by side too (an
/// RNN step, H=112, 7 tiles of 16 lanes: 0.86× the time with its last 3 tiles one at a
/// time, in the C).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn tiles_left<const K: usize, const W: usize, const S: usize, P: Row<W>, I: Isa>(
    rest: &mut [[[f32; W]; S]],
    panel_rest: &[[P; K]],
    v: &[f32; K],
    isa: I,
) {
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
#[cfg_attr(not(cellc_unoptimised), inline(always))]
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
#[cfg_attr(not(cellc_unoptimised), inline(always))]
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
            let (w, scale) = (row.block::<I, V>(isa, lb), row.scale());
            for (a, x) in a.iter_mut().zip(v) {
                axpy_by(
                    isa,
                    a,
                    x[k] * scale,
                    #[cfg_attr(not(cellc_unoptimised), inline(always))]
                    |c| array!(0.0, |j| w[8 * c + j]),
                    #[cfg_attr(not(cellc_unoptimised), inline(always))]
                    |l| w[l],
                );
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
                t = isa.mul_add(t, row.lane(l), xk * row.scale());
            }
            acc[l] = t;
        }
    }
}

/// `acc[s][l] += col[l] · v[s][k]` for every row `s`: column `k` of a product over `S` rows,
/// the statement the unrolled kernels repeat once per input element.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
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
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn axpy<const W: usize, P: Row<W>, I: Isa>(acc: &mut [f32; W], v: f32, col: &P, isa: I) {
    col.axpy(isa, acc, v);
}

/// Each row of `y` (`N` values; a partial row at the end is left alone) mapped output by
/// output with that output's parameter: `y[r·N + j] = f(y[r·N + j], p[j])` (a PReLU's
/// slopes after a dense layer).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn per_output<const N: usize>(y: &mut [f32], p: &[f32; N], f: impl Fn(f32, f32) -> f32) {
    // The row's length hidden from the optimiser: where it knew it, it unrolled the row and
    // vectorised across rows, gathering and scattering with a stride of a row (2.5× the
    // time of the convolution it followed, AMD Zen 4); a loop over the row it vectorises
    // along it.
    let n = core::hint::black_box(N);
    for row in y.chunks_exact_mut(n.max(1)) {
        for (v, &s) in row.iter_mut().zip(p) {
            *v = f(*v, s);
        }
    }
}

#[cfg(test)]
mod tests;
