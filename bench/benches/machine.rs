//! The machine's floors (`cellc_bench::machine`), timed by criterion beside the kernels:
//! `fma_zmm`/`fma_ymm` (each iteration [`FMA_ITERS`] rounds of the FMA loop) and `read_l1`,
//! `read_l2`, … `read_memory` (each iteration one pass over a buffer of half that cache
//! level). `bench/report.py` turns them into GFLOP/s and GB/s; the sizes it needs are in
//! `target/criterion/machine/sizes.json`. The group `team` times the threads of a split
//! step with nothing to compute (see [`team`]).
use cellc_bench::machine::{Width, cache_sizes, fma_loop, read_sizes, read_sum};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// Rounds of the FMA loop per timed iteration.
const FMA_ITERS: usize = 10_000;

fn machine(c: &mut Criterion) {
    let mut g = c.benchmark_group("machine");
    let mut sizes = Vec::new();
    for (name, width) in [("fma_zmm", Width::Zmm), ("fma_ymm", Width::Ymm)] {
        if !width.available() {
            continue;
        }
        g.bench_function(name, |b| b.iter(|| fma_loop(width, black_box(FMA_ITERS), black_box(1.0), black_box(1e-9))));
        sizes.push(format!("\"{name}\": {{\"flops\": {}}}", width.fma_flops(FMA_ITERS)));
    }
    let width = if Width::Zmm.available() { Width::Zmm } else { Width::Ymm };
    if width.available() {
        for (level, bytes) in read_sizes() {
            let buf: Vec<f32> = (0..bytes / 4).map(|k| (k % 3) as f32).collect();
            let name = format!("read_{level}");
            g.bench_function(&name, |b| b.iter(|| read_sum(width, black_box(&buf))));
            sizes.push(format!("\"{name}\": {{\"bytes\": {}}}", buf.len() * 4));
        }
    }
    g.finish();
    let caches: Vec<String> = cache_sizes().iter().map(|(l, s)| format!("\"l{l}\": {s}")).collect();
    let json = format!("{{{}, \"caches\": {{{}}}}}\n", sizes.join(", "), caches.join(", "));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"), Into::into);
    let dir = target.join("criterion").join("machine");
    if std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(dir.join("sizes.json"), json)).is_err() {
        eprintln!("cannot write {}", dir.join("sizes.json").display());
    }
}

/// What `cellc_runtime::__private::team` costs a split step, with nothing to compute: `job` is a job of
/// one stage in two parts (posting it, the helper taking its part, the caller seeing it
/// done), `stages_64` one job of 64 stages (each boundary a barrier both threads wait at), so
/// that `(stages_64 − job) / 63` is a barrier's cost.
fn team(c: &mut Criterion) {
    use cellc_runtime::__private::team::run;
    let mut g = c.benchmark_group("team");
    for (name, stages) in [("job", 1), ("stages_64", 64)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                run(&[0, 1, 2], black_box(stages), &mut [(), ()], &mut [], |s| {
                    black_box(s.part);
                })
            })
        });
    }
    g.finish();
}

criterion_group!(benches, machine, team);
criterion_main!(benches);
