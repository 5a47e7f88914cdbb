//! Dense heads (a MatMul by constant weights, a bias, an activation): the dense layer cellc
//! fuses them into, against a naive Rust layer with the same weights, side by side.
use cellc_bench::{dense_r1_k128_n1, dense_r1_k256_n256, dense_r21_k32_n600, dense_r21_k600_n40};
use cellc_runtime::Model;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

macro_rules! bench_dense {
    ($c:expr, $($m:ident),*) => {$({
        let (w, b) = $m::weights();
        let x: Vec<f32> = (0..$m::ROWS * $m::K).map(|i| ((i * 37 % 101) as f32 / 50.0) - 1.0).collect();
        let (mut got, mut want) = (vec![0.0f32; $m::ROWS * $m::N], vec![0.0f32; $m::ROWS * $m::N]);
        let mut model = $m::code::Model::new();
        model.run(&[&x], &mut [&mut got]).expect("run");
        $m::naive(&w, &b, &x, &mut want);
        let worst = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "{}: the layers differ by {worst}", stringify!($m));
        let mut g = $c.benchmark_group(stringify!($m));
        g.bench_function("cellc", |bn| bn.iter(|| model.run(&[black_box(&x)], &mut [&mut got]).expect("run")));
        g.bench_function("naive", |bn| bn.iter(|| $m::naive(&w, &b, black_box(&x), &mut want)));
        g.finish();
    })*};
}

fn dense(c: &mut Criterion) {
    bench_dense!(c, dense_r1_k128_n1, dense_r1_k256_n256, dense_r21_k32_n600, dense_r21_k600_n40);
}

criterion_group!(benches, dense);
criterion_main!(benches);
