//! The convolutions of the real models (AECMOS's and PLCMOS's shapes), each as the dense
//! layer over its windows read in place (`kernel::dense_windows`, what generated code
//! calls), beside a plain direct loop nest over the same shapes, and the peak rate of fused
//! multiply–adds measured in the same run: each layer's GFLOP/s and its share of the peak.
//! Medians of interleaved rounds.
//!
//! `cargo bench -p cellc-bench --bench conv` (a few seconds).
use cellc_bench::machine::{Width, fma_loop};
use cellc_runtime::__private::kernel::{Windows, dense_windows};
use std::hint::black_box;
use std::time::Instant;

/// A layer's shapes: channels in and out, input height and width, a 3×3 kernel, padding 1.
struct Layer {
    name: &'static str,
    input: [usize; 2],
    kernel: [usize; 2],
    pads: [usize; 2],
    n: usize,
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
    let [ih, iw] = win.input;
    let [oh, ow] = win.output;
    let [kh, kw] = win.kernel;
    for p in 0..oh * ow {
        let out = &mut y[p * n..(p + 1) * n];
        out.copy_from_slice(b);
        for t in 0..kh * kw {
            let (r, s) =
                ((p / ow + t / kw) as isize - win.pads[0] as isize, (p % ow + t % kw) as isize - win.pads[1] as isize);
            if r < 0 || s < 0 || r as usize >= ih || s as usize >= iw {
                continue;
            }
            let xr = &x[(r as usize * iw + s as usize) * C..][..C];
            for (c, &v) in xr.iter().enumerate() {
                let wr = &w[(t * C + c) * n..][..n];
                for (o, &wv) in out.iter_mut().zip(wr) {
                    *o += wv * v;
                }
            }
        }
    }
}

macro_rules! layer {
    ($l:expr, $c:literal, $k:literal) => {{
        const W: usize = 16;
        let l: &Layer = &$l;
        let win = Windows {
            input: l.input,
            output: [l.input[0] + 2 * l.pads[0] + 1 - l.kernel[0], l.input[1] + 2 * l.pads[1] + 1 - l.kernel[1]],
            kernel: l.kernel,
            strides: [1, 1],
            dilations: [1, 1],
            pads: l.pads,
            channels: $c,
        };
        let v = |i: usize| ((i as f32) * 0.37).sin();
        let tiles = l.n.div_ceil(W);
        let panels: Vec<[[f32; W]; $k]> = (0..tiles)
            .map(|t| core::array::from_fn(|k| core::array::from_fn(|j| v(t * 100_000 + k * W + j))))
            .collect();
        let bias: Vec<[f32; W]> = (0..tiles).map(|t| core::array::from_fn(|j| v(7 + t * W + j))).collect();
        // The same weights as rows of `n` per input, for the loop nest.
        let w: Vec<f32> = (0..$k * l.n).map(|i| panels[(i % l.n) / W][i / l.n][i % W]).collect();
        let b: Vec<f32> = (0..l.n).map(|j| bias[j / W][j % W]).collect();
        let x: Vec<f32> = (0..l.input[0] * l.input[1] * $c).map(|i| v(i + 3)).collect();
        let positions = win.output[0] * win.output[1];
        let (mut y, mut z) = (vec![0.0f32; positions * l.n], vec![0.0f32; positions * l.n]);
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
        run(&mut y);
        direct::<$c>(&w, &b, &x, &mut z, &win, l.n);
        let worst = y.iter().zip(&z).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        assert!(worst < 1e-3, "{}: the kernel and the loop nest differ by {worst}", l.name);
        let flops = 2.0 * (positions * $k * l.n) as f64;
        let t_kernel = median(|| run(&mut y));
        let t_direct = median(|| direct::<$c>(&w, &b, black_box(&x), &mut z, &win, l.n));
        (l.name, flops, t_kernel, t_direct)
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
    let results = [
        layer!(
            Layer { name: "aecmos conv0 3→32 64×160", input: [64, 160], kernel: [3, 3], pads: [1, 1], n: 32 },
            3,
            27
        ),
        layer!(
            Layer { name: "plcmos conv0 1→32 128×257", input: [128, 257], kernel: [3, 3], pads: [0, 1], n: 32 },
            1,
            9
        ),
        layer!(
            Layer { name: "aecmos conv4 32→64 32×80", input: [32, 80], kernel: [3, 3], pads: [1, 1], n: 64 },
            32,
            288
        ),
        layer!(
            Layer { name: "aecmos conv8 64→64 16×40", input: [16, 40], kernel: [3, 3], pads: [1, 1], n: 64 },
            64,
            576
        ),
        layer!(
            Layer { name: "aecmos conv12 64→128 8×20", input: [8, 20], kernel: [3, 3], pads: [1, 1], n: 128 },
            64,
            576
        ),
    ];
    println!(
        "{:<28} {:>10} {:>9} {:>7} {:>12} {:>9}",
        "layer", "kernel µs", "GFLOP/s", "% peak", "loop nest µs", "ratio"
    );
    for (name, flops, tk, td) in results {
        let gf = flops / tk / 1e9;
        let share = peak.map_or(String::from("-"), |(_, p)| format!("{:.0}", 100.0 * gf / p));
        println!("{name:<28} {:>10.1} {gf:>9.1} {share:>7} {:>12.1} {:>9.2}", tk * 1e6, td * 1e6, tk / td);
    }
}
