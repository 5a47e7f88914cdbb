//! ns per step of one cell, batch 1, state carried from step to step: cellc's generated
//! kernels (each strategy, Rust and C compiled with `-O3 -march=native`) against a naive
//! Rust loop implementation of the same cell with the same weights, in the same run. Before
//! timing, each kernel is checked against the naive one on a short sequence.
//! The groups `gru_h16_i1_anatomy` and `gru_h128_i16_anatomy` take configurations B and A
//! apart (see `anatomy_b` and `anatomy_a`). `tiled_threads2` is the tiled kernel split across
//! two threads (`--threads 2`), timed as a caller stepping it sees it.
use cellc_bench::*;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// A cell step on fixed-size arrays.
type Step<const H: usize, const I: usize> = fn(&[f32; I], &[f32; H], &mut [f32; H]);
/// Any cell step, for timing.
type DynStep<'a, const H: usize, const I: usize> = &'a dyn Fn(&[f32; I], &[f32; H], &mut [f32; H]);

fn input<const I: usize>() -> [f32; I] {
    core::array::from_fn(|k| ((k * 7 % 11) as f32 - 5.0) * 0.1)
}

/// Runs `steps` steps of a kernel from a zero state and returns the final state.
fn run<const H: usize, const I: usize>(f: impl Fn(&[f32; I], &[f32; H], &mut [f32; H]), steps: usize) -> [f32; H] {
    let x = input::<I>();
    let (mut h, mut out) = ([0.0f32; H], [0.0f32; H]);
    for _ in 0..steps {
        f(&x, &h, &mut out);
        std::mem::swap(&mut h, &mut out);
    }
    h
}

fn agree<const H: usize>(name: &str, a: &[f32; H], b: &[f32; H]) {
    let err = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
    assert!(err < 1e-4, "{name}: generated and naive kernels differ by {err}");
}

/// Times the naive kernel and `kernels`, each checked first against the naive one, and
/// `rounded` (kernels with 16-bit weights), each checked against the naive kernel on the
/// weights it rounds to.
fn bench_cell<const H: usize, const I: usize>(
    c: &mut Criterion,
    name: &str,
    naive: impl Fn(&[f32; I], &[f32; H], &mut [f32; H]) + Copy,
    kernels: &[(&str, Step<H, I>)],
    rounded: &[(&str, Step<H, I>, DynStep<'_, H, I>)],
) {
    let want = run(naive, 50);
    for &(label, k) in kernels {
        agree(&format!("{name}/{label}"), &run(k, 50), &want);
    }
    for &(label, k, naive_rounded) in rounded {
        agree(&format!("{name}/{label}"), &run(k, 50), &run(naive_rounded, 50));
    }
    let mut g = c.benchmark_group(name);
    let x = input::<I>();
    let mut bench = |label: &str, f: DynStep<'_, H, I>| {
        let (mut h, mut out) = ([0.1f32; H], [0.0f32; H]);
        g.bench_function(label, |b| {
            b.iter(|| {
                f(black_box(&x), &h, &mut out);
                std::mem::swap(&mut h, &mut out);
            })
        });
    };
    bench("naive", &naive);
    for &(label, k) in kernels {
        bench(label, &k);
    }
    for &(label, k, _) in rounded {
        bench(label, &k);
    }
    g.finish();
}

/// Benchmarks configuration `$name` (H, I): the naive kernel against both strategies, in
/// Rust and in C, and the Rust kernels with fast activations (`$fast`: the extra ones).
macro_rules! config {
    ($c:expr, $name:ident, $h:literal, $i:literal, $naive:expr) => {
        config!($c, $name, $h, $i, $naive, [], [])
    };
    ($c:expr, $name:ident, $h:literal, $i:literal, $naive:expr, [$($fast:tt)*]) => {
        config!($c, $name, $h, $i, $naive, [$($fast)*], [])
    };
    ($c:expr, $name:ident, $h:literal, $i:literal, $naive:expr, [$($fast:tt)*], $rounded:expr) => {{
        let naive = $naive;
        bench_cell::<$h, $i>(
            $c,
            stringify!($name),
            |x, h, o| naive.step(x, h, o),
            &[
                ("unrolled", $name::unrolled),
                ("tiled", $name::tiled),
                ("c_unrolled", $name::c_unrolled),
                ("c_tiled", $name::c_tiled),
                ("tiled_fast", fast_activations::$name::tiled),
                $($fast)*
            ],
            &$rounded,
        )
    }};
}

fn to_f16(v: f32) -> f32 {
    half::f16::from_f32(v).to_f32()
}

fn to_bf16(v: f32) -> f32 {
    half::bf16::from_f32(v).to_f32()
}

/// Configuration A (`$name`, GRU H=128, I=16) with f32 and 16-bit weights.
macro_rules! config_a {
    ($c:expr, $name:ident, $lbr:literal, [$($threads:tt)*]) => {{
        let naive =
            |round: fn(f32) -> f32| NaiveGru::<128, 16> { wt: weights(stringify!($name)).rounded(round), lbr: $lbr };
        let (f16, bf16) = (naive(to_f16), naive(to_bf16));
        config!(
            $c,
            $name,
            128,
            16,
            naive(|v| v),
            [$($threads)*],
            [
                ("tiled_f16", half_weights::$name::tiled_f16, &|x: &[f32; 16], h: &[f32; 128], o: &mut [f32; 128]| f16
                    .step(x, h, o)),
                (
                    "tiled_bf16",
                    half_weights::$name::tiled_bf16,
                    &|x: &[f32; 16], h: &[f32; 128], o: &mut [f32; 128]| bf16.step(x, h, o)
                ),
            ]
        )
    }};
}

fn steps(c: &mut Criterion) {
    // A's lone step (two stages of 96 KiB) stays on one thread with `--threads 2`, as E's does.
    config_a!(c, gru_h128_i16, false, []);
    config_a!(c, gru_lbr_h128_i16, true, [("tiled_threads2", two_threads::gru_lbr_h128_i16::tiled)]);
    use fast_activations as f;
    fn gru<const H: usize, const I: usize>(name: &str) -> NaiveGru<H, I> {
        NaiveGru { wt: weights(name), lbr: false }
    }
    config!(c, gru_h16_i1, 16, 1, gru("gru_h16_i1"), [("unrolled_fast", f::gru_h16_i1::unrolled)]);
    config!(c, gru_h8_i4, 8, 4, gru("gru_h8_i4"), [("unrolled_fast", f::gru_h8_i4::unrolled)]);
    config!(c, gru_h12_i2, 12, 2, gru("gru_h12_i2"), [("unrolled_fast", f::gru_h12_i2::unrolled)]);
    config!(c, gru_h4_i2, 4, 2, gru("gru_h4_i2"), [("unrolled_fast", f::gru_h4_i2::unrolled)]);
    config!(c, rnn_h128_i16, 128, 16, NaiveRnn::<128, 16> { wt: weights("rnn_h128_i16") });
    anatomy_b(c);
    anatomy_a(c);
}

/// A's floor (GRU, H=128, I=16): the kernel's product over weights of A's size and layout
/// (8 tiles of 48 lanes, 16 + 128 inputs: 221 KiB as f32, 110 KiB as f16) and nothing else,
/// one row, as a step computes it. Its time is what streaming those weights through the
/// multiply–adds (and, for f16, the conversions) costs here, whatever the step around it does.
fn anatomy_a(c: &mut Criterion) {
    use cellc_runtime::__private::kernel::{Block, Row, Schedule, tiles_acc_rows};
    const K: usize = 144;
    const W: usize = 48;
    const T: usize = 8;
    /// Times the product over `panels`, one row, as `label`.
    fn product<P: Row<W>>(
        g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        label: &str,
        panels: &[[P; K]],
    ) {
        let v: [f32; K] = core::array::from_fn(|k| (k % 13) as f32 * 0.1 - 0.6);
        let mut acc = [[[0.0f32; W]; 1]; T];
        g.bench_function(label, |b| {
            b.iter(|| {
                cellc_runtime::__private::dispatch!(|_L, isa| tiles_acc_rows(
                    &mut acc,
                    panels,
                    core::array::from_ref(black_box(&v)),
                    Block::<1, 8>,
                    // As the step of A takes it: 8 tiles of 48 lanes, 2 side by side.
                    Schedule::<1, 2>,
                    isa
                ));
                black_box(&mut acc);
            })
        });
    }
    let f32_panels: Vec<[[f32; W]; K]> = (0..T)
        .map(|t| core::array::from_fn(|k| core::array::from_fn(|l| ((t * 7 + k * 3 + l) % 17) as f32 * 0.01 - 0.08)))
        .collect();
    let f16_panels: Vec<[[u16; W]; K]> =
        f32_panels.iter().map(|p| p.map(|r| r.map(|w| half::f16::from_f32(w).to_bits()))).collect();
    let mut g = c.benchmark_group("gru_h128_i16_anatomy");
    product(&mut g, "product_only_f32", &f32_panels);
    product(&mut g, "product_only_f16", &f16_panels);
    g.finish();
}

/// Where B's time goes (GRU, H=16, I=1): its kernels with the state carried, as in B; the
/// same calls with the state *not* carried (each step from the same `h`, so consecutive
/// steps overlap and only the instructions' throughput limits them); and a step that does
/// nothing but add the input to the state, which leaves the cost of the call and of the
/// state's trip through memory between steps.
fn anatomy_b(c: &mut Criterion) {
    use fast_activations::gru_h16_i1 as fast;
    let x = input::<1>();
    let mut g = c.benchmark_group("gru_h16_i1_anatomy");
    let mut carried = |label: &str, f: DynStep<'_, 16, 1>| {
        let (mut h, mut out) = ([0.1f32; 16], [0.0f32; 16]);
        g.bench_function(label, |b| {
            b.iter(|| {
                f(black_box(&x), &h, &mut out);
                std::mem::swap(&mut h, &mut out);
            })
        });
    };
    carried("carried_tiled", &gru_h16_i1::tiled);
    carried("carried_tiled_fast", &fast::tiled);
    carried("carried_add_only", &|x, h, o| {
        for (o, h) in o.iter_mut().zip(h) {
            *o = h + x[0];
        }
    });
    // `feed` over blocks of 64 steps: the time of one block, over 64, is the step's cost
    // when the state stays inside one call (a stream processed block by block).
    g.bench_function("feed_64", |b| {
        let cell = gru_h16_i1::tiled_code::Cell::new();
        let xs = [x; 64];
        let (mut h, mut ys) = ([0.1f32; 16], [[0.0f32; 16]; 64]);
        b.iter(|| cell.feed(&mut h, black_box(&xs), &mut ys).expect("lengths"))
    });
    let mut independent = |label: &str, f: DynStep<'_, 16, 1>| {
        let (h, mut out) = ([0.1f32; 16], [0.0f32; 16]);
        g.bench_function(label, |b| b.iter(|| f(black_box(&x), black_box(&h), &mut out)));
    };
    independent("independent_tiled", &gru_h16_i1::tiled);
    independent("independent_tiled_fast", &fast::tiled);
    g.finish();
}

/// Any LSTM step `(x, h, c, out, out_c)`, for timing.
type DynLstmStep<'a> = &'a dyn Fn(
    &[f32; lstm_h128_i16::I],
    &[f32; lstm_h128_i16::H],
    &[f32; lstm_h128_i16::H],
    &mut [f32; lstm_h128_i16::H],
    &mut [f32; lstm_h128_i16::H],
);

/// Configuration F, an LSTM: like [`bench_cell`], with the cell state carried too.
fn bench_lstm(c: &mut Criterion) {
    use lstm_h128_i16::{H, I, Step};
    let naive = NaiveLstm::<H, I> { wt: weights("lstm_h128_i16") };
    let run = |f: DynLstmStep<'_>, steps: usize| {
        let x = input::<I>();
        let (mut h, mut cs, mut out, mut out_c) = ([0.0f32; H], [0.0f32; H], [0.0f32; H], [0.0f32; H]);
        for _ in 0..steps {
            f(&x, &h, &cs, &mut out, &mut out_c);
            std::mem::swap(&mut h, &mut out);
            std::mem::swap(&mut cs, &mut out_c);
        }
        h
    };
    let step =
        |x: &[f32; I], h: &[f32; H], c: &[f32; H], o: &mut [f32; H], oc: &mut [f32; H]| naive.step(x, h, c, o, oc);
    let want = run(&step, 50);
    let kernels: [(&str, Step); 6] = [
        ("unrolled", lstm_h128_i16::unrolled),
        ("tiled", lstm_h128_i16::tiled),
        ("tiled_threads2", two_threads::lstm_h128_i16::tiled),
        ("c_unrolled", lstm_h128_i16::c_unrolled),
        ("c_tiled", lstm_h128_i16::c_tiled),
        ("tiled_fast", fast_activations::lstm_h128_i16::tiled),
    ];
    for (label, k) in kernels {
        agree(&format!("lstm_h128_i16/{label}"), &run(&k, 50), &want);
    }
    let mut g = c.benchmark_group("lstm_h128_i16");
    let x = input::<I>();
    let mut bench = |label: &str, f: DynLstmStep<'_>| {
        let (mut h, mut cs, mut out, mut out_c) = ([0.1f32; H], [0.1f32; H], [0.0f32; H], [0.0f32; H]);
        g.bench_function(label, |b| {
            b.iter(|| {
                f(black_box(&x), &h, &cs, &mut out, &mut out_c);
                std::mem::swap(&mut h, &mut out);
                std::mem::swap(&mut cs, &mut out_c);
            })
        });
    };
    bench("naive", &step);
    for (label, k) in kernels {
        bench(label, &k);
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = steps, bench_lstm
}
criterion_main!(benches);
