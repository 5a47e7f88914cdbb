//! ns per step of a GRU sequence (H=256, I=256, 1000 steps, batch 1): the generated `run`,
//! which projects the inputs of 8 steps at a time (each weight panel read once per block),
//! against a loop calling the same kernel's `step` once per step, and the generated C's
//! `run` (`-O3 -march=native`), in the same run. Before timing, the three are checked to
//! agree.
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
    seq.run(x, &[[0.0; H]; 1], L, y, &mut ho);
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
    let (mut a, mut b, mut c_out) = (zeros(), zeros(), zeros());
    hoisted(&seq, &x, &mut a);
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
    g.bench_function("step_loop", |bch| bch.iter(|| step_loop(&cell, black_box(&x), &mut b)));
    g.bench_function("c_hoisted_projection", |bch| bch.iter(|| gru_seq_h256_i256::c_run(black_box(&x), &mut c_out)));
    g.finish();
}

criterion_group!(benches, sequence);
criterion_main!(benches);
