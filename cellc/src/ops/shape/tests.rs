//! The shape ops' rules on small cases worked by hand.
use super::*;
use crate::ops::Op;
use crate::ops::infer;

fn ints_fact(v: &[i64]) -> Fact {
    Fact::constant(Elem::I64, vec![Sym::known(v.len() as i64)], Data::Int(v.iter().map(|&x| Sym::known(x)).collect()))
}

#[test]
fn the_shape_subgraph_of_an_exported_gru_folds_with_a_dynamic_batch() {
    let (n, k) = (Sym::symbol(0), Sym::known);
    let x = Fact::new(Elem::F32, vec![n, k(5), k(8)]);
    let s = &infer(&Op::ShapeOf { out: Elem::I64 }, &[Some(&x)], 1).expect("infers")[0];
    let g = &infer(&Op::Gather { batch_dims: 0 }, &[Some(s), Some(&ints_fact(&[0])), Some(&ints_fact(&[0]))], 1)
        .expect("infers")[0];
    assert_eq!(g.value, Some(Data::Int(vec![n])));
    let c = &infer(&Op::Concat { axis: 0 }, &[Some(&ints_fact(&[1])), Some(g), Some(&ints_fact(&[16]))], 1)
        .expect("infers")[0];
    let zero = Fact::constant(Elem::F32, vec![], Data::Float(vec![0.0]));
    let b = &infer(&Op::Broadcast { mode: BroadcastMode::Numpy }, &[Some(&zero), Some(c)], 1).expect("infers")[0];
    assert_eq!(b.shape, Some(vec![k(1), n, k(16)]));
    assert_eq!(b.value, Some(Data::Float(vec![0.0; 16])));
}

#[test]
fn layout_ops_move_values() {
    let k = Sym::known;
    let x = Fact::constant(Elem::F32, vec![k(2), k(3)], Data::Float((0..6).map(f64::from).collect()));
    let t = &infer(&Op::Transpose, &[Some(&x), Some(&ints_fact(&[1, 0]))], 1).expect("infers")[0];
    assert_eq!(t.value, Some(Data::Float(vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0])));
    let s = &infer(
        &Op::Slice,
        &[
            Some(&x),
            Some(&ints_fact(&[-1])),
            Some(&ints_fact(&[i64::MIN])),
            Some(&ints_fact(&[-2])),
            Some(&ints_fact(&[1])),
        ],
        1,
    )
    .expect("infers")[0];
    assert_eq!(s.value, Some(Data::Float(vec![2.0, 0.0, 5.0, 3.0])));
    let r =
        &infer(&Op::Reshape { special_zero: true }, &[Some(&x), Some(&ints_fact(&[0, -1, 1]))], 1).expect("infers")[0];
    assert_eq!(r.shape, Some(vec![k(2), k(3), k(1)]));
    let parts =
        infer(&Op::VariadicSplit, &[Some(&x), Some(&ints_fact(&[1])), Some(&ints_fact(&[1, -1]))], 2).expect("infers");
    assert_eq!(parts[1].value, Some(Data::Float(vec![1.0, 2.0, 4.0, 5.0])));
    let c = &infer(&Op::Concat { axis: 1 }, &[Some(&x), Some(&parts[0])], 1).expect("infers")[0];
    assert_eq!(c.value, Some(Data::Float(vec![0.0, 1.0, 2.0, 0.0, 3.0, 4.0, 5.0, 3.0])));
    assert!(infer(&Op::Reshape { special_zero: false }, &[Some(&x), Some(&ints_fact(&[4]))], 1).is_err());
    // Steps of any size end the slice instead of overflowing.
    assert_eq!(slice_range(3, 1, 3, i64::MAX), [1]);
    assert_eq!(slice_range(3, 1, -4, i64::MIN), [1]);
}
