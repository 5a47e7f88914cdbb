//! The windows' dense layer in vector registers (x86-64): blocks of positions × tiles whose
//! accumulators fill the registers, each weight vector loaded serving every position of the
//! block and each broadcast input every tile.
use super::{Reads, Windows, put};
use crate::kernel::Row;
use crate::kernel::blocked::{Reg, weights};

/// Every position and tile of one entry (`NV` vectors a tile). The block sizes are chosen
/// here from the vector width and the number of tiles; the positions and tiles left over
/// go through smaller blocks that hold more of the other (see [`positions`]).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(clippy::too_many_arguments)]
pub(super) fn reg_blocks<
    G: Reg,
    const C: usize,
    const K: usize,
    const W: usize,
    const NV: usize,
    P: Row<W>,
    F: Fn(&mut [f32]) + Copy,
>(
    g: G,
    io: Io<'_, P, K, W, C>,
    then: F,
) {
    let tiles = io.4.div_ceil(W).min(io.0.len());
    // Panels larger than `cellc_pack::PASS_BYTES` go in passes of tiles, each over every
    // position, instead of streaming every panel from the third level again for each block
    // of positions (512 → 512 channels, kernel 3 over 50 positions: 3 MB of weights).
    let per_pass = cellc_pack::pass_tiles(tiles, core::mem::size_of::<[P; K]>(), PASS_TILES);
    let one = tiles <= per_pass;
    // One call of the blocks, inlined whole (a second call would be a second copy).
    let mut t0 = 0;
    while t0 < tiles {
        let t1 = tiles.min(t0 + per_pass);
        let io = (io.0, io.1, io.2, &mut *io.3, io.4, io.5, io.6);
        by_shape::<G, C, K, W, NV, P, F>(g, io, (t0, t1), one.then_some(then));
        t0 = t1;
    }
    if !one {
        // After the last pass, the map over runs of 8 positions' outputs.
        for rows in io.3.chunks_mut(io.4.saturating_mul(8).max(1)) {
            then(rows);
        }
    }
}

/// The multiple of tiles a pass takes (see [`reg_blocks`]): the blocks' tile count over
/// many positions at AVX-512; the tiles of a pass left over go through smaller blocks.
const PASS_TILES: usize = 4;

/// [`reg_blocks`] over the tiles `pass` (`t0..t1`): the block sizes chosen from the vector
/// width and the layer's tiles; `then`, if any, over each block of positions' outputs.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn by_shape<
    G: Reg,
    const C: usize,
    const K: usize,
    const W: usize,
    const NV: usize,
    P: Row<W>,
    F: Fn(&mut [f32]) + Copy,
>(
    g: G,
    io: Io<'_, P, K, W, C>,
    pass: (usize, usize),
    then: Option<F>,
) {
    // Accumulators: 24 of 32 registers with AVX-512, 12 of 16 with AVX2; the positions of a
    // block at most 8, each holding a pointer while the block runs. The blocks of the
    // positions left (4, 2, 1) take more tiles at once (`T4`, `T2`, `T1`).
    let tiles = io.4.div_ceil(W).min(io.0.len());
    match (G::LANES, NV, tiles) {
        (16, _, 1) => positions::<G, C, K, W, NV, 1, 8, 4, 8, 8, P, F>(g, io, pass, then),
        (16, _, 2) => positions::<G, C, K, W, NV, 2, 8, 4, 8, 8, P, F>(g, io, pass, then),
        (16, _, 3) => positions::<G, C, K, W, NV, 3, 8, 4, 8, 8, P, F>(g, io, pass, then),
        (16, _, _) => positions::<G, C, K, W, NV, 4, 6, 4, 8, 8, P, F>(g, io, pass, then),
        (_, 1, 1) => positions::<G, C, K, W, NV, 1, 6, 2, 4, 8, P, F>(g, io, pass, then),
        (_, 1, _) => positions::<G, C, K, W, NV, 2, 6, 2, 4, 8, P, F>(g, io, pass, then),
        (_, _, 1) => positions::<G, C, K, W, NV, 1, 6, 1, 2, 4, P, F>(g, io, pass, then),
        // Two vectors a tile at AVX2 (16 registers). Two tiles of 3 positions want 4 weight
        // vectors and a broadcast beside 12 accumulators, one more register than there are:
        // LLVM spilled the accumulators, and one tile of 6 positions (2 weight vectors) ran
        // a 32-channel layer in half the time (AMD Zen 3, 32 → 64 channels over 32×80: 2,271
        // → 1,137 µs; 8 and 16 channels 0.84× and 0.65×). Under 4 channels, whose taps unroll
        // whole, two tiles sharing each broadcast stay faster, in blocks of 2 positions (8
        // accumulators): blocks of 3 spilled 3 of their 12 (3 → 32 channels over 64×160:
        // 0.69× the time of blocks of 3; 1 channel over 126×257: 0.80×). From 4 channels on,
        // two tiles of 2 positions gained nothing on one of 6.
        _ if C < 4 => positions::<G, C, K, W, NV, 2, 2, 1, 2, 4, P, F>(g, io, pass, then),
        _ => positions::<G, C, K, W, NV, 1, 6, 1, 2, 2, P, F>(g, io, pass, then),
    }
}

/// What a block reads and writes: the panels, their bias, the entry, its outputs, the
/// outputs a position, the windows and the padding's zeros.
pub(super) type Io<'a, P, const K: usize, const W: usize, const C: usize> =
    (&'a [[P; K]], &'a [[f32; W]], &'a [f32], &'a mut [f32], usize, &'a Windows, &'a [f32; C]);

/// Blocks of `RB` positions through the tiles `TG` at a time; the positions left (fewer
/// than `RB`) in blocks of 4, 2 and 1 through `T4`, `T2` and `T1` tiles at a time, so that a
/// layer with few positions (a model called on a short frame) still has enough
/// accumulators to hide the multiply–add's latency.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn positions<
    G: Reg,
    const C: usize,
    const K: usize,
    const W: usize,
    const NV: usize,
    const TG: usize,
    const RB: usize,
    const T4: usize,
    const T2: usize,
    const T1: usize,
    P: Row<W>,
    F: Fn(&mut [f32]) + Copy,
>(
    g: G,
    mut io: Io<'_, P, K, W, C>,
    pass: (usize, usize),
    then: Option<F>,
) {
    let mut p0 = span::<G, C, K, W, NV, TG, RB, P, F>(g, &mut io, (0, pass), then);
    if RB > 4 {
        p0 = span::<G, C, K, W, NV, T4, 4, P, F>(g, &mut io, (p0, pass), then);
    }
    if RB > 2 {
        p0 = span::<G, C, K, W, NV, T2, 2, P, F>(g, &mut io, (p0, pass), then);
    }
    if RB > 1 {
        span::<G, C, K, W, NV, T1, 1, P, F>(g, &mut io, (p0, pass), then);
    }
}

/// The blocks of `RB` positions from `p0` while whole ones fit, each through the tiles `TG`
/// at a time, then the tiles left in groups of 4, 2 and 1; returns the first position left.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn span<
    G: Reg,
    const C: usize,
    const K: usize,
    const W: usize,
    const NV: usize,
    const TG: usize,
    const RB: usize,
    P: Row<W>,
    F: Fn(&mut [f32]) + Copy,
>(
    g: G,
    io: &mut Io<'_, P, K, W, C>,
    (mut p0, (t_first, t_end)): (usize, (usize, usize)),
    then: Option<F>,
) -> usize {
    let (panels, win) = (io.0, io.5);
    let positions = win.positions();
    let tiles = io.4.div_ceil(W).min(panels.len()).min(t_end);
    while p0 + RB <= positions {
        let mut bases = [[0; 2]; RB];
        for (r, b) in bases.iter_mut().enumerate() {
            *b = win.base(p0 + r);
        }
        let mut t = t_first;
        while t + TG <= tiles {
            block::<G, C, K, W, NV, TG, RB, P>(g, io, (p0, t), &bases);
            t += TG;
        }
        if TG > 4 && t + 4 <= tiles {
            block::<G, C, K, W, NV, 4, RB, P>(g, io, (p0, t), &bases);
            t += 4;
        }
        if TG > 2 && t + 2 <= tiles {
            block::<G, C, K, W, NV, 2, RB, P>(g, io, (p0, t), &bases);
            t += 2;
        }
        while t < tiles {
            block::<G, C, K, W, NV, 1, RB, P>(g, io, (p0, t), &bases);
            t += 1;
        }
        // The block's rows, every output written, mapped in one run while in the cache (a
        // map per tile written cost more than the block: the compiler gathered across rows).
        if let (Some(then), Some(rows)) = (then, io.3.get_mut(p0 * io.4..(p0 + RB) * io.4)) {
            then(rows);
        }
        p0 += RB;
    }
    p0
}

/// `RB` positions from `p0` × `TG` tiles from `t0`: the accumulators from the bias over
/// every tap, stored to the outputs (those below `n`).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn block<
    G: Reg,
    const C: usize,
    const K: usize,
    const W: usize,
    const NV: usize,
    const TG: usize,
    const RB: usize,
    P: Row<W>,
>(
    g: G,
    (panels, bias, x, y, n, win, zero): &mut Io<'_, P, K, W, C>,
    (p0, t0): (usize, usize),
    bases: &[[isize; 2]; RB],
) {
    let (Some(pg), Some(bg)) = (panels.get(t0..t0 + TG), bias.get(t0..t0 + TG)) else { return };
    let b: [[G::V; NV]; TG] = array!([g.splat(0.0); NV], |t| array!(g.splat(0.0), |j| g.load(&bg[t], j)));
    let mut a: [[[G::V; NV]; TG]; RB] = [b; RB];
    let taps: [&[[P; C]]; TG] = core::array::from_fn(|t| pg[t].as_chunks::<C>().0);
    let starts = win.starts(bases);
    // A block along one output row, inside the data: its windows a stride apart, every tap
    // read through one slice of the entry whose length the optimiser knows, so that the
    // reads need no check of their own (a check per tap and position cost a 1-channel layer
    // more than its multiply–adds).
    let span = starts.and_then(|s| {
        let step = win.strides[1].checked_mul(C)?;
        let along =
            s.iter().enumerate().all(|(r, &v)| r.checked_mul(step).and_then(|o| s[0].checked_add(o)) == Some(v));
        // Inside the data, the last tap's offset is within the entry.
        let last = win.offset(win.kernel[0].saturating_sub(1), win.kernel[1].saturating_sub(1));
        let extent = (RB - 1).checked_mul(step)?.checked_add(last)?.checked_add(C)?;
        Some((x.get(s[0]..)?.get(..extent).filter(|_| along)?, step))
    });
    for kh in 0..win.kernel[0] {
        for kw in 0..win.kernel[1] {
            let tap = kh * win.kernel[1] + kw;
            // In range: the taps make `K` values (checked before any block).
            let ws: [&[P; C]; TG] = core::array::from_fn(|t| &taps[t][tap]);
            let xs = match span {
                Some((span, step)) => {
                    let off = win.offset(kh, kw);
                    let mut runs: [&[f32; C]; RB] = [*zero; RB];
                    for (r, run) in runs.iter_mut().enumerate() {
                        if let Some(v) = span.get(off + r * step..).and_then(|v| v.first_chunk::<C>()) {
                            *run = v;
                        }
                    }
                    runs
                }
                None => win.runs(x, zero, (bases, starts), kh, kw),
            };
            for c in 0..C {
                let w: [[G::V; NV]; TG] =
                    array!([g.splat(0.0); NV], |t| array!(g.splat(0.0), |j| weights(g, &ws[t][c], j)));
                let scale: [f32; TG] = core::array::from_fn(|t| ws[t][c].scale());
                for (a, xr) in a.iter_mut().zip(&xs) {
                    for ((a, w), &s) in a.iter_mut().zip(&w).zip(&scale) {
                        let v = g.splat(xr[c] * s);
                        for (a, &w) in a.iter_mut().zip(w) {
                            *a = g.fma(*a, w, v);
                        }
                    }
                }
            }
        }
    }
    let n = *n;
    for (r, a) in a.iter().enumerate() {
        let Some(yr) = y.get_mut((p0 + r) * n..(p0 + r + 1) * n) else { return };
        for (t, a) in a.iter().enumerate() {
            let j0 = (t0 + t) * W;
            // A whole tile straight to the outputs; the last, partly past them, through an array.
            if let Some(whole) = yr.get_mut(j0..).and_then(|r| r.first_chunk_mut::<W>()) {
                for (j, &v) in a.iter().enumerate() {
                    g.store(whole, j, v);
                }
                continue;
            }
            let mut out = [0.0f32; W];
            for (j, &v) in a.iter().enumerate() {
                g.store(&mut out, j, v);
            }
            put(yr, j0, &out);
        }
    }
}
