//! A convolution's dense layer over its input laid out channels first, as the model holds
//! it: each entry copied once into the layout of [`Planar`] (padding written out, the width
//! split by the stride's phase), then a vector of output positions along a row per load,
//! each weight broadcast to every position of it. What a layer of few outputs or few input
//! channels needs: the kernels over channels-last windows hold a vector of outputs per
//! register, and 12 outputs fill three quarters of an AVX-512 one, 3 input channels give
//! each tap's block of positions three multiply–adds to find its pointers for.
//!
//! Every output sums from its bias over the taps in order, each tap's channels in order,
//! one multiply–add each (fused where the level has FMA): the order of
//! [`super::dense_windows`], so the same bits at the same level. Its outputs are laid out
//! channels first too (`[n][positions]` an entry).
use super::vector::{Eight, Vector as Lanes};
use crate::simd::Isa;

pub use cellc_pack::Planar;

/// For each entry of `x` (its `channels · height · width` values, channels first), each
/// output `j < n` and output position `p`: `y[j·P + p] = bias(j) + Σₖ window(p)[k]·w(j, k)`,
/// `P` the positions of an entry, `k` tap by tap and each tap's channels in order. The
/// weights are `panels[g][k][l]` for output `g·NB + l` (zero past `n`), their bias
/// `bias[g][l]`. `work` holds [`Planar::work`] values or more. Then `then(j, run)` over
/// each run of output `j`'s values as soon as they are written (the layer's activation,
/// while they are in the cache). Writes nothing unless `x` holds whole entries, `y` `n`
/// values per position of each, the panels cover `n` outputs and `K` is a window's values.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn dense_planar_then<const C: usize, const K: usize, const NB: usize, I, F>(
    panels: &[[[f32; NB]; K]],
    bias: &[[f32; NB]],
    x: &[f32],
    y: &mut [f32],
    n: usize,
    geo: &Planar,
    work: &mut [f32],
    isa: I,
    then: F,
) where
    I: Isa,
    F: Fn(usize, &mut [f32]) + Copy,
{
    let win = &geo.win;
    let (Some(entry), Some(size)) = (win.entry(), geo.work()) else { return };
    let positions = win.positions();
    let entries = x.len().checked_div(entry).unwrap_or(0);
    let fits = win.holds::<C>()
        && win.k() == K
        && NB != 0
        && geo.phases == win.strides[1]
        && Planar::of(win) == Some(*geo)
        && entries * entry == x.len()
        && entries.checked_mul(positions).and_then(|r| r.checked_mul(n)) == Some(y.len())
        && panels.len() == bias.len()
        && panels.len().saturating_mul(NB) >= n;
    let Some(work) = work.get_mut(..size) else { return };
    if !fits || positions == 0 || n == 0 {
        return;
    }
    for (xe, ye) in x.chunks_exact(entry).zip(y.chunks_exact_mut(positions * n)) {
        fill::<C>(geo, xe, work);
        let io = Io { panels, bias, work, n, geo };
        #[cfg(target_arch = "x86_64")]
        {
            use super::blocked::{Ymm, Zmm};
            use super::vector::reg;
            // Accumulators: `NB · PV` of them, 24 of the 32 registers with AVX-512, 12 of
            // the 16 with AVX2, besides the loaded positions and a broadcast weight.
            if let Some(z) = isa.avx512() {
                match NB {
                    ..=3 => rows::<reg::Z, C, K, NB, 8, F>(reg::Z(Zmm(z)), &io, ye, then),
                    4..=6 => rows::<reg::Z, C, K, NB, 4, F>(reg::Z(Zmm(z)), &io, ye, then),
                    _ => rows::<reg::Z, C, K, NB, 2, F>(reg::Z(Zmm(z)), &io, ye, then),
                }
                continue;
            }
            if let Some(v) = isa.avx2() {
                match NB {
                    ..=3 => rows::<reg::Y, C, K, NB, 4, F>(reg::Y(Ymm(v)), &io, ye, then),
                    4..=6 => rows::<reg::Y, C, K, NB, 2, F>(reg::Y(Ymm(v)), &io, ye, then),
                    _ => rows::<reg::Y, C, K, NB, 1, F>(reg::Y(Ymm(v)), &io, ye, then),
                }
                continue;
            }
        }
        rows::<Eight<I>, C, K, NB, 1, F>(Eight(isa), &io, ye, then);
    }
}

/// Entry `x` copied into `work` as [`Planar`] lays it out (the caller checked the sizes).
#[inline(always)]
fn fill<const C: usize>(geo: &Planar, x: &[f32], work: &mut [f32]) {
    let win = &geo.win;
    let [height, width] = win.input;
    let len = geo.row_len();
    for c in 0..C {
        for i in 0..height {
            let (Some(src), Some(row)) = (
                x.get((c * height + i) * width..).and_then(|s| s.get(..width)),
                work.get_mut(geo.row(c, i)..).and_then(|r| r.get_mut(..len)),
            ) else {
                return;
            };
            if geo.phases == 1 {
                // The padding's zeros, the data, the zeros past it.
                let pad = win.pads[1].min(len);
                let run = width.min(len - pad);
                row[..pad].fill(0.0);
                row[pad..pad + run].copy_from_slice(&src[..run]);
                row[pad + run..].fill(0.0);
            } else {
                row.fill(0.0);
                for (iw, &v) in src.iter().enumerate() {
                    if let Some(o) = geo.place(iw).and_then(|at| row.get_mut(at)) {
                        *o = v;
                    }
                }
            }
        }
    }
    if let Some(zeros) = work.get_mut(geo.zeros()..) {
        zeros.iter_mut().take(len).for_each(|v| *v = 0.0);
    }
}

/// What the blocks of one entry read: the weights, their bias, the entry's copy, the
/// outputs and the geometry.
struct Io<'a, const K: usize, const NB: usize> {
    panels: &'a [[[f32; NB]; K]],
    bias: &'a [[f32; NB]],
    work: &'a [f32],
    n: usize,
    geo: &'a Planar,
}

/// Every output row of one entry, group of outputs by group: blocks of `PV` vectors of
/// positions while whole ones fit the row (rounded up to the vector), then single vectors.
#[inline(always)]
fn rows<B: Lanes, const C: usize, const K: usize, const NB: usize, const PV: usize, F>(
    b: B,
    io: &Io<'_, K, NB>,
    y: &mut [f32],
    then: F,
) where
    F: Fn(usize, &mut [f32]) + Copy,
{
    let win = &io.geo.win;
    let [oh, ow] = win.output;
    let end = ow.next_multiple_of(B::L);
    for (g, (w, bias)) in io.panels.iter().zip(io.bias).enumerate() {
        if g * NB >= io.n {
            break;
        }
        for r in 0..oh {
            let mut o = 0;
            while o + PV * B::L <= end {
                let a = block::<B, C, K, NB, PV>(b, w, bias, io, (r, o));
                put(b, y, io, &a, (g, r, o), then);
                o += PV * B::L;
            }
            while o < ow {
                let a = block::<B, C, K, NB, 1>(b, w, bias, io, (r, o));
                put(b, y, io, &a, (g, r, o), then);
                o += B::L;
            }
        }
    }
}

/// The `NB` outputs of group `w` at the `PV · L` positions of output row `r` from column
/// `o`: from the bias, over every tap and channel.
#[inline(always)]
fn block<B: Lanes, const C: usize, const K: usize, const NB: usize, const PV: usize>(
    b: B,
    w: &[[f32; NB]; K],
    bias: &[f32; NB],
    io: &Io<'_, K, NB>,
    (r, o): (usize, usize),
) -> [[B::V; PV]; NB] {
    let geo = io.geo;
    let win = &geo.win;
    let mut a: [[B::V; PV]; NB] = core::array::from_fn(|j| [b.fill(bias[j]); PV]);
    let channel = win.input[0] * geo.row_len();
    let taps = w.as_chunks::<C>().0;
    for kh in 0..win.kernel[0] {
        // Channel 0's row, and how far the next channel's is; the padding's row of zeros
        // for every channel.
        let (row, step) = match geo.input_row(r, kh) {
            Some(i) => (geo.row(0, i), channel),
            None => (geo.zeros(), 0),
        };
        for kw in 0..win.kernel[1] {
            let at = row + geo.column(kw) + o;
            let Some(tap) = taps.get(kh * win.kernel[1] + kw) else { return a };
            for (c, wc) in tap.iter().enumerate() {
                // In range: a block ends at the row's last column rounded up to the vector,
                // which the copy's rows hold (`Planar::len`).
                let Some(xs) = io.work.get(at + c * step..).and_then(|s| s.get(..PV * B::L)) else { return a };
                let x: [B::V; PV] = core::array::from_fn(|v| b.load(&xs[v * B::L..]));
                for (a, &wj) in a.iter_mut().zip(wc) {
                    let s = b.splat(wj);
                    for (a, &x) in a.iter_mut().zip(&x) {
                        *a = b.fma(*a, x, s);
                    }
                }
            }
        }
    }
    a
}

/// A block's outputs (those below `n`, the positions inside the row) to `y`, each run
/// mapped by `then`.
#[inline(always)]
fn put<B: Lanes, const K: usize, const NB: usize, const PV: usize, F>(
    b: B,
    y: &mut [f32],
    io: &Io<'_, K, NB>,
    a: &[[B::V; PV]; NB],
    (g, r, o): (usize, usize, usize),
    then: F,
) where
    F: Fn(usize, &mut [f32]) + Copy,
{
    let [_, ow] = io.geo.win.output;
    let positions = io.geo.win.positions();
    let count = (PV * B::L).min(ow - o);
    for (l, a) in a.iter().enumerate() {
        let j = g * NB + l;
        if j >= io.n {
            return;
        }
        let start = j * positions + r * ow + o;
        let Some(run) = y.get_mut(start..start + count) else { return };
        for (v, &a) in a.iter().enumerate() {
            if let Some(out) = run.get_mut(v * B::L..) {
                b.store(out, a);
            }
        }
        then(j, run);
    }
}

#[cfg(test)]
mod tests;
