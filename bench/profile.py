"""Where a real model's time goes, step by step: each step of tests/models/<name> (its f32
IR, the inputs of its case) timed in cellc's generated Rust (through `run_observed`; built as `cargo build --release` builds it, or at
`-C target-cpu=native` with `--rust-native`) and C
(through its `NET_STEP_DONE` hook), the median of each step over the calls, beside the
floating-point operations of the step and the peak rate of fused multiply–adds measured
in the same run (`cellc_bench::machine::fma_loop`). The C is built at `-O3 -march=native`, or
with the flags `--c-opt` gives (`--c-opt=-O2`: what users type, no `-march`).

Usage: python bench/profile.py [--calls N (default 200)] [--c-opt FLAGS] [--rust-native] MODEL_DIR …
Prints a Markdown table per model: the steps that take 1 % of the call or more, the rest
summed.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import models  # noqa: E402

ROOT = models.ROOT

RUST_PROFILE = r"""
#[allow(dead_code, clippy::all)]
mod net { include!("net.rs"); }
use cellc_bench::machine::{Width, fma_loop};
use cellc_runtime::Model;
use std::time::Instant;

fn read(path: &str) -> Vec<f32> {
    let b = std::fs::read(path).expect("input");
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let calls: usize = args[0].parse().expect("calls");
    let outs: Vec<usize> = args[1].split(',').map(|s| s.parse().expect("len")).collect();
    let inputs: Vec<Vec<f32>> = args[2..].iter().map(|p| read(p)).collect();
    let ins: Vec<&[f32]> = inputs.iter().map(Vec::as_slice).collect();
    let mut outputs: Vec<Vec<f32>> = outs.iter().map(|&n| vec![0.0; n]).collect();
    let mut model = Box::<net::Net>::default();
    let n = net::Net::RUN_STEPS.len();
    let mut times = vec![Vec::with_capacity(calls); n];
    let mut spans = vec![0.0f64; n];
    for call in 0..calls + calls / 4 {
        let mut o: Vec<&mut [f32]> = outputs.iter_mut().map(|v| v.as_mut_slice()).collect();
        spans.fill(0.0);
        let mut last = Instant::now();
        model
            .run_observed(&ins, &mut o, |k| {
                spans[k] += last.elapsed().as_nanos() as f64;
                last = Instant::now();
            })
            .expect("run");
        if call >= calls / 4 {
            for (t, s) in times.iter_mut().zip(&spans) {
                t.push(*s);
            }
        }
    }
    let peak = [Width::Zmm, Width::Ymm].into_iter().find(|w| w.available()).map(|w| {
        let iters = 1 << 20;
        let mut t: Vec<f64> = (0..7)
            .map(|_| {
                let s = Instant::now();
                std::hint::black_box(fma_loop(w, iters, std::hint::black_box(0.999), std::hint::black_box(0.001)));
                s.elapsed().as_secs_f64()
            })
            .collect();
        w.fma_flops(iters) as f64 / median(&mut t) / 1e9
    });
    println!("peak\t{}", peak.unwrap_or(0.0));
    for (k, t) in times.iter_mut().enumerate() {
        let (text, flops) = net::Net::RUN_STEPS[k];
        println!("{k}\t{}\t{flops}\t{text}", median(t));
    }
}
"""


def build(case_dir, work, cellc, c_opt, rust_native):
    """The Rust and C profiling programs of one model (the C built with `c_opt`, the Rust at
    `-C target-cpu=native` with `rust_native`); their command lines."""
    bench = ROOT / "bench"
    _, rust, c = models.cellc_binaries(
        case_dir,
        work,
        cellc,
        rust_main=RUST_PROFILE,
        c_main=(bench / "c_profile.c").read_text(),
        deps=f'cellc-bench = {{ path = "{bench}", default-features = false }}\n',
        c_flags=["-DNET_STEP_DONE(k)=net_step_done(k)", "-include", str(bench / "c_profile.h")],
        target="bench-profile",
        c_opt=c_opt,
        rust_native=rust_native,
    )
    return rust, c


def main():
    args = sys.argv[1:]
    calls = 200
    c_opt = ["-O3", "-march=native"]
    rust_native = "--rust-native" in args
    args = [a for a in args if a != "--rust-native"]
    while args and args[0].split("=")[0] in ("--calls", "--c-opt"):
        flag, value, args = (*args[0].split("=", 1), args[1:]) if "=" in args[0] else (args[0], args[1], args[2:])
        if flag == "--calls":
            calls = int(value)
        else:
            c_opt = value.split()
    cellc = os.environ.get("CELLC", str(ROOT / "target" / "release" / "cellc"))
    for arg in args:
        case_dir = Path(arg) if Path(arg).is_dir() else ROOT / "tests" / "models" / arg
        work = Path(tempfile.mkdtemp())
        rust, c = build(case_dir, work, cellc, c_opt, rust_native)
        rust[1] = c[1] = str(calls)
        r = subprocess.run(rust, capture_output=True, text=True, check=True).stdout.splitlines()
        peak = float(r[0].split("\t")[1])
        rows = [line.split("\t", 3) for line in r[1:]]
        c_ns = {int(k): float(t) for k, t in (line.split("\t") for line in
                subprocess.run(c, capture_output=True, text=True, check=True).stdout.splitlines())}
        total_r = sum(float(row[1]) for row in rows)
        total_c = sum(c_ns.values())
        print(f"### {case_dir.name}\n")
        print(f"FMA peak {peak:.1f} GFLOP/s; a call: Rust{' (target-cpu=native)' if rust_native else ''} "
              f"{total_r / 1e3:,.0f} µs, C ({' '.join(c_opt)}) "
              f"{total_c / 1e3:,.0f} µs "
              f"(sums of the steps' medians)\n")
        print("| step | what | Rust µs | Rust GFLOP/s (share of peak) | C µs | C GFLOP/s (share of peak) |")
        print("|---:|---|---:|---:|---:|---:|")
        rest = [0.0, 0.0, 0]

        def rate(flops, ns):
            if flops == 0 or ns == 0:
                return ""
            g = flops / ns
            return f"{g:.1f} ({100 * g / peak:.0f} %)" if peak else f"{g:.1f}"

        for k, ns, flops, text in rows:
            k, ns, flops = int(k), float(ns), int(flops)
            cn = c_ns.get(k, 0.0)
            if max(ns / total_r, cn / max(total_c, 1)) < 0.01:
                rest[0] += ns
                rest[1] += cn
                rest[2] += 1
                continue
            print(f"| {k} | {text} | {ns / 1e3:,.1f} | {rate(flops, ns)} | {cn / 1e3:,.1f} | {rate(flops, cn)} |")
        if rest[2]:
            print(f"| | {rest[2]} other steps | {rest[0] / 1e3:,.1f} | | {rest[1] / 1e3:,.1f} | |")
        print()


if __name__ == "__main__":
    main()
