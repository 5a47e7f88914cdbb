use super::*;
use crate::simd::Portable;
use std::{format, vec, vec::Vec};

/// The product from the definition: each output from zero over `k` in order, as `isa`
/// multiplies and adds.
fn reference<I: Isa>(p: &Product, a: &[f32], b: &[f32], dst: &mut [f32], isa: I) {
    for i in 0..p.m {
        for j in 0..p.n {
            let mut s = 0.0;
            for q in 0..p.k {
                s = isa.mul_add(s, a[i * p.a[0] + q * p.a[1]], b[q * p.b_row + j]);
            }
            dst[i * p.dst_row + j] = s;
        }
    }
}

/// The kernel at `isa` against the reference at the same level, bit for bit, on operands
/// laid out with gaps (strides past the sizes), and nothing written outside the outputs.
fn check_at<I: Isa>(p: &Product, isa: I, what: &str) {
    let v = |i: usize| ((i as f32) * 0.37).sin() + 0.25;
    let len = |axes: &[(usize, usize)]| Product::span(axes).expect("fits");
    let a: Vec<f32> = (0..len(&[(p.m, p.a[0]), (p.k, p.a[1])])).map(v).collect();
    let b: Vec<f32> = (0..len(&[(p.k, p.b_row), (p.n, 1)])).map(|i| v(i + 5000)).collect();
    let size = len(&[(p.m, p.dst_row), (p.n, 1)]);
    let (mut got, mut want) = (vec![f32::NAN; size + 3], vec![f32::NAN; size + 3]);
    product(p, &a, &b, &mut got[..size], isa);
    reference(p, &a, &b, &mut want[..size], isa);
    let bits = |y: &[f32]| y.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(&want), "{what}: {p:?}");
}

/// At the portable level and at every level this CPU has.
fn check(p: Product) {
    at_every_level!(|isa, what| check_at(&p, isa, what));
}

#[test]
fn every_output_sums_its_row_and_column_in_order() {
    // Rows around each block's height (12, 6, 4, 1) and columns around each strip's width
    // (2 vectors of 16 or 8, one, a partial one), contraction lengths of 1 and more.
    for m in [1, 3, 4, 5, 6, 11, 12, 13, 16, 25] {
        for n in [1, 2, 7, 8, 9, 16, 17, 31, 32, 33, 48, 50] {
            for k in [1, 3, 16] {
                check(Product { m, k, n, a: [k, 1], b_row: n, dst_row: n });
            }
        }
    }
}

#[test]
fn strided_operands_are_read_in_place() {
    // `a` transposed (k rows apart), gaps between the rows of `b` and of `dst`.
    check(Product { m: 7, k: 5, n: 19, a: [1, 7], b_row: 23, dst_row: 20 });
    check(Product { m: 13, k: 9, n: 40, a: [11, 1], b_row: 41, dst_row: 45 });
    // One column: a matrix–vector product.
    check(Product { m: 9, k: 33, n: 1, a: [33, 1], b_row: 1, dst_row: 1 });
}

#[test]
fn short_slices_and_empty_products_write_nothing_or_zeros() {
    let p = Product { m: 2, k: 3, n: 4, a: [3, 1], b_row: 4, dst_row: 4 };
    let (a, b) = (vec![1.0; 6], vec![1.0; 12]);
    for (la, lb, ld) in [(5, 12, 8), (6, 11, 8), (6, 12, 7)] {
        let mut dst = vec![f32::NAN; ld];
        product(&p, &a[..la], &b[..lb], &mut dst, Portable);
        assert!(dst.iter().all(|v| v.is_nan()), "{}", format!("lengths {la} {lb} {ld}"));
    }
    let mut dst = vec![f32::NAN; 8];
    product(&Product { k: 0, ..p }, &[], &[], &mut dst, Portable);
    assert_eq!(dst, [0.0; 8], "a sum of nothing is zero");
    let huge = Product { m: usize::MAX, ..p };
    product(&huge, &a, &b, &mut dst, Portable);
    assert_eq!(dst, [0.0; 8], "sizes that overflow: nothing written");
}
