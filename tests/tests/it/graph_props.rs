//! Random graphs of the ops around the cells (`cellc_conformance::graphs`), three ways:
//! folded as constants (each op's own evaluation, which shares nothing with the planner and
//! the steps), planned into steps and run by the reference interpreter, and compiled to
//! Rust and C, built for real and run. All must give the same values.
//!
//! The fold against the reference runs 400 graphs in `cargo test`. The generated code is
//! long to build, so `cargo test` leaves it out (`--ignored` runs it): it draws the first
//! 16 graphs from a fixed seed, or `CELLC_GRAPH_CASES=N` graphs from `CELLC_PROPERTY_SEED`
//! (`.ci/run` draws a fresh seed and takes 100), all built as one scratch crate and one C
//! program.
use cellc::graph::build;
use cellc::graph::{Data, Graph};
use cellc::ops::Binary;
use cellc::ops::Op;
use cellc::ops::scatter::Scatter;
use cellc::{Language, Options, Strategy as Kernel};
use cellc_conformance::case::{read_data, write_f32};
use cellc_conformance::graphs::random_graph;
use cellc_conformance::scratch::{Job, Scratch};
use cellc_conformance::{max_abs_err, tolerance_used};
use proptest::prelude::*;

/// The Results' values by folding: each Parameter replaced by a constant of its input.
fn folded(mut g: Graph, inputs: &[Vec<f64>]) -> Vec<Vec<f64>> {
    for (k, &p) in g.params.clone().iter().enumerate() {
        g.nodes[p].op = Op::Const { src: None };
        let t = g.nodes[p].outputs[0];
        g.tensors[t].fact.value = Some(Data::Float(inputs[k].clone()));
    }
    g.params.clear();
    let diags = cellc::passes::fold(&mut g);
    assert!(diags.is_empty(), "{diags:?}");
    g.results
        .iter()
        .map(|&r| {
            let t = g.nodes[r].inputs[0].expect("input");
            g.tensors[t].fact.value.as_ref().and_then(Data::floats).expect("folded")
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
    #[test]
    fn planned_steps_compute_what_the_ops_define(seed in any::<u64>()) {
        let (g, inputs) = random_graph(seed);
        let want = folded(g.clone(), &inputs);
        let m = match cellc::model_of(g) {
            Ok(m) => m,
            Err(d) => return Err(TestCaseError::fail(format!("refused: {d}"))),
        };
        let got = cellc::reference::run(&m, &inputs).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            prop_assert_eq!(g.len(), w.len());
            for (a, b) in g.iter().zip(w) {
                // Both round each op to f32; the reference sums products in another order.
                // NaN on both sides is agreement: an average excluding padding over a last
                // window (rounding up) past the data has no value to count, as in OpenVINO.
                let same = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-5 * (1.0 + b.abs());
                prop_assert!(same, "{} vs {}", a, b);
            }
        }
    }
}

#[test]
fn the_random_graphs_hold_every_window_and_gather_op() {
    // A generator whose attributes its ops refuse would test nothing: over the seeds the
    // property test draws from, each kind is made, transposed convolutions given their
    // output shape and reductions of scatters among them.
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for seed in 0..400u64 {
        let (g, _) = random_graph(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        for n in &g.nodes {
            let kind = match &n.op {
                Op::Conv(a) if a.transposed && n.inputs.len() == 3 => "transposed convolution to a shape",
                Op::Conv(a) if a.transposed => "transposed convolution",
                Op::Conv(a) if a.grouped => "grouped convolution",
                // Rows of 16 positions and more: what the planar kernel takes.
                Op::Conv(_) if long_rows(&g, n) => "convolution over long rows",
                Op::Conv(_) => "convolution",
                Op::Pool(_) => "pool",
                Op::Pad(_) => "pad",
                Op::Norm(_) => "norm",
                Op::Binary(Binary::PRelu) => "prelu",
                Op::Einsum(_) => "einsum",
                Op::Scatter(Scatter::NdReduce(_)) => "scatter with a reduction",
                Op::Scatter(_) => "scatter",
                Op::Interpolate(_) => "interpolate",
                _ => continue,
            };
            *seen.entry(kind).or_default() += 1;
        }
    }
    for kind in [
        "transposed convolution to a shape",
        "transposed convolution",
        "grouped convolution",
        "convolution over long rows",
        "convolution",
        "pool",
        "pad",
        "norm",
        "prelu",
        "einsum",
        "scatter with a reduction",
        "scatter",
        "interpolate",
    ] {
        assert!(seen.get(kind).is_some_and(|&n| n >= 3), "{kind}: {seen:?}");
    }
}

/// Whether node `n`'s output (a convolution's) has rows of 16 values or more.
fn long_rows(g: &cellc::graph::Graph, n: &cellc::graph::Node) -> bool {
    let out = n.outputs.first().and_then(|&t| g.tensors[t].fact.shape.as_ref());
    out.and_then(|s| s.last()).and_then(|d| d.value()).is_some_and(|w| w >= 16)
}

/// The graphs drawn when `CELLC_GRAPH_CASES` does not say.
const CASES: usize = 16;

#[test]
#[ignore = "long (builds generated code in release): .ci/run runs it"]
fn generated_code_computes_what_the_reference_does_on_random_graphs() {
    let cases = std::env::var("CELLC_GRAPH_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(CASES);
    let seed = match std::env::var("CELLC_PROPERTY_SEED").ok().and_then(|s| s.trim().parse::<u64>().ok()) {
        Some(seed) => {
            println!("graphs drawn from seed {seed}: again with CELLC_PROPERTY_SEED={seed} CELLC_GRAPH_CASES={cases}");
            seed
        }
        None => 0x5eed,
    };
    let scratch = Scratch::no_std("graph_props");
    let data = scratch.data_dir("graphs").expect("data dir");
    let (mut sources, mut c_sources, mut jobs, mut expected, mut seeds) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for k in 0..cases {
        let s = seed ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let (g, inputs) = random_graph(s);
        let model = cellc::model_of(g).unwrap_or_else(|d| panic!("graph of seed {s}: refused: {d}"));
        let want = cellc::reference::run(&model, &inputs).unwrap_or_else(|e| panic!("graph of seed {s}: {e}"));
        // Each kernel strategy in turn, so that both are built over the graphs.
        let strategy = [Kernel::Auto, Kernel::Tiled, Kernel::Unrolled][k % 3];
        let opts = Options::default().name(Some("Model".into())).strategy(strategy);
        sources.push(cellc::emit::rust::emit(&model, &opts).unwrap_or_else(|d| panic!("seed {s}: {d}")));
        let c_opts = opts.name(Some(format!("m{k}"))).language(Language::C);
        c_sources.push(
            cellc::emit::c::emit(&model, &c_opts, &format!("m{k}.h")).unwrap_or_else(|d| panic!("seed {s}: {d}")),
        );
        let mut job = Job::single(k, Vec::new(), Vec::new());
        for (i, v) in inputs.iter().enumerate() {
            let p = data.join(format!("{k}_in{i}.f32"));
            write_f32(&p, &v.iter().map(|&x| x as f32).collect::<Vec<_>>()).expect("write input");
            job.inputs.push(p);
        }
        for (o, w) in want.iter().enumerate() {
            job.outputs.push((data.join(format!("{k}_out{o}.f32")), w.len()));
        }
        jobs.push(job);
        expected.push(want);
        seeds.push(s);
    }
    let c_jobs = scratch.run_rust_and_c(&sources, &c_sources, &jobs).unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    for (lang, jobs) in [("Rust", &jobs), ("C", &c_jobs)] {
        for (k, want) in expected.iter().enumerate() {
            for (o, ((path, _), want)) in jobs[k].outputs.iter().zip(want).enumerate() {
                let got = read_data(path).expect("output written");
                // Both sides round every op to f32; sums run in other orders (tiles, lanes,
                // fused multiply-adds), each moving a value by a few ULPs of the largest term.
                let scale = want.iter().filter(|v| v.is_finite()).fold(1.0f64, |m, v| m.max(v.abs()));
                let used = tolerance_used(&got, want, 1e-5 * scale, 16.0);
                if used > 1.0 {
                    failures.push(format!(
                        "{lang}, graph of seed {} (CELLC_PROPERTY_SEED={seed}, case {k}), output {o}: max |err| {:.3e} \
                         (scale {scale:.2})",
                        seeds[k],
                        max_abs_err(&got, want)
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} outputs differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn a_graph_built_with_the_helpers_compiles() {
    // The helpers the tests build graphs with give a graph the pipeline takes whole.
    let mut g = Graph::new("built.xml", "built");
    let x = build::parameter(&mut g, "x", cellc::graph::Elem::F32, &[2, 3]);
    let axes = build::ints(&mut g, &[1]);
    let op = Op::Reduce { kind: cellc::ops::ReduceKind::Sum, keep_dims: false };
    let y = build::apply(&mut g, build::origin("sum", "ReduceSum"), op, &[x, axes]).expect("infers");
    build::result(&mut g, y, Some("y"));
    let m = cellc::model_of(g).expect("compiles");
    let got = cellc::reference::run(&m, &[vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]).expect("runs");
    assert_eq!(got, vec![vec![6.0, 15.0]]);
}
