//! Sequences. Configuration C, a GRU sequence (H=256, I=256, 1000 steps, batch 1): the
//! generated `run`, which projects the inputs of 8 steps at a time (each weight panel read
//! once per block), against a loop calling the same kernel's `step` once per step, and the
//! generated C's `run` (`-O3 -march=native`), and the `run` of the same sequence compiled with
//! `--threads 2`, in the same run; before timing, they are checked to agree (the two-thread
//! run to the bit). Configuration D, the throughput case (GRU, H=512, I=512, 100 steps,
//! batch 64, time-major): `run_batch`, which steps blocks of rows together, its throughput
//! in FLOPs (2·N·G·H·(I+H) a step); before timing, its rows are checked against runs of one
//! row each.
use cellc_bench::gru_seq_h256_i256::{self, Seq, SeqForward};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const H: usize = 256;
const I: usize = 256;
const L: usize = 1000;

fn inputs() -> Box<[[f32; I]; L]> {
    let rows: Vec<[f32; I]> =
        (0..L).map(|t| core::array::from_fn(|k| (((t * 31 + k * 7) % 23) as f32 - 11.0) * 0.05)).collect();
    rows.into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!("L rows"))
}

fn hoisted(seq: &Seq, x: &[[f32; I]; L], y: &mut [[[f32; H]; L]; 1]) {
    let mut ho = [[0.0f32; H]; 1];
    seq.run(x, &[[0.0; H]; 1], L, y, &mut ho).expect("all the steps");
}

fn hoisted_threads2(
    seq: &cellc_bench::two_threads::gru_seq_h256_i256::Seq,
    x: &[[f32; I]; L],
    y: &mut [[[f32; H]; L]; 1],
) {
    let mut ho = [[0.0f32; H]; 1];
    seq.run(x, &[[0.0; H]; 1], L, y, &mut ho).expect("all the steps");
}

fn step_loop(cell: &SeqForward, x: &[[f32; I]; L], y: &mut [[[f32; H]; L]; 1]) {
    let mut h = [0.0f32; H];
    for (t, xt) in x.iter().enumerate() {
        let mut next = [0.0f32; H];
        cell.step(xt, &h, &mut next);
        y[0][t] = next;
        h = next;
    }
}

fn sequence(c: &mut Criterion) {
    let (seq, cell) = (Seq::new(), SeqForward::new());
    let x = inputs();
    let zeros = || -> Box<[[[f32; H]; L]; 1]> {
        vec![[[0.0f32; H]; L]].into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!("one direction"))
    };
    let (mut a, mut b, mut c_out, mut two) = (zeros(), zeros(), zeros(), zeros());
    let seq2 = cellc_bench::two_threads::gru_seq_h256_i256::Seq::new();
    hoisted(&seq, &x, &mut a);
    hoisted_threads2(&seq2, &x, &mut two);
    assert!(a == two, "one thread and two threads differ");
    step_loop(&cell, &x, &mut b);
    gru_seq_h256_i256::c_run(&x, &mut c_out);
    let differ = |p: &[[[f32; H]; L]; 1], q: &[[[f32; H]; L]; 1]| {
        p[0].iter().flatten().zip(q[0].iter().flatten()).map(|(p, q)| (p - q).abs()).fold(0.0f32, f32::max)
    };
    let err = differ(&a, &b).max(differ(&a, &c_out));
    assert!(err < 1e-4, "hoisted, step-by-step and C runs differ by {err}");
    let mut g = c.benchmark_group("gru_seq_h256_i256_l1000");
    g.sample_size(10);
    g.bench_function("hoisted_projection", |bch| bch.iter(|| hoisted(&seq, black_box(&x), &mut a)));
    g.bench_function("hoisted_projection_threads2", |bch| {
        bch.iter(|| hoisted_threads2(&seq2, black_box(&x), &mut two))
    });
    g.bench_function("step_loop", |bch| bch.iter(|| step_loop(&cell, black_box(&x), &mut b)));
    g.bench_function("c_hoisted_projection", |bch| bch.iter(|| gru_seq_h256_i256::c_run(black_box(&x), &mut c_out)));
    g.finish();
}

/// Configuration D: rows, steps and sizes.
const D_N: usize = 64;
const D_L: usize = 100;
const D_H: usize = 512;
const D_I: usize = 512;

fn batch(c: &mut Criterion) {
    use cellc_bench::gru_seq_h512_i512::Seq as SeqD;
    use cellc_runtime::Major;
    let g = 3 * D_H;
    let scale = 2.0 / ((D_H + D_I) as f32).sqrt();
    let fill = |n: usize, seed: usize, s: f32| -> Vec<f32> {
        (0..n).map(|k| (((k * 7919 + seed) % 1013) as f32 / 506.5 - 1.0) * s).collect()
    };
    // The cell holds its 6 MB of packed weights by value, more than a thread's stack: it is
    // made in place on the heap (`zeroed` is a constant) and filled there.
    let mut seq = Box::new(SeqD::zeroed());
    seq.set_weights(&fill(g * D_I, 1, scale), &fill(g * D_H, 2, scale), &fill(3 * D_H, 3, 0.5))
        .unwrap_or_else(|e| panic!("weights: {e}"));
    let x = fill(D_L * D_N * D_I, 4, 1.0);
    let x: Vec<[f32; D_I]> = x.as_chunks::<D_I>().0.to_vec();
    let (mut h, mut y) = (vec![[0.0f32; D_H]; D_N], vec![[0.0f32; D_H]; D_L * D_N]);
    seq.run_batch(Major::Time, &x, &mut h, None, Some(&mut y)).unwrap_or_else(|e| panic!("{e}"));
    // Row by row, each row its own batch of one: the same numbers.
    for r in [0, 13, D_N - 1] {
        let xr: Vec<[f32; D_I]> = (0..D_L).map(|t| x[t * D_N + r]).collect();
        let (mut hr, mut yr) = (vec![[0.0f32; D_H]; 1], vec![[0.0f32; D_H]; D_L]);
        seq.run_batch(Major::Time, &xr, &mut hr, None, Some(&mut yr)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(hr[0], h[r], "row {r}: batched and single-row runs differ");
    }
    let mut grp = c.benchmark_group("gru_seq_h512_i512_b64_l100");
    grp.sample_size(10);
    grp.throughput(criterion::Throughput::Elements((2 * D_N * g * (D_I + D_H) * D_L) as u64));
    grp.bench_function("run_batch", |bch| {
        bch.iter(|| {
            h.fill([0.0; D_H]);
            seq.run_batch(Major::Time, black_box(&x), &mut h, None, Some(&mut y))
        })
    });
    grp.finish();
}

criterion_group!(benches, sequence, batch);
criterion_main!(benches);
