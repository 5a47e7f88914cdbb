//! The convolutions of real models (AECMOS's, PLCMOS's and swift-f0's shapes, and 1-D
//! layers), each as the dense layer over its windows read in place from the input laid out
//! channels last (`kernel::dense_windows`) and by the planar kernel from the input laid out
//! channels first (`kernel::dense_planar_then`: what generated code calls for a layer of few
//! outputs or few input channels), beside a plain direct loop nest over the same shapes,
//! and the peak rate of fused multiply–adds measured in the same run: each layer's GFLOP/s
//! and its share of the peak. The two kernels' outputs are checked bit for bit. Each
//! kernel's time is the median of 7 rounds, its rounds run one after another (not
//! interleaved with the other kernel's).
//!
//! `cargo bench -p cellc-bench --bench conv` (a few seconds).
use cellc_bench::machine::{Width, fma_loop};
use cellc_runtime::__private::kernel::{Planar, Windows, dense_planar_then, dense_windows};
use std::hint::black_box;
use std::time::Instant;

/// A layer's shapes: its windows (their channels the input's) and outputs.
struct Layer {
    name: &'static str,
    win: Windows,
    n: usize,
}

/// The windows of a `kernel` over `input` with `strides`, `dilations` and as much padding
/// after each axis as `pads` before it.
fn windows(
    input: [usize; 2],
    kernel: [usize; 2],
    strides: [usize; 2],
    dilations: [usize; 2],
    pads: [usize; 2],
) -> Windows {
    let output =
        core::array::from_fn(|a| (input[a] + 2 * pads[a] - (kernel[a] - 1) * dilations[a] - 1) / strides[a] + 1);
    Windows { input, output, kernel, strides, dilations, pads, channels: 0 }
}

const ROUNDS: usize = 7;

/// The median of `ROUNDS` rounds of `f` (each long enough to time), in seconds a call.
fn median(mut f: impl FnMut()) -> f64 {
    let mut calls = 1;
    loop {
        let t = Instant::now();
        for _ in 0..calls {
            f();
        }
        if t.elapsed().as_secs_f64() > 0.02 {
            break;
        }
        calls *= 2;
    }
    let mut times: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..calls {
                f();
            }
            t.elapsed().as_secs_f64() / calls as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[ROUNDS / 2]
}

/// The same convolution as a plain loop nest (output channel innermost, so it
/// vectorises), over the same channels-last input: what a direct kernel written by hand
/// for these shapes looks like.
fn direct<const C: usize>(w: &[f32], b: &[f32], x: &[f32], y: &mut [f32], win: &Windows, n: usize) {
    for p in 0..win.positions() {
        let out = &mut y[p * n..(p + 1) * n];
        out.copy_from_slice(b);
        for t in 0..win.taps() {
            let Some(at) = win.source(p, t) else { continue };
            for (c, &v) in x[at..at + C].iter().enumerate() {
                let wr = &w[(t * C + c) * n..][..n];
                for (o, &wv) in out.iter_mut().zip(wr) {
                    *o += wv * v;
                }
            }
        }
    }
}

/// What one layer measured: its name, FLOPs a call, and seconds a call channels last,
/// channels first (the planar kernel) and by the loop nest.
type Timed = (&'static str, f64, f64, f64, f64);

macro_rules! layer {
    ($l:expr, $c:literal, $k:literal, $nb:literal) => {{
        const W: usize = 16;
        const NB: usize = $nb;
        let l: &Layer = &$l;
        let win = Windows { channels: $c, ..l.win };
        let v = |i: usize| ((i as f32) * 0.37).sin();
        let tiles = l.n.div_ceil(W);
        let panels: Vec<[[f32; W]; $k]> = (0..tiles)
            .map(|t| {
                core::array::from_fn(|k| {
                    core::array::from_fn(|j| if t * W + j < l.n { v(t * 100_000 + k * W + j) } else { 0.0 })
                })
            })
            .collect();
        let bias: Vec<[f32; W]> = (0..tiles).map(|t| core::array::from_fn(|j| v(7 + t * W + j))).collect();
        // The same weights as rows of `n` per input, for the loop nest, and in groups of
        // `NB` outputs (as the compiler cuts them: at most 12, as even as they go) for the
        // planar kernel.
        let w: Vec<f32> = (0..$k * l.n).map(|i| panels[(i % l.n) / W][i / l.n][(i % l.n) % W]).collect();
        let b: Vec<f32> = (0..l.n).map(|j| bias[j / W][j % W]).collect();
        let groups = l.n.div_ceil(NB);
        let at = |g: usize, j: usize| (g * NB + j < l.n).then_some(g * NB + j);
        let planar_w: Vec<[[f32; NB]; $k]> = (0..groups)
            .map(|g| core::array::from_fn(|k| core::array::from_fn(|j| at(g, j).map_or(0.0, |o| w[k * l.n + o]))))
            .collect();
        let planar_b: Vec<[f32; NB]> =
            (0..groups).map(|g| core::array::from_fn(|j| at(g, j).map_or(0.0, |o| b[o]))).collect();
        let area = win.input[0] * win.input[1];
        let x: Vec<f32> = (0..area * $c).map(|i| v(i + 3)).collect();
        let first: Vec<f32> = (0..area * $c).map(|i| x[(i % area) * $c + i / area]).collect();
        let geo = Planar::of(&win).expect("the copy's sizes fit");
        let mut work = vec![0.0f32; geo.work().unwrap_or(0)];
        let positions = win.positions();
        let (mut y, mut z, mut f) =
            (vec![0.0f32; positions * l.n], vec![0.0f32; positions * l.n], vec![0.0f32; positions * l.n]);
        let run = |y: &mut [f32]| {
            cellc_runtime::__private::dispatch!(|_L, isa| dense_windows::<$c, $k, W, 1, _, _>(
                &panels,
                &bias,
                black_box(&x),
                y,
                l.n,
                &win,
                isa
            ))
        };
        let planar = |f: &mut [f32], work: &mut [f32]| {
            cellc_runtime::__private::dispatch!(|_L, isa| dense_planar_then::<$c, $k, NB, _, _>(
                &planar_w,
                &planar_b,
                black_box(&first),
                f,
                (1, l.n),
                &geo,
                work,
                isa,
                |_, _| {}
            ))
        };
        run(&mut y);
        planar(&mut f, &mut work);
        direct::<$c>(&w, &b, &x, &mut z, &win, l.n);
        let worst = y.iter().zip(&z).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        assert!(worst < 1e-3, "{}: the kernel and the loop nest differ by {worst}", l.name);
        let same = (0..positions).all(|p| (0..l.n).all(|j| y[p * l.n + j].to_bits() == f[j * positions + p].to_bits()));
        assert!(same, "{}: the planar kernel differs from the kernel over channels last", l.name);
        let flops = 2.0 * (positions * $k * l.n) as f64;
        let t_kernel = median(|| run(&mut y));
        let t_planar = median(|| planar(&mut f, &mut work));
        let t_direct = median(|| direct::<$c>(&w, &b, black_box(&x), &mut z, &win, l.n));
        (l.name, flops, t_kernel, t_planar, t_direct)
    }};
}

fn main() {
    let peak = [Width::Zmm, Width::Ymm].into_iter().find(|w| w.available()).map(|w| {
        let iters = 1 << 20;
        let t = median(|| {
            black_box(fma_loop(w, iters, black_box(0.999), black_box(0.001)));
        });
        (w, w.fma_flops(iters) as f64 / t / 1e9)
    });
    println!("level: {:?}", cellc_runtime::__private::simd::level());
    match peak {
        Some((w, gf)) => println!("FMA peak ({w:?}): {gf:.1} GFLOP/s"),
        None => println!("FMA peak: not measured (no AVX2 or AVX-512 here)"),
    }
    let one = [1, 1];
    let results: Vec<Timed> = vec![
        layer!(
            Layer { name: "aecmos conv0 3→32 64×160", win: windows([64, 160], [3, 3], one, one, one), n: 32 },
            3,
            27,
            11
        ),
        layer!(
            Layer {
                name: "plcmos conv0 1→32 128×257",
                win: Windows { pads: [0, 1], output: [126, 257], ..windows([128, 257], [3, 3], one, one, one) },
                n: 32
            },
            1,
            9,
            11
        ),
        layer!(
            Layer { name: "aecmos conv4 32→64 32×80", win: windows([32, 80], [3, 3], one, one, one), n: 64 },
            32,
            288,
            11
        ),
        layer!(
            Layer { name: "aecmos conv8 64→64 16×40", win: windows([16, 40], [3, 3], one, one, one), n: 64 },
            64,
            576,
            11
        ),
        layer!(
            Layer { name: "aecmos conv12 64→128 8×20", win: windows([8, 20], [3, 3], one, one, one), n: 128 },
            64,
            576,
            12
        ),
        layer!(
            Layer { name: "swift conv0 3→12 128×62", win: windows([128, 62], [3, 3], one, one, one), n: 12 },
            3,
            27,
            12
        ),
        layer!(
            Layer { name: "swift 12→12 7×3", win: windows([128, 62], [7, 3], one, one, [3, 1]), n: 12 },
            12,
            252,
            12
        ),
        layer!(
            Layer { name: "swift 12→12 7×1 dil 17", win: windows([128, 62], [7, 1], one, [17, 1], [51, 0]), n: 12 },
            12,
            84,
            12
        ),
        layer!(
            Layer { name: "swift 12→12 3×1 dil 48", win: windows([128, 62], [3, 1], one, [48, 1], [48, 0]), n: 12 },
            12,
            36,
            12
        ),
        layer!(Layer { name: "1-D 16→16 k5 ×400", win: windows([1, 400], [1, 5], one, one, [0, 2]), n: 16 }, 16, 80, 8),
        layer!(
            Layer { name: "1-D 1→8 k9 s2 ×1600", win: windows([1, 1600], [1, 9], [1, 2], one, [0, 4]), n: 8 },
            1,
            9,
            8
        ),
    ];
    println!(
        "{:<28} {:>10} {:>7} {:>7} {:>10} {:>7} {:>7} {:>12}",
        "layer", "ch-last µs", "GFLOP/s", "% peak", "planar µs", "GFLOP/s", "% peak", "loop nest µs"
    );
    for (name, flops, tk, tp, td) in results {
        let (gk, gp) = (flops / tk / 1e9, flops / tp / 1e9);
        let share = |g: f64| peak.map_or(String::from("-"), |(_, p)| format!("{:.0}", 100.0 * g / p));
        println!(
            "{name:<28} {:>10.1} {gk:>7.1} {:>7} {:>10.1} {gp:>7.1} {:>7} {:>12.1}",
            tk * 1e6,
            share(gk),
            tp * 1e6,
            share(gp),
            td * 1e6
        );
    }
}
