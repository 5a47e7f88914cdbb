//! Graphs at the edges of the planner, built with `cellc::graph::build`: a gather past its
//! dimension (refused), scalars and whole reductions (compiled in both languages), a cut
//! that leaves a Parameter read only for its shape. (The random graphs are in the
//! conformance crate's `graph_props`, which builds their generated code.)
use cellc::graph::build::{self, origin};
use cellc::graph::{Elem, Fact, Graph, TensorId};
use cellc::ops::{Op, ReduceKind, Unary};
use cellc::vocab::Dim;

/// Applies `op` to `inputs`, which its rule must take.
fn apply(g: &mut Graph, op: Op, inputs: &[TensorId]) -> TensorId {
    build::apply(g, origin("op", "op"), op, inputs).expect("a shape")
}

#[test]
fn a_gather_past_its_dimension_is_refused() {
    // Its copy would read past the data: refused, not compiled.
    let mut g = Graph::new("gather.xml", "gather");
    let x = build::parameter(&mut g, "x", Elem::F32, &[2, 3]);
    for bad in [3, -4] {
        let mut g = g.clone();
        let (i, ax) = (build::ints(&mut g, &[0, bad]), build::ints(&mut g, &[1]));
        let y = apply(&mut g, Op::Gather { batch_dims: 0 }, &[x, i, ax]);
        build::result(&mut g, y, None);
        let err = cellc::model_of(g).expect_err("out of range");
        assert!(err.to_string().contains(&format!("gathers index {bad} of dimension 1")), "{err}");
    }
}

#[test]
fn scalars_and_whole_reductions_compile_in_both_languages() {
    // A scalar Parameter through an elementwise op, and a [2, 3] one reduced to a scalar:
    // steps over tensors of rank 0 (no axes at all) are planned, run and emitted.
    let mut g = Graph::new("scalar.xml", "scalar");
    let s = build::parameter(&mut g, "s", Elem::F32, &[]);
    let x = build::parameter(&mut g, "x", Elem::F32, &[2, 3]);
    let y = apply(&mut g, Op::Unary(Unary::Abs), &[s]);
    let axes = build::ints(&mut g, &[0, 1]);
    let z = apply(&mut g, Op::Reduce { kind: ReduceKind::Mean, keep_dims: false }, &[x, axes]);
    build::result(&mut g, y, Some("r0"));
    build::result(&mut g, z, Some("r1"));
    let m = cellc::model_of(g).expect("compiles");
    let got = cellc::reference::run(&m, &[vec![-2.5], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]).expect("runs");
    assert_eq!(got, vec![vec![2.5], vec![3.5]]);
    let opts = cellc::Options::default();
    let rust = cellc::emit::rust::emit(&m, &opts).expect("Rust");
    assert!(rust.contains("acc / 6"), "the mean divides by the count:\n{rust}");
    cellc::emit::c::emit(&m, &opts, "scalar.h").expect("C");
}

#[test]
fn a_cut_drops_the_parameters_it_read_only_for_their_shape() {
    // x → Exp → y, reshaped to x's own shape: cut at y, x is read only by the ShapeOf,
    // which folds to a constant; the cut model takes y alone.
    let mut g = Graph::new("cut.xml", "cut");
    let x = build::parameter(&mut g, "x", Elem::F32, &[2, 3]);
    let y = apply(&mut g, Op::Unary(Unary::Exp), &[x]);
    g.tensors[y].names = vec!["y".into()];
    g.tensors[y].declared = vec![Dim::Static(2), Dim::Static(3)];
    let s = apply(&mut g, Op::ShapeOf { out: Elem::I64 }, &[x]);
    // The target shape is known once the passes fold the ShapeOf.
    let id = g.add(Op::Reshape { special_zero: false }, origin("z", "Reshape"), vec![Some(y), Some(s)], 1);
    let z = g.nodes[id].outputs[0];
    g.tensors[z].fact = Fact::new(Elem::F32, build::known(&[2, 3]));
    build::result(&mut g, z, None);
    let whole = cellc::model_of(g.clone()).expect("compiles");
    assert_eq!(whole.params.len(), 1);
    assert!(cellc::passes::cut(&mut g, &["y".to_owned()], &[]).is_empty());
    assert_eq!(g.params.len(), 2, "the cut keeps x for its ShapeOf");
    let cut = cellc::model_of(g).expect("compiles");
    let names: Vec<&str> = cut.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["y"]);
}

#[test]
fn a_gather_of_the_fill_alone_reads_nothing_in_c() {
    // Pad [1, 3] by 3 before and −3 after along its last axis: every value is the pad value,
    // so the step reads none of its source, and the C binds no pointer it would not use
    // (an unused variable fails the strict flags the contract promises).
    for n in [3, 40] {
        let mut g = Graph::new("fill.xml", "fill");
        let x = build::parameter(&mut g, "x", Elem::F32, &[1, n]);
        let (b, e) = (build::ints(&mut g, &[0, n as i64]), build::ints(&mut g, &[0, -(n as i64)]));
        let v = build::constant(&mut g, origin("v", "Const"), Elem::F32, &[], cellc::graph::Data::Float(vec![0.5]));
        let y = apply(&mut g, Op::Pad(cellc::ops::pad::PadMode::Constant), &[x, b, e, v]);
        build::result(&mut g, y, Some("y"));
        let m = cellc::model_of(g).expect("compiles");
        assert_eq!(cellc::reference::run(&m, &[vec![1.0; n]]).expect("runs"), vec![vec![0.5; n]]);
        let opts = cellc::Options::default().name(Some("fill".into())).language(cellc::Language::C);
        let files = cellc::emit::c::emit(&m, &opts, "fill.h").expect("C");
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("fill.c"), &files.source).expect("source");
        std::fs::write(dir.path().join("fill.h"), &files.header).expect("header");
        let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let o = std::process::Command::new(compiler)
            .args(["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic", "-c", "fill.c"])
            .current_dir(dir.path())
            .output()
            .expect("run cc");
        assert!(o.status.success(), "{}\n{}", String::from_utf8_lossy(&o.stderr), files.source);
    }
}
