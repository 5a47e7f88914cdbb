//! Generates the benchmarked kernels with the cellc library: each configuration with each
//! strategy, as Rust and as C, from the same deterministic weights, which are also written
//! raw for the naive baseline to read. The C is compiled as a C user would build it for
//! speed: `-std=c99 -O3 -march=native`.
use cellc::ir::CellKind;
use cellc::ir::verify::Verified as Model;
use cellc::{Language, Options, Strategy, WeightType};
use std::path::{Path, PathBuf};

/// (name, kind, hidden, input)
const CONFIGS: [(&str, CellKind, usize, usize); 9] = [
    ("gru_h128_i16", CellKind::Gru { linear_before_reset: false }, 128, 16),
    ("gru_lbr_h128_i16", CellKind::Gru { linear_before_reset: true }, 128, 16),
    ("gru_h16_i1", CellKind::Gru { linear_before_reset: false }, 16, 1),
    // B as RTNeural computes a GRU (Keras's `reset_after`), weights drawn as its benchmark draws them.
    ("gru_lbr_h16_i1", CellKind::Gru { linear_before_reset: true }, 16, 1),
    ("rnn_h128_i16", CellKind::Rnn, 128, 16),
    ("gru_h8_i4", CellKind::Gru { linear_before_reset: false }, 8, 4),
    ("gru_h12_i2", CellKind::Gru { linear_before_reset: false }, 12, 2),
    ("gru_h4_i2", CellKind::Gru { linear_before_reset: false }, 4, 2),
    ("lstm_h128_i16", CellKind::Lstm, 128, 16),
];

fn values(seed: u64, n: usize, scale: f32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
        })
        .collect()
}

fn write_raw(path: &Path, v: &[f32]) {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(path, bytes).expect("write weights");
}

/// A model of one cell named `name`, built with the graph API as the IR front-end reads
/// one and compiled through the passes and the check: `X` (`[rows, I]`, or `[rows, steps,
/// I]` for a forward sequence with every row `steps` long), `H` (and `C`), the cell over
/// constant weights `w`, `r`, `b` in OpenVINO's layout and default activations, and one
/// Result `Y`, its first output. `rows` is `None` for a dynamic batch.
fn cell_model(
    name: &str,
    kind: CellKind,
    (h, i): (usize, usize),
    rows: Option<usize>,
    steps: Option<usize>,
    [w, r, b]: [Vec<f32>; 3],
) -> Model {
    use cellc::graph::{Data, Elem, Fact, Graph, Sym};
    use cellc::ops::{CellAttrs, Op};
    use cellc::vocab::{CellOp, Dim as Declared, Origin};
    let origin = |n: &str, op: &str| Origin { pos: None, name: n.into(), op: op.into() };
    let mut g = Graph::new(&format!("{name}.xml"), name);
    let batch = rows.map_or(Declared::Dynamic, |n| Declared::Static(n as u64));
    let lead: Vec<usize> = steps.into_iter().collect();
    let param = |g: &mut Graph, n: &str, rest: &[usize]| {
        let shape: Vec<Declared> =
            std::iter::once(batch).chain(rest.iter().map(|&d| Declared::Static(d as u64))).collect();
        let id = g.add(Op::Parameter { elem: Elem::F32, shape: shape.clone() }, origin(n, "Parameter"), Vec::new(), 1);
        let t = g.nodes[id].outputs[0];
        let dims = g.declare_shape(n, None, &shape);
        g.tensors[t].fact = Fact::new(Elem::F32, dims);
        g.tensors[t].names = vec![n.into()];
        g.params.push(id);
        t
    };
    let constant = |g: &mut Graph, elem: Elem, dims: &[usize], value: Data| {
        let id = g.add(Op::Const { src: None }, origin("c", "Const"), Vec::new(), 1);
        let t = g.nodes[id].outputs[0];
        g.tensors[t].fact = Fact::constant(elem, dims.iter().map(|&d| Sym::known(d as i64)).collect(), value);
        t
    };
    let floats = |v: &[f32]| Data::Float(v.iter().map(|&x| f64::from(x)).collect());
    let per_dir = |rest: &[usize]| -> Vec<usize> { steps.map(|_| 1).into_iter().chain(rest.iter().copied()).collect() };
    let x = param(&mut g, "X", &[lead.as_slice(), &[i]].concat());
    let mut inputs = vec![x, param(&mut g, "H", &per_dir(&[h]))];
    if kind.has_cell_state() {
        inputs.push(param(&mut g, "C", &per_dir(&[h])));
    }
    if let Some(l) = steps {
        let lengths = Data::Int(vec![Sym::known(l as i64)]);
        inputs.push(constant(&mut g, Elem::I32, &[1], lengths));
    }
    let gh = kind.gates() * h;
    inputs.push(constant(&mut g, Elem::F32, &per_dir(&[gh, i]), floats(&w)));
    inputs.push(constant(&mut g, Elem::F32, &per_dir(&[gh, h]), floats(&r)));
    inputs.push(constant(&mut g, Elem::F32, &per_dir(&[kind.bias_blocks() * h]), floats(&b)));
    let (op, lbr) = match kind {
        CellKind::Gru { linear_before_reset } => (CellOp::Gru, linear_before_reset),
        CellKind::Rnn => (CellOp::Rnn, false),
        CellKind::Lstm => (CellOp::Lstm, false),
    };
    let attrs = CellAttrs {
        op,
        sequence: steps.is_some(),
        direction: Ok(cellc::ir::Direction::Forward),
        hidden_size: h as i64,
        activations: cellc::vocab::resolve_activations(kind, None, &[], &[]),
        clip: Ok(None),
        linear_before_reset: lbr,
        layout: Default::default(),
        attr_pos: Vec::new(),
    };
    let outputs = usize::from(steps.is_some()) + if kind.has_cell_state() { 2 } else { 1 };
    let layer = if steps.is_some() { "seq" } else { "cell" };
    let cell =
        g.add(Op::Cell(Box::new(attrs)), origin(layer, kind.op()), inputs.into_iter().map(Some).collect(), outputs);
    let y = g.nodes[cell].outputs[0];
    let result = g.add(Op::Result, origin("Y", "Result"), vec![Some(y)], 0);
    g.results.push(result);
    g.result_names.push(Some("Y".into()));
    cellc::model_of(g).unwrap_or_else(|d| panic!("{name}: {d}"))
}

/// Configuration C: a GRU sequence, H=256, I=256, 1000 steps, batch 1, the hoisted input
/// projection case, on one thread and on two. Returns the path of its C source.
fn sequence(out: &Path) -> PathBuf {
    let (h, i) = (256, 256);
    let g = 3 * h;
    let scale = 2.0 / ((h + i) as f32).sqrt();
    let weights = [values(71, g * i, scale), values(73, g * h, scale), values(79, 3 * h, 0.5)];
    let model =
        cell_model("gru_seq", CellKind::Gru { linear_before_reset: false }, (h, i), Some(1), Some(1000), weights);
    // C as RTNeural computes a GRU (`linear_before_reset`), for the side-by-side bench.
    let lbr = [values(81, g * i, scale), values(83, g * h, scale), values(89, 4 * h, 0.5)];
    for (end, v) in ["w", "r", "b"].iter().zip(&lbr) {
        write_raw(&out.join(format!("gru_lbr_seq_h256_i256.{end}")), v);
    }
    let lbr_model =
        cell_model("gru_lbr_seq", CellKind::Gru { linear_before_reset: true }, (h, i), Some(1), Some(1000), lbr);
    let opts = Options::default().name(Some("Model".into())).strategy(Strategy::Tiled);
    let code = cellc::emit::rust::emit(&model, &opts).unwrap_or_else(|d| panic!("{d}"));
    std::fs::write(out.join("gru_seq_h256_i256.rs"), code).expect("write code");
    let opts = opts.threads(cellc::Threads::new(2).expect("a valid count"));
    let code = cellc::emit::rust::emit(&model, &opts).unwrap_or_else(|d| panic!("{d}"));
    std::fs::write(out.join("gru_seq_h256_i256_threads2.rs"), code).expect("write code");
    let opts = Options::default().name(Some("Model".into())).strategy(Strategy::Tiled);
    let code = cellc::emit::rust::emit(&lbr_model, &opts).unwrap_or_else(|d| panic!("{d}"));
    std::fs::write(out.join("gru_lbr_seq_h256_i256.rs"), code).expect("write code");
    c_files(out, &model, "gru_seq_h256_i256_c", Strategy::Tiled)
}

/// Configuration D: a GRU sequence, H=512, I=512, 100 steps, any batch (64 in the bench),
/// with its weights given at run time (embedded, its 6 MB of tables would be 25 MB of source;
/// the zeros here only give the shapes).
fn batch_sequence(out: &Path) {
    let (h, i) = (512, 512);
    let weights = [vec![0.0; 3 * h * i], vec![0.0; 3 * h * h], vec![0.0; 3 * h]];
    let model = cell_model("gru_seq_d", CellKind::Gru { linear_before_reset: false }, (h, i), None, Some(100), weights);
    let opts = Options::default()
        .name(Some("Model".into()))
        .strategy(Strategy::Tiled)
        .weights_mode(cellc::WeightsMode::Runtime);
    let code = cellc::emit::rust::emit(&model, &opts).unwrap_or_else(|d| panic!("{d}"));
    std::fs::write(out.join("gru_seq_h512_i512.rs"), code).expect("write code");
}

/// Dense heads: (name, rows, K, N, activation).
const DENSE: [(&str, usize, usize, usize, cellc::ops::Unary); 4] = [
    ("dense_r1_k128_n1", 1, 128, 1, cellc::ops::Unary::Sigmoid),
    ("dense_r1_k256_n256", 1, 256, 256, cellc::ops::Unary::Tanh),
    ("dense_r21_k32_n600", 21, 32, 600, cellc::ops::Unary::Relu),
    ("dense_r21_k600_n40", 21, 600, 40, cellc::ops::Unary::Relu),
];

/// A model `act(x · W + b)` as the IR front-end reads one (MatMul, Add, activation), built
/// with the graph API and compiled through the passes (which fuse it into a dense layer);
/// its `W` (`[K, N]`, row-major) and `b` written raw for the naive baseline.
fn dense(out: &Path, (name, rows, k, n, act): (&str, usize, usize, usize, cellc::ops::Unary), seed: u64) {
    use cellc::graph::{Data, Elem, Fact, Graph, Sym};
    use cellc::ops::{Binary, Op};
    let origin = |n: &str| cellc::vocab::Origin { pos: None, name: n.into(), op: n.into() };
    let (w, b) = (values(seed, k * n, 1.0 / (k as f32).sqrt()), values(seed + 1, n, 0.5));
    write_raw(&out.join(format!("{name}.w")), &w);
    write_raw(&out.join(format!("{name}.b")), &b);
    let mut g = Graph::new(&format!("{name}.xml"), name);
    let known = |v: &[usize]| v.iter().map(|&d| Sym::known(d as i64)).collect::<Vec<_>>();
    let shape = vec![cellc::vocab::Dim::Static(rows as u64), cellc::vocab::Dim::Static(k as u64)];
    let p = g.add(Op::Parameter { elem: Elem::F32, shape }, origin("x"), Vec::new(), 1);
    let x = g.nodes[p].outputs[0];
    g.tensors[x].fact = Fact::new(Elem::F32, known(&[rows, k]));
    g.tensors[x].names = vec!["x".into()];
    g.params.push(p);
    let constant = |g: &mut Graph, dims: &[usize], v: &[f32]| {
        let id = g.add(Op::Const { src: None }, origin("c"), Vec::new(), 1);
        let t = g.nodes[id].outputs[0];
        g.tensors[t].fact = Fact::constant(Elem::F32, known(dims), Data::Float(v.iter().map(|&x| x as f64).collect()));
        t
    };
    let (wt, bt) = (constant(&mut g, &[k, n], &w), constant(&mut g, &[n], &b));
    let apply = |g: &mut Graph, op: Op, ins: Vec<usize>| {
        let facts: Vec<Option<&Fact>> = ins.iter().map(|&t| Some(&g.tensors[t].fact)).collect();
        let fact = cellc::ops::infer(&op, &facts, 1).expect("valid").remove(0);
        let id = g.add(op, origin("op"), ins.into_iter().map(Some).collect(), 1);
        let t = g.nodes[id].outputs[0];
        g.tensors[t].fact = fact;
        t
    };
    let y = apply(&mut g, Op::MatMul { ta: false, tb: false }, vec![x, wt]);
    let y = apply(&mut g, Op::Binary(Binary::Add), vec![y, bt]);
    let y = apply(&mut g, Op::Unary(act), vec![y]);
    let r = g.add(Op::Result, origin("y"), vec![Some(y)], 0);
    g.results.push(r);
    g.result_names.push(Some("y".into()));
    let model = cellc::model_of(g).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(model.denses.len(), 1, "{name}: one dense layer");
    let opts = Options::default().name(Some("Model".into()));
    let code = cellc::emit::rust::emit(&model, &opts).unwrap_or_else(|d| panic!("{d}"));
    std::fs::write(out.join(format!("{name}.rs")), code).expect("write code");
}

/// Writes the C of `model` with identifiers prefixed `name`; returns the source's path.
fn c_files(out: &Path, model: &Model, name: &str, strategy: Strategy) -> PathBuf {
    let opts = Options::default().name(Some(name.into())).strategy(strategy).language(Language::C);
    let files = cellc::emit::c::emit(model, &opts, &format!("{name}.h")).unwrap_or_else(|d| panic!("{d}"));
    let source = out.join(format!("{name}.c"));
    std::fs::write(out.join(format!("{name}.h")), files.header).expect("write header");
    std::fs::write(&source, files.source).expect("write source");
    source
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // Without the kernels (`--no-default-features`: the machine's floors and the kernel
    // benchmarks alone), nothing to generate.
    if std::env::var_os("CARGO_FEATURE_KERNELS").is_none() {
        println!("cargo::rustc-check-cfg=cfg(rtneural)");
        return;
    }
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    let out = Path::new(&out);
    let mut c_sources = Vec::new();
    for (k, (name, kind, h, i)) in CONFIGS.into_iter().enumerate() {
        let g = kind.gates() * h;
        // RTNeural's benchmark draws every weight and bias from [-1, 1].
        let peer_drawn = name == "gru_lbr_h16_i1";
        let scale = if peer_drawn { 1.0 } else { 2.0 / ((h + i) as f32).sqrt() };
        let w = values(11 + k as u64, g * i, scale);
        let r = values(23 + k as u64, g * h, scale);
        let b = values(37 + k as u64, kind.bias_blocks() * h, if peer_drawn { 1.0 } else { 0.5 });
        write_raw(&out.join(format!("{name}.w")), &w);
        write_raw(&out.join(format!("{name}.r")), &r);
        write_raw(&out.join(format!("{name}.b")), &b);
        let lstm = kind.has_cell_state();
        let model = cell_model(name, kind, (h, i), Some(1), None, [w, r, b]);
        for strategy in [Strategy::Unrolled, Strategy::Tiled] {
            let opts = Options::default().name(Some("Model".into())).strategy(strategy);
            let code = cellc::emit::rust::emit(&model, &opts).unwrap_or_else(|d| panic!("{d}"));
            std::fs::write(out.join(format!("{name}_{}.rs", strategy.name())), code).expect("write code");
            c_sources.push(c_files(out, &model, &format!("{name}_c_{}", strategy.name()), strategy));
            // Fast activations: tiled everywhere, unrolled where it is small.
            if strategy == Strategy::Tiled || h <= 16 {
                let opts = opts.fast_activations(true);
                let code = cellc::emit::rust::emit(&model, &opts).unwrap_or_else(|d| panic!("{d}"));
                std::fs::write(out.join(format!("{name}_{}_fast.rs", strategy.name())), code).expect("write code");
            }
        }
        // The H=128 cells whose lone steps split (A lbr, F) also run across two threads.
        if matches!(name, "gru_lbr_h128_i16" | "lstm_h128_i16") {
            let opts = Options::default()
                .name(Some("Model".into()))
                .strategy(Strategy::Tiled)
                .threads(cellc::Threads::new(2).expect("a valid count"));
            let code = cellc::emit::rust::emit(&model, &opts).unwrap_or_else(|d| panic!("{d}"));
            // One job for `feed`'s blocks, one each for `step` and `step_projected`.
            let jobs = code.matches("::cellc_runtime::__private::team::run").count();
            assert!(jobs >= 3, "{name}: a lone step on two threads is not split ({jobs} jobs)");
            std::fs::write(out.join(format!("{name}_tiled_threads2.rs")), code).expect("write code");
        }
        // Configuration A also with 16-bit weights.
        if h == 128 && i == 16 && !lstm && kind.gates() == 3 {
            for wt in [WeightType::F16, WeightType::Bf16] {
                let opts = Options::default().name(Some("Model".into())).strategy(Strategy::Tiled).weight_type(wt);
                let code = cellc::emit::rust::emit(&model, &opts).unwrap_or_else(|d| panic!("{d}"));
                std::fs::write(out.join(format!("{name}_tiled_{}.rs", wt.name())), code).expect("write code");
            }
        }
    }
    c_sources.push(sequence(out));
    batch_sequence(out);
    for (k, d) in DENSE.into_iter().enumerate() {
        dense(out, d, 101 + 2 * k as u64);
    }
    cc::Build::new()
        .files(&c_sources)
        .include(out)
        .std("c99")
        .opt_level(3)
        .flag("-march=native")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .compile("cellc_bench_c");
    peer();
}

/// RTNeural, the peer of the side-by-side bench, when `RTNEURAL_DIR` names a checkout of it
/// (its `modules/xsimd` submodule checked out): `rtneural/peer.cpp` built with its Eigen
/// backend and with its xsimd one, as a user builds it for speed (`-O3 -march=native`), and
/// the cfg `rtneural` set.
fn peer() {
    println!("cargo::rustc-check-cfg=cfg(rtneural)");
    println!("cargo:rerun-if-env-changed=RTNEURAL_DIR");
    println!("cargo:rerun-if-changed=rtneural/peer.cpp");
    let Some(dir) = std::env::var_os("RTNEURAL_DIR") else { return };
    let dir = PathBuf::from(dir);
    let header = dir.join("RTNeural/RTNeural.h");
    assert!(header.exists(), "RTNEURAL_DIR={}: no RTNeural/RTNeural.h there", dir.display());
    let xsimd = dir.join("modules/xsimd/include");
    assert!(xsimd.join("xsimd/xsimd.hpp").exists(), "RTNEURAL_DIR: modules/xsimd is not checked out");
    // Eigen maps RTNeural's aligned vectors with at most 32-byte alignment; xsimd's AVX-512
    // vectors need 64.
    for (backend, define, alignment) in [("eigen", "RTNEURAL_USE_EIGEN", "32"), ("xsimd", "RTNEURAL_USE_XSIMD", "64")] {
        cc::Build::new()
            .cpp(true)
            .file("rtneural/peer.cpp")
            .include(&dir)
            .include(dir.join("modules/Eigen"))
            .include(&xsimd)
            .std("c++17")
            .opt_level(3)
            .flag("-march=native")
            .warnings(false)
            .define(define, "1")
            .define("RTNEURAL_DEFAULT_ALIGNMENT", alignment)
            // C's weights (H=256) are larger than what Eigen lets a fixed-size matrix hold
            // without the check; the layers are on the heap.
            .define("EIGEN_STACK_ALLOCATION_LIMIT", "0")
            .define("RTNEURAL_NAMESPACE", format!("RTNeural_{backend}").as_str())
            .define("PEER_PREFIX", format!("rtneural_{backend}_").as_str())
            .compile(&format!("cellc_bench_peer_{backend}"));
    }
    println!("cargo:rustc-cfg=rtneural");
}
