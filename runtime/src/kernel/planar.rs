//! A convolution's dense layer over its input laid out channels first, as the model holds
//! it: each entry copied once into the layout of [`Planar`] (padding written out, the width
//! split by the stride's phase), then a vector of output positions along a row per load,
//! each weight broadcast to every position of it. What a layer of few outputs or few input
//! channels needs: the kernels over channels-last windows hold a vector of outputs per
//! register, and 12 outputs fill three quarters of an AVX-512 one, 3 input channels give
//! each tap's block of positions three multiply–adds to find its pointers for. A grouped
//! layer (a depthwise one: one input channel a group) copies and runs one group at a time,
//! its copy as small as one group's channels.
//!
//! Every output sums from its bias over the taps in order, each tap's channels in order,
//! one multiply–add each (fused where the level has FMA): the order of
//! [`super::dense_windows`], so the same bits at the same level. Its outputs are laid out
//! channels first too (`[n][positions]` an entry).
use super::vector::{Eight, Vector as Lanes};
use crate::simd::Isa;

pub use cellc_pack::Planar;

/// For each entry of `x` (its `groups · channels · height · width` values, channels first),
/// each group `g`, its outputs `j < n` and output position `p`:
/// `y[(g·n + j)·P + p] = bias(g, j) + Σₖ window(g, p)[k]·w(g, j, k)`, `P` the positions of
/// an entry, `window(g, p)` the window over group `g`'s channels, `k` tap by tap and each
/// tap's channels in order. The weights are `panels[g·B + b][k][l]` for output `b·NB + l`
/// of group `g` (zero past `n`; `B` panels a group, `panels.len() / groups`), their bias
/// `bias[g·B + b][l]`. `work` holds [`Planar::work`] values or more (one group's copy).
/// Then `then(g·n + j, run)` over each run of an output's values as soon as they are written
/// (the layer's activation, while they are in the cache). Writes nothing unless `x` holds
/// whole entries, `y` `groups · n` values per position of each, the panels cover `n`
/// outputs of each group and `K` is a window's values.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(clippy::too_many_arguments)]
pub fn dense_planar_then<const C: usize, const K: usize, const NB: usize, I, F>(
    panels: &[[[f32; NB]; K]],
    bias: &[[f32; NB]],
    x: &[f32],
    y: &mut [f32],
    (groups, n): (usize, usize),
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
    if work.len() < size {
        return;
    }
    let positions = win.positions();
    let per = panels.len().checked_div(groups).unwrap_or(0);
    let (Some(whole), Some(out), Some(outs)) = (
        entry.checked_mul(groups),
        positions.checked_mul(n),
        positions.checked_mul(n).and_then(|o| o.checked_mul(groups)),
    ) else {
        return;
    };
    let entries = x.len().checked_div(whole).unwrap_or(0);
    let fits = win.holds::<C>()
        && win.k() == K
        && NB != 0
        && geo.phases == win.strides[1]
        && Planar::of(win) == Some(*geo)
        && entries * whole == x.len()
        && entries.checked_mul(outs) == Some(y.len())
        && panels.len() == bias.len()
        && per * groups == panels.len()
        && per.saturating_mul(NB) >= n;
    let skip = Planar::skip(work.as_ptr().addr());
    let Some(work) = work.get_mut(skip..).and_then(|w| w.get_mut(..geo.copy_len())) else { return };
    if !fits || positions == 0 || n == 0 {
        return;
    }
    for (xe, ye) in x.chunks_exact(whole).zip(y.chunks_exact_mut(outs)) {
        for (g, (xg, yg)) in xe.chunks_exact(entry).zip(ye.chunks_exact_mut(out)).enumerate() {
            fill::<C>(geo, xg, work);
            let (Some(panels), Some(bias)) = (panels.get(g * per..(g + 1) * per), bias.get(g * per..(g + 1) * per))
            else {
                return;
            };
            let io = Io { panels, bias, work, n, geo };
            group::<C, K, NB, I, _>(&io, yg, isa, move |j, run| then(g * n + j, run));
        }
    }
}

/// One group's outputs from its copy, in blocks of registers at the level `isa` has.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn group<const C: usize, const K: usize, const NB: usize, I, F>(io: &Io<'_, K, NB>, y: &mut [f32], isa: I, then: F)
where
    I: Isa,
    F: Fn(usize, &mut [f32]) + Copy,
{
    #[cfg(target_arch = "x86_64")]
    {
        use super::blocked::{Ymm, Zmm};
        use super::vector::reg;
        // Accumulators: `NB · S` of them, 24 of the 32 registers with AVX-512, 12 of the 16
        // with AVX2, besides the loaded positions and a broadcast weight.
        if let Some(z) = isa.avx512() {
            let b = reg::Z(Zmm(z));
            match NB {
                ..=3 => shaped::<_, C, K, NB, NB, 8, F>(b, io, y, then),
                4..=6 => shaped::<_, C, K, NB, NB, 4, F>(b, io, y, then),
                _ => shaped::<_, C, K, NB, NB, 2, F>(b, io, y, then),
            }
            return;
        }
        if let Some(v) = isa.avx2() {
            let b = reg::Y(Ymm(v));
            // Panels of 8, 11 or 12 outputs in blocks of 4 outputs × 2 vectors (of 10, 5 × 2):
            // 6 loads for 8 multiply–adds, where 12 × 1 takes 13 for 12 (AVX2 has no
            // broadcast operand). Not 6 × 2: its 12 sums, 2 loads and a weight fill the 16
            // registers, and where the compiler knew a layer's panels one sum went to the
            // stack (SwiftF0's 12→12 7×1 layers 1.6× as long). On AMD Zen 3, layers of 12
            // outputs 0.75–0.92× the time of 12 × 1, of 10 0.81–0.86×, of 16 (panels of 8)
            // 0.85×, of 32 (panels of 11, the last block overlapping) 0.94–1.06×.
            if NB == 10 {
                shaped::<_, C, K, NB, 5, 2, F>(b, io, y, then);
            } else if NB > 10 || NB == 8 {
                shaped::<_, C, K, NB, 4, 2, F>(b, io, y, then);
            } else {
                match NB {
                    ..=3 => shaped::<_, C, K, NB, NB, 4, F>(b, io, y, then),
                    4..=6 => shaped::<_, C, K, NB, NB, 2, F>(b, io, y, then),
                    _ => shaped::<_, C, K, NB, NB, 1, F>(b, io, y, then),
                }
            }
            return;
        }
    }
    shaped::<Eight<I>, C, K, NB, NB, 1, F>(Eight(isa), io, y, then);
}

/// `S` sums an output: `S` vectors along a row where its rows hold that many, else one
/// vector in each of `S` rows (a narrow layer's rows, as a depthwise one's: one sum an
/// output would wait on each multiply–add before the next) — where the layer has half as
/// many rows or more, the rows past its last computing the last one again.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn shaped<B: Lanes, const C: usize, const K: usize, const NB: usize, const H: usize, const S: usize, F>(
    b: B,
    io: &Io<'_, K, NB>,
    y: &mut [f32],
    then: F,
) where
    F: Fn(usize, &mut [f32]) + Copy,
{
    let [oh, ow] = io.geo.win.output;
    if ow.div_ceil(B::L) >= S || 2 * oh < S {
        rows::<B, C, K, NB, H, S, 1, F>(b, io, y, then);
    } else {
        rows::<B, C, K, NB, H, 1, S, F>(b, io, y, then);
    }
}

/// Entry `x` copied into `work` as [`Planar`] lays it out (the caller checked the sizes).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
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
                // Each phase: the zeros before the data, every `stride`-th input column from
                // its first, the zeros after; with a stride of 2 the columns both phases
                // share a value of are split in pairs, the loop the compiler vectorises.
                row.fill(0.0);
                let (at, from, pairs) = geo.pairs().unwrap_or((0, 0, 0));
                if let (Some(src), (even, odd)) = (src.get(from..from + 2 * pairs), row.split_at_mut(geo.len.min(len)))
                    && let (Some(even), Some(odd)) = (even.get_mut(at..at + pairs), odd.get_mut(at..at + pairs))
                {
                    deinterleave(src, even, odd);
                }
                for (phase, run) in row.chunks_exact_mut(geo.len).enumerate() {
                    let (start, from, n) = geo.phase_run(phase);
                    // The values the pairs did not write: before them and after them.
                    for js in [start..at.clamp(start, start + n), (at + pairs).max(start)..start + n] {
                        let (Some(dst), Some(src)) =
                            (run.get_mut(js.clone()), src.get(from + (js.start - start) * geo.phases..))
                        else {
                            continue;
                        };
                        for (d, &v) in dst.iter_mut().zip(src.iter().step_by(geo.phases)) {
                            *d = v;
                        }
                    }
                }
            }
        }
    }
    if let Some(zeros) = work.get_mut(geo.zeros()..) {
        zeros.iter_mut().take(len).for_each(|v| *v = 0.0);
    }
}

/// `src`'s values at even indices to `even`, at odd ones to `odd` (as many pairs as the
/// shortest holds), in blocks of 16 pairs the compiler turns into shuffles of vectors.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn deinterleave(src: &[f32], even: &mut [f32], odd: &mut [f32]) {
    let pairs = (src.len() / 2).min(even.len()).min(odd.len());
    let (Some(src), Some(even), Some(odd)) = (src.get(..2 * pairs), even.get_mut(..pairs), odd.get_mut(..pairs)) else {
        return;
    };
    let ((blocks, rest), (even_blocks, even_rest), (odd_blocks, odd_rest)) =
        (src.as_chunks::<32>(), even.as_chunks_mut::<16>(), odd.as_chunks_mut::<16>());
    for ((e, o), p) in even_blocks.iter_mut().zip(odd_blocks).zip(blocks) {
        *e = core::array::from_fn(|i| p[2 * i]);
        *o = core::array::from_fn(|i| p[2 * i + 1]);
    }
    for ((e, o), p) in even_rest.iter_mut().zip(odd_rest).zip(rest.as_chunks::<2>().0) {
        (*e, *o) = (p[0], p[1]);
    }
}

/// What the blocks of one group read: its weights, their bias, its copy, its outputs and
/// the geometry.
struct Io<'a, const K: usize, const NB: usize> {
    panels: &'a [[[f32; NB]; K]],
    bias: &'a [[f32; NB]],
    work: &'a [f32],
    n: usize,
    geo: &'a Planar,
}

/// Every output row of one group, panel by panel: blocks of `H` of the panel's outputs ×
/// `RV` rows (the last block's rows past the output computing the last row again, not
/// stored) × `PV` vectors of positions while whole ones fit the row (rounded up to the
/// vector), then single vectors.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn rows<
    B: Lanes,
    const C: usize,
    const K: usize,
    const NB: usize,
    const H: usize,
    const PV: usize,
    const RV: usize,
    F,
>(
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
        for r in (0..oh).step_by(RV) {
            // Blocks of `H` outputs from the panel's first, the last one ending at its last.
            for lo in (0..NB).step_by(H.max(1)).map(|lo| lo.min(NB.saturating_sub(H))) {
                let (first, last) = (g * NB + lo, io.n.min((g + 1) * NB));
                let mut o = 0;
                while o + PV * B::L <= end {
                    let a = block::<B, C, K, NB, H, PV, RV>(b, w, bias, lo, io, (r, o));
                    put(b, y, io, &a, (first, last, r, o), then);
                    o += PV * B::L;
                }
                while o < ow {
                    let a = block::<B, C, K, NB, H, 1, RV>(b, w, bias, lo, io, (r, o));
                    put(b, y, io, &a, (first, last, r, o), then);
                    o += B::L;
                }
            }
        }
    }
}

/// Outputs `lo..lo + H` of panel `w` at the `PV · L` positions of output rows `r..r + RV`
/// from column `o`: from the bias, over every tap and channel.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn block<
    B: Lanes,
    const C: usize,
    const K: usize,
    const NB: usize,
    const H: usize,
    const PV: usize,
    const RV: usize,
>(
    b: B,
    w: &[[f32; NB]; K],
    bias: &[f32; NB],
    lo: usize,
    io: &Io<'_, K, NB>,
    (r, o): (usize, usize),
) -> [[[B::V; PV]; RV]; H] {
    let geo = io.geo;
    let win = &geo.win;
    let mut a: [[[B::V; PV]; RV]; H] =
        array!([[b.fill(0.0); PV]; RV], |j| [[b.fill(bias[(lo + j).min(NB - 1)]); PV]; RV]);
    let channel = geo.plane();
    let last = win.output[0].saturating_sub(1);
    let taps = w.as_chunks::<C>().0;
    for kh in 0..win.kernel[0] {
        // Channel 0's row for each output row, and how far the next channel's is; the
        // padding's row of zeros for every channel.
        let rows: [(usize, usize); RV] = core::array::from_fn(|i| match geo.input_row((r + i).min(last), kh) {
            Some(i) => (geo.row(0, i), channel),
            None => (geo.zeros(), 0),
        });
        for kw in 0..win.kernel[1] {
            let at = geo.column(kw) + o;
            let Some(tap) = taps.get(kh * win.kernel[1] + kw) else { return a };
            for (c, wc) in tap.iter().enumerate() {
                let Some(wc) = wc.get(lo..lo + H) else { return a };
                // In range: a block ends at the row's last column rounded up to the vector,
                // which the copy's rows hold (`Planar::len`).
                let mut x = [[b.fill(0.0); PV]; RV];
                for (x, &(row, step)) in x.iter_mut().zip(&rows) {
                    let Some(xs) = io.work.get(row + at + c * step..).and_then(|s| s.get(..PV * B::L)) else {
                        return a;
                    };
                    *x = array!(b.fill(0.0), |v| b.load(&xs[v * B::L..]));
                }
                for (a, &wj) in a.iter_mut().zip(wc) {
                    let s = b.splat(wj);
                    for (a, x) in a.iter_mut().zip(&x) {
                        for (a, &x) in a.iter_mut().zip(x) {
                            *a = b.fma(*a, x, s);
                        }
                    }
                }
            }
        }
    }
    a
}

/// The most values a block computes along a row: 8 vectors of 16 lanes.
const MAX_RUN: usize = 128;

/// A block's outputs (those below `n`, the rows and positions inside the output) to `y`,
/// each run mapped by `then`.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn put<B: Lanes, const K: usize, const NB: usize, const H: usize, const PV: usize, const RV: usize, F>(
    b: B,
    y: &mut [f32],
    io: &Io<'_, K, NB>,
    a: &[[[B::V; PV]; RV]; H],
    (first, last, r, o): (usize, usize, usize, usize),
    then: F,
) where
    F: Fn(usize, &mut [f32]) + Copy,
{
    let [oh, ow] = io.geo.win.output;
    let positions = io.geo.win.positions();
    let whole = PV * B::L;
    const { assert!(PV * B::L <= MAX_RUN, "a block's run fits the copy of a row's last") };
    let count = whole.min(ow - o);
    for (l, a) in a.iter().enumerate() {
        let j = first + l;
        if j >= last {
            return;
        }
        for (i, a) in a.iter().enumerate().take(oh.saturating_sub(r)) {
            let start = j * positions + (r + i) * ow + o;
            // Each run mapped as a run of a whole block's values, a constant: as a run of up
            // to that many, the map's loop is compiled to masked loads and stores, which AMD's
            // cores run in microcode (a 12×12 7×3 layer over 128×62 positions took 1.09 ms
            // with a relu, 0.93 ms without, on Zen 3). A shorter run (a row's last) is
            // written and mapped in a copy, the values past it mapped too and dropped —
            // except from a block's last row where the whole run ends within the output:
            // then it is stored whole, the values past the row landing on rows of later
            // blocks, which write them after (blocks go down the rows, and only a row's
            // last block is shorter). (With vectors of 16 a row of 62 is two blocks, one
            // short: copied through the stack, SwiftF0's 7×1 layers took 148 µs, 123 µs
            // stored whole, on an Intel Xeon.)
            let spills = i + 1 == RV && (r + i) * ow + o + whole <= positions;
            if (count == whole || spills)
                && let Some(run) = y.get_mut(start..start + whole)
            {
                store(b, run, a);
                then(j, run);
            } else {
                let Some(run) = y.get_mut(start..start + count) else { return };
                let mut copy = [0.0f32; MAX_RUN];
                if let Some(part) = copy.get_mut(..whole) {
                    store(b, part, a);
                    then(j, part);
                    run.copy_from_slice(&part[..count]);
                }
            }
        }
    }
}

/// The vectors of `a` one after the other from `y`'s first value, as many as fit.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn store<B: Lanes>(b: B, y: &mut [f32], a: &[B::V]) {
    for (v, &a) in a.iter().enumerate() {
        if let Some(out) = y.get_mut(v * B::L..) {
            b.store(out, a);
        }
    }
}

#[cfg(test)]
mod tests;
