//! Property test: random cell configurations (GRU, RNN, LSTM; sizes 1–64, every activation,
//! clip, reset placement, batch, weights embedded or given at run time (in any gate
//! layout), stored as f32, f16 or bf16, bias present or absent; cells or sequences of 1–12
//! steps in every direction with random lengths), compiled to Rust and to C, built for real
//! and run, against the f64 reference interpreter (on the weights rounded as stored).
//!
//! The configurations are drawn with proptest from a fixed seed, or from
//! `CELLC_PROPERTY_SEED` (a number, printed; `.ci/run` draws a fresh one each run); all of
//! them are built as one scratch crate, since compiling each alone would take minutes. A
//! failure prints the configuration. Long, so `cargo test` leaves it out (`--ignored` runs
//! it): it draws the first 4 of them, `CELLC_PROPERTY_CASES=N` the first N (`.ci/run`
//! takes 12).
use cellc::ir::{Activation, CellKind, Direction};
use cellc::vocab::CellOp;
use cellc::vocab::Layout;
use cellc::{Options, Strategy as Kernel, WeightType};
use cellc_conformance::case::{read_data, write_f32};
use cellc_conformance::max_abs_err;
use cellc_conformance::scratch::{Job, Scratch};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use std::path::Path;

/// The configurations drawn when `CELLC_PROPERTY_CASES` does not say.
const CASES: usize = 4;

fn cases() -> usize {
    std::env::var("CELLC_PROPERTY_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(CASES)
}

#[derive(Clone, Debug)]
struct Config {
    kind: CellKind,
    hidden: usize,
    input: usize,
    batch: usize,
    dynamic: bool,
    acts: Vec<Activation>,
    clip: Option<f32>,
    runtime_weights: bool,
    /// The layout runtime weights are given in (where the cell kind has it).
    layout: Layout,
    bias: bool,
    tiled: bool,
    seed: u64,
    /// The Sequence form: direction and steps.
    seq: Option<(Direction, usize)>,
    /// How `W` and `R` are stored.
    weight_type: WeightType,
}

fn activation() -> impl Strategy<Value = Activation> {
    prop_oneof![
        Just(Activation::Relu),
        Just(Activation::Sigmoid),
        Just(Activation::Tanh),
        (0.05f32..1.0, -0.5f32..1.0).prop_map(|(alpha, beta)| Activation::HardSigmoid { alpha, beta }),
        (-1.5f32..1.5, -1.0f32..1.0).prop_map(|(alpha, beta)| Activation::Affine { alpha, beta }),
        (0.0f32..0.5).prop_map(|alpha| Activation::LeakyRelu { alpha }),
        (-0.5f32..1.0).prop_map(|alpha| Activation::ThresholdedRelu { alpha }),
        (0.1f32..2.0, 0.1f32..2.0).prop_map(|(alpha, beta)| Activation::ScaledTanh { alpha, beta }),
        (0.1f32..2.0).prop_map(|alpha| Activation::Elu { alpha }),
        Just(Activation::Softsign),
        Just(Activation::Softplus),
    ]
}

fn config() -> impl Strategy<Value = Config> {
    (
        (0..4u8, 1usize..=96, 1usize..=64, 1usize..=11, any::<bool>()),
        (proptest::collection::vec(activation(), 3), proptest::option::of(0.1f32..3.0)),
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<u64>(), 0..4u8, 0..4usize),
        proptest::option::of((
            prop_oneof![Just(Direction::Forward), Just(Direction::Reverse), Just(Direction::Bidirectional)],
            1usize..=12,
        )),
    )
        .prop_map(
            |((kind, hidden, input, batch, dynamic), (acts, clip), (rw, bias, tiled, seed, layout, wt), seq)| Config {
                kind: match kind {
                    0 => CellKind::Gru { linear_before_reset: false },
                    1 => CellKind::Gru { linear_before_reset: true },
                    2 => CellKind::Rnn,
                    _ => CellKind::Lstm,
                },
                hidden,
                input,
                batch,
                dynamic,
                acts,
                clip,
                runtime_weights: rw,
                layout: [Layout::OpenVino, Layout::Onnx, Layout::PyTorch, Layout::Bnns][layout as usize],
                bias,
                tiled,
                seed,
                seq,
                weight_type: WeightType::ALL[wt],
            },
        )
}

/// Over many steps an unbounded activation can make the state grow past f32 (an LSTM whose
/// forget gate is affine doubles it each step), which compares nothing: sequences keep the
/// bounded activations and take tanh for the others. Cells exercise every activation.
fn bounded(a: Activation) -> Activation {
    match a {
        Activation::Sigmoid
        | Activation::Tanh
        | Activation::HardSigmoid { .. }
        | Activation::ScaledTanh { .. }
        | Activation::Softsign => a,
        Activation::Relu
        | Activation::Affine { .. }
        | Activation::LeakyRelu { .. }
        | Activation::ThresholdedRelu { .. }
        | Activation::Elu { .. }
        | Activation::Softplus => Activation::Tanh,
    }
}

/// A small deterministic generator for weights and inputs (xorshift), in [-1, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    fn vec(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| self.next() * scale).collect()
    }
}

/// The model of a configuration and its inputs, in Parameter order: the cell declared as a
/// macro declares it, its embedded weights in a raw file of `dir` in the drawn layout.
fn build(c: &Config, dir: &Path, k: usize) -> (cellc::ir::verify::Verified, Vec<Vec<f32>>) {
    let kind = c.kind;
    let acts: Vec<String> = c.acts[..kind.activation_count()]
        .iter()
        .map(|&a| if c.seq.is_some() { bounded(a) } else { a }.to_string())
        .collect();
    let mut rng = Rng(c.seed | 1);
    let g = kind.gates() * c.hidden;
    let scale = 2.0 / ((c.hidden + c.input) as f32).sqrt();
    // Sequences: X is [batch, steps, I], states [batch, dirs, H], weights one block per direction.
    let (dirs, steps) = c.seq.map_or((1, 1), |(d, l)| (d.count(), l));
    let w = rng.vec(dirs * g * c.input, scale);
    let r = rng.vec(dirs * g * c.hidden, scale);
    // Weights come in the drawn layout, where the cell kind has it.
    let layout = if c.layout.refuses(kind).is_none() { c.layout } else { Layout::OpenVino };
    let b = rng.vec(dirs * layout.bias_blocks(kind) * c.hidden, 0.5);
    let mut inputs = vec![rng.vec(c.batch * steps * c.input, 1.5), rng.vec(c.batch * dirs * c.hidden, 1.0)];
    if kind.has_cell_state() {
        inputs.push(rng.vec(c.batch * dirs * c.hidden, 1.0));
    }
    let mut keys = vec![
        format!("input_size = {}", c.input),
        format!("hidden_size = {}", c.hidden),
        format!("activations = [{}]", acts.join(", ")),
        format!("layout = {}", layout.name()),
        format!("bias = {}", c.bias),
        if c.dynamic { "batch = dynamic".to_owned() } else { format!("batch = {}", c.batch) },
    ];
    if let CellKind::Gru { linear_before_reset: true } = kind {
        keys.push("linear_before_reset = true".to_owned());
    }
    if let Some(clip) = c.clip {
        keys.push(format!("clip = {clip}"));
    }
    if let Some((direction, steps)) = c.seq {
        keys.push(format!("steps = {steps}, direction = {}", direction.name()));
        let lens = (0..c.batch).map(|_| ((rng.next() + 1.0) * 0.5 * (steps + 1) as f32).floor().min(steps as f32));
        inputs.push(lens.collect());
    }
    let tensors = [Some(w), Some(r), c.bias.then_some(b)].into_iter().flatten();
    if c.runtime_weights {
        inputs.extend(tensors);
    } else {
        let file = format!("weights{k}.bin");
        let bytes: Vec<u8> = tensors.flatten().flat_map(f32::to_le_bytes).collect();
        std::fs::write(dir.join(&file), bytes).expect("weights file");
        keys.push(format!("weights = {file:?}"));
    }
    let op = match kind {
        CellKind::Gru { .. } => CellOp::Gru,
        CellKind::Rnn => CellOp::Rnn,
        CellKind::Lstm => CellOp::Lstm,
    };
    let declaration = format!("struct Cell<{}>;", keys.join(", "));
    let model = cellc::front::decl::model_of_text(op, &declaration, dir)
        .unwrap_or_else(|e| panic!("{c:?}: {declaration}: {e}"));
    (model, inputs)
}

/// A `Model` that runs the generated cell type `Cell` through `step_batch`.
fn batch_glue(c: &Config) -> String {
    let lstm = c.kind.has_cell_state();
    let (cell, set) = match (c.runtime_weights, c.bias) {
        (false, _) => ("Cell::new()", ""),
        (true, true) => ("Cell::zeroed()", "self.cell.set_weights(weights[0], weights[1], weights[2])?;"),
        (true, false) => ("Cell::zeroed()", "self.cell.set_weights(weights[0], weights[1])?;"),
    };
    let (outs, call) = if lstm {
        (
            2,
            "let (h, c) = outputs.split_at_mut(1);\n        \
             cell.step_batch(rows(inputs[0])?, rows(inputs[1])?, rows(inputs[2])?, rows_mut(h[0])?, rows_mut(c[0])?)",
        )
    } else {
        (1, "cell.step_batch(rows(inputs[0])?, rows(inputs[1])?, rows_mut(outputs[0])?)")
    };
    format!(
        "
/// A flat slice as whole rows (a partial row is an error).
fn rows<const N: usize>(v: &[f32]) -> Result<&[[f32; N]], ::cellc_runtime::Error> {{
    match v.as_chunks::<N>() {{
        (rows, []) => Ok(rows),
        _ => Err(::cellc_runtime::Error::PartialRow {{ name: \"v\", row: N, got: v.len() }}),
    }}
}}
fn rows_mut<const N: usize>(v: &mut [f32]) -> Result<&mut [[f32; N]], ::cellc_runtime::Error> {{
    let got = v.len();
    match v.as_chunks_mut::<N>() {{
        (rows, []) => Ok(rows),
        _ => Err(::cellc_runtime::Error::PartialRow {{ name: \"v\", row: N, got }}),
    }}
}}
pub struct Model {{ cell: Cell, set: bool }}
impl ::core::default::Default for Model {{
    fn default() -> Self {{ Model {{ cell: {cell}, set: false }} }}
}}
impl ::cellc_runtime::Model for Model {{
    const INPUTS: &'static [::cellc_runtime::TensorInfo] = <Generated as ::cellc_runtime::Model>::INPUTS;
    const OUTPUTS: &'static [::cellc_runtime::TensorInfo] = <Generated as ::cellc_runtime::Model>::OUTPUTS;
    const WEIGHTS: &'static [::cellc_runtime::TensorInfo] = <Generated as ::cellc_runtime::Model>::WEIGHTS;
    fn set_weights(&mut self, weights: &[&[f32]]) -> Result<(), ::cellc_runtime::Error> {{
        ::cellc_runtime::__private::check_weights(Self::WEIGHTS, weights)?;
        {set}
        self.set = true;
        Ok(())
    }}
    fn run(&mut self, inputs: &[&[f32]], outputs: &mut [&mut [f32]]) -> Result<(), ::cellc_runtime::Error> {{
        if !self.set && !Self::WEIGHTS.is_empty() {{
            return Err(::cellc_runtime::Error::WeightsNotSet);
        }}
        if inputs.len() != Self::INPUTS.len() || outputs.len() != {outs} {{
            return Err(::cellc_runtime::Error::InputCount {{ expected: Self::INPUTS.len(), got: inputs.len() }});
        }}
        let cell = &self.cell;
        {call}
    }}
}}
"
    )
}

#[test]
#[ignore = "long (builds generated code in release): .ci/run runs it"]
fn generated_code_matches_the_reference_interpreter() {
    let mut runner = match std::env::var("CELLC_PROPERTY_SEED").ok().and_then(|s| s.trim().parse::<u64>().ok()) {
        Some(seed) => {
            println!(
                "configurations drawn from seed {seed}: again with CELLC_PROPERTY_SEED={seed} CELLC_PROPERTY_CASES={}",
                cases()
            );
            let bytes: Vec<u8> = (0..4u64).flat_map(|k| seed.rotate_left(16 * k as u32).to_le_bytes()).collect();
            let rng = proptest::test_runner::TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &bytes);
            TestRunner::new_with_rng(proptest::test_runner::Config::default(), rng)
        }
        None => TestRunner::deterministic(),
    };
    let strategy = config();
    let configs: Vec<Config> =
        (0..cases()).map(|_| strategy.new_tree(&mut runner).expect("a configuration").current()).collect();
    // The runtime without `std`, as on an embedded target (conformance covers `std`).
    let scratch = Scratch::no_std("properties");
    let data = scratch.data_dir("cases").expect("data dir");
    let mut sources = Vec::new();
    let mut c_sources = Vec::new();
    let mut jobs = Vec::new();
    let mut expected = Vec::new();
    // Per configuration, how far one rounding of the inputs moves the exact outputs.
    let mut sensitivity = Vec::new();
    for (k, c) in configs.iter().enumerate() {
        let (model, inputs) = build(c, &data, k);
        let kernel = if c.tiled { Kernel::Tiled } else { Kernel::Unrolled };
        // Every other configuration runs through the cell's own `step_batch` instead of the
        // model entry point, so both paths are checked.
        let via_batch = k % 2 == 1 && c.seq.is_none();
        let name = if via_batch { "Generated" } else { "Model" };
        let opts = Options::default().name(Some(name.into())).strategy(kernel).weight_type(c.weight_type);
        let mut src = cellc::emit::rust::emit(&model, &opts).unwrap_or_else(|d| panic!("{c:?}: {d}"));
        if via_batch {
            src.push_str(&batch_glue(c));
        }
        sources.push(src);
        // The C, always through the model entry point; it refuses 16-bit weights given at
        // run time, and stores those as f32.
        let c_type = match c.weight_type {
            WeightType::F16 | WeightType::Bf16 if c.runtime_weights => WeightType::F32,
            t => t,
        };
        let c_opts = opts.name(Some(format!("m{k}"))).language(cellc::Language::C).weight_type(c_type);
        c_sources
            .push(cellc::emit::c::emit(&model, &c_opts, &format!("m{k}.h")).unwrap_or_else(|d| panic!("{c:?}: {d}")));
        let wide: Vec<Vec<f64>> = inputs.iter().map(|v| v.iter().map(|&x| x as f64).collect()).collect();
        let reference = |weight_type, wide: &[Vec<f64>]| {
            let stored = cellc_conformance::stored_as(&model, wide, weight_type);
            let (m, i) = stored.as_ref().map_or((model.model(), wide), |(m, i)| (m, i.as_slice()));
            cellc::reference::run(m, i).unwrap_or_else(|e| panic!("{c:?}: {e}"))
        };
        let want = reference(c.weight_type, &wide);
        let c_want = if c_type == c.weight_type { want.clone() } else { reference(c_type, &wide) };
        // How far one rounding of each input moves the exact result: what f32 arithmetic
        // cannot be asked to beat (a configuration whose gates leave [0, 1] amplifies it
        // step after step).
        let nudged: Vec<Vec<f64>> = wide
            .iter()
            .zip(&model.params)
            .map(|(v, p)| {
                let lengths = p.role == cellc::ir::ParamRole::Lengths;
                let ulp = f64::from(f32::EPSILON) / 2.0;
                v.iter()
                    .enumerate()
                    .map(|(j, &x)| if lengths { x } else { x * (1.0 + ulp * [1.0, -1.0][j % 2]) })
                    .collect()
            })
            .collect();
        sensitivity.push(
            want.iter()
                .zip(reference(c.weight_type, &nudged))
                .map(|(w, n)| {
                    let scale = w.iter().fold(1.0f64, |m, v| m.max(v.abs()));
                    w.iter().zip(&n).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max) / scale
                })
                .fold(0.0, f64::max),
        );
        let mut job = Job::single(k, Vec::new(), Vec::new());
        for (i, (v, param)) in inputs.iter().zip(&model.params).enumerate() {
            let p = data.join(format!("{k}_in{i}.f32"));
            write_f32(&p, v).expect("write input");
            match param.role {
                cellc::ir::ParamRole::Weights => job.weights.push(p),
                _ => job.inputs.push(p),
            }
        }
        for (o, w) in want.iter().enumerate() {
            job.outputs.push((data.join(format!("{k}_out{o}.f32")), w.len()));
        }
        jobs.push(job);
        expected.push((want, c_want));
    }
    let c_jobs = scratch.run_rust_and_c(&sources, &c_sources, &jobs).unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    for (lang, jobs) in [("Rust", &jobs), ("C", &c_jobs)] {
        for (k, (c, (rust_wants, c_wants))) in configs.iter().zip(&expected).enumerate() {
            let wants = if lang == "C" { c_wants } else { rust_wants };
            for ((path, _), want) in jobs[k].outputs.iter().zip(wants) {
                let got = read_data(path).expect("output written");
                let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
                let err = max_abs_err(&got, want) / scale;
                // f32 code rounds at every operation, each rounding moving the result about
                // as one rounding of the inputs does: 64 of those, past 1e-5.
                let allowed = 1e-5 + 64.0 * sensitivity[k];
                if err > allowed {
                    failures.push(format!(
                        "{lang} {c:?}: max error {err:.3e} (relative to {scale:.2}; allowed {allowed:.3e})"
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} configurations differ:\n{}",
        failures.len(),
        configs.len(),
        failures.join("\n")
    );
}
