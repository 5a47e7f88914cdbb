//! Two threads beside one on a busy machine: A lbr's and F's tiled steps, compiled for one
//! thread and for `--threads 2`, timed step by step (each step its own clock reading) in
//! interleaved blocks, first on a quiet machine, then with a second process spinning on a
//! core (this program started again as that process). Per kernel and condition: the median
//! and the 90th percentile of the steps' times. The figures go to `target/load.json`.
//!
//! Run with `cargo bench -p cellc-bench --bench load`.
use cellc_bench::{gru_lbr_h128_i16, lstm_h128_i16, two_threads};
use std::hint::black_box;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The variable that makes this program the busy process.
const BUSY: &str = "CELLC_BENCH_BUSY";
/// Blocks of steps a kernel gets per condition, and steps a block.
const BLOCKS: usize = 15;
const STEPS: usize = 4000;

/// Spins for at most a minute: the busy process, bounded in case its parent dies.
fn busy() {
    let t = Instant::now();
    let mut x = 0u64;
    while t.elapsed() < Duration::from_secs(60) {
        for _ in 0..1_000_000 {
            x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
}

/// A kernel: one step, its state carried from the step before.
type Step<'a> = Box<dyn FnMut() + 'a>;

/// The median and the 90th percentile of `v`, in ns.
fn quantiles(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[v.len() * 9 / 10])
}

/// Each kernel's step times over `BLOCKS` interleaved blocks.
fn time(kernels: &mut [(&'static str, Step<'_>)]) -> Vec<Vec<f64>> {
    let mut times = vec![Vec::with_capacity(BLOCKS * STEPS); kernels.len()];
    for (_, step) in kernels.iter_mut() {
        for _ in 0..STEPS {
            step();
        }
    }
    for _ in 0..BLOCKS {
        for ((_, step), t) in kernels.iter_mut().zip(&mut times) {
            for _ in 0..STEPS {
                let start = Instant::now();
                step();
                t.push(start.elapsed().as_nanos() as f64);
            }
        }
    }
    times
}

fn main() {
    if std::env::var_os(BUSY).is_some() {
        return busy();
    }
    let x: [f32; 16] = std::array::from_fn(|i| (i as f32 * 0.37).sin());
    let (mut h1, mut h2) = ([0.1f32; 128], [0.1f32; 128]);
    let (mut f1, mut f2) = (([0.1f32; 128], [0.0f32; 128]), ([0.1f32; 128], [0.0f32; 128]));
    let mut rows = Vec::new();
    for condition in ["quiet", "busy"] {
        let mut neighbour: Option<Child> = (condition == "busy").then(|| {
            let exe = std::env::current_exe().expect("this program's path");
            Command::new(exe).env(BUSY, "1").spawn().expect("start the busy process")
        });
        std::thread::sleep(Duration::from_millis(100));
        let mut kernels: Vec<(&'static str, Step<'_>)> = vec![
            (
                "A lbr, one thread",
                Box::new(|| {
                    let h = h1;
                    gru_lbr_h128_i16::tiled(black_box(&x), &h, &mut h1);
                }),
            ),
            (
                "A lbr, two threads",
                Box::new(|| {
                    let h = h2;
                    two_threads::gru_lbr_h128_i16::tiled(black_box(&x), &h, &mut h2);
                }),
            ),
            (
                "F, one thread",
                Box::new(|| {
                    let (h, c) = f1;
                    lstm_h128_i16::tiled(black_box(&x), &h, &c, &mut f1.0, &mut f1.1);
                }),
            ),
            (
                "F, two threads",
                Box::new(|| {
                    let (h, c) = f2;
                    two_threads::lstm_h128_i16::tiled(black_box(&x), &h, &c, &mut f2.0, &mut f2.1);
                }),
            ),
        ];
        let times = time(&mut kernels);
        if let Some(child) = neighbour.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
        for ((label, _), t) in kernels.iter().zip(times) {
            let (median, p90) = quantiles(t);
            println!("{condition:5} {label:20} median {median:8.1} ns  p90 {p90:8.1} ns");
            rows.push(format!(
                "  {{\"condition\": \"{condition}\", \"kernel\": \"{label}\", \"median_ns\": {median:.1}, \"p90_ns\": {p90:.1}}}"
            ));
        }
    }
    assert!(h1 == h2 && f1 == f2, "one thread and two threads differ");
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/load.json");
    std::fs::write(&target, format!("[\n{}\n]\n", rows.join(",\n"))).expect("write target/load.json");
    println!("written: {}", target.display());
}
