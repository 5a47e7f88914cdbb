//! Steps split across threads (`--threads`): a model whose large cells run their steps as
//! jobs of `cellc_runtime::__private::team` gives exactly, to the bit, what it gives on one thread, for
//! every kind of cell (GRU in one pass and in two, RNN with clip, LSTM with f16 weights), a
//! real model whose LSTM sequence runs through `run`, sequences in every direction, streams
//! fed in pieces and lone steps, with parts that end mid-tile (three threads over eight
//! tiles) and more parts than the machine may have cores. Each model runs several times in
//! a row, so that the state a run leaves is the next one's input, and the helpers are awake
//! for some runs and asleep for others.
use cellc_conformance::scratch::Scratch;
use std::path::Path;

const CASES: [&str; 5] = [
    "fixtures/gru_lbr_off",
    "fixtures/gru_spec_example",
    "fixtures/rnn_clip",
    "fixtures/lstm_f16_weights",
    "models/silero_vad_core",
];
const THREADS: [usize; 3] = [1, 2, 3];

const MAIN: &str = r#"
use cellc_runtime::{Dim, Model};

fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n).map(|k| (((k * 7 + seed * 13) % 23) as f32 - 11.0) * 0.05).collect()
}

fn len(shape: &[Dim]) -> usize {
    shape.iter().map(|d| match d { Dim::Static(n) => *n, Dim::Batch => 1 }).product()
}

/// Every output of five runs in a row, each run's outputs fed back where an input has
/// their shape (a state), with a pause before the last so that helpers fall asleep.
fn runs<M: Model + Default>() -> Vec<Vec<f32>> {
    let mut m = M::default();
    let mut inputs: Vec<Vec<f32>> = M::INPUTS.iter().enumerate().map(|(i, t)| values(len(t.shape), i)).collect();
    let mut all = Vec::new();
    for r in 0..5 {
        if r == 4 {
            cellc_runtime::threads::set_spin(std::time::Duration::ZERO);
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let mut outputs: Vec<Vec<f32>> = M::OUTPUTS.iter().map(|t| vec![0.0; len(t.shape)]).collect();
        let ins: Vec<&[f32]> = inputs.iter().map(Vec::as_slice).collect();
        let mut outs: Vec<&mut [f32]> = outputs.iter_mut().map(Vec::as_mut_slice).collect();
        m.run(&ins, &mut outs).expect("lengths fit");
        for (o, out) in outputs.iter().enumerate() {
            for (i, input) in inputs.iter_mut().enumerate().skip(1) {
                if M::INPUTS[i].shape == M::OUTPUTS[o].shape {
                    input.copy_from_slice(out);
                }
            }
        }
        all.extend(outputs);
    }
    cellc_runtime::threads::set_spin(cellc_runtime::threads::DEFAULT_SPIN);
    all
}
"#;

#[test]
#[ignore = "long (builds generated code in release): .ci/run runs it"]
fn split_steps_compute_what_one_thread_computes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut main = String::from(MAIN);
    let mut files = Vec::new();
    let mut checks = String::new();
    for (c, case) in CASES.iter().enumerate() {
        for threads in THREADS {
            // The real model's recurrent core, cut as its conformance case cuts it.
            let (cut_inputs, cut_outputs) = match case.strip_prefix("models/") {
                Some(_) => {
                    let json = std::fs::read_to_string(root.join(case).join("case.json")).expect("case.json");
                    let v: serde_json::Value = serde_json::from_str(&json).expect("case.json parses");
                    let names = |k: &str| -> Vec<String> {
                        v[k].as_array().into_iter().flatten().filter_map(|n| n.as_str().map(str::to_owned)).collect()
                    };
                    (names("cut_inputs"), names("cut_outputs"))
                }
                None => (Vec::new(), Vec::new()),
            };
            let opts = cellc::Options::default()
                .name(Some("Model".into()))
                .cut_inputs(cut_inputs)
                .cut_outputs(cut_outputs)
                .threads(cellc::Threads::new(threads).expect("a valid count"));
            let code = cellc::compile_file(&root.join(case).join("model.xml"), &opts).unwrap_or_else(|d| panic!("{d}"));
            assert_eq!(code.contains("team::run"), threads > 1, "{case} with {threads} threads");
            main.push_str(&format!("mod c{c}t{threads} {{ include!(\"c{c}t{threads}.rs\"); }}\n"));
            files.push((format!("c{c}t{threads}.rs"), code));
        }
        checks.push_str(&format!(
            "    let one = runs::<c{c}t1::Model>();\n    assert_eq!(one, runs::<c{c}t2::Model>(), \"{case}, 2 threads\");\n    assert_eq!(one, runs::<c{c}t3::Model>(), \"{case}, 3 threads\");\n"
        ));
    }
    run_checks("split", files, main, &checks);
}

/// What every declared case's module holds beside the cell: deterministic values.
const VALUES: &str = "
fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n).map(|k| (((k * 7 + seed * 13) % 23) as f32 - 11.0) * 0.02).collect()
}
fn steps() -> [[f32; 8]; 21] {
    let v = values(8 * 21, 4);
    core::array::from_fn(|t| core::array::from_fn(|j| v[t * 8 + j]))
}
";

/// A sequence of 21 steps (input 8, hidden `H`, `D` directions) run for three row lengths:
/// every output, flattened.
const SEQUENCE: &str = "
pub fn outputs() -> Vec<f32> {
    let cell = Cell::new(&values(W, 1), &values(R, 2), &values(B, 3)).expect(\"lengths\");
    let mut all = Vec::new();
    for len in [21, 13, 8] {
        let (mut y, mut ho, mut co) = ([[[0.0f32; H]; 21]; D], [[0.0f32; H]; D], [[0.0f32; H]; D]);
        let (h0, c0) = ([[0.1f32; H]; D], [[-0.2f32; H]; D]);
        RUN;
        all.extend(y.iter().flatten().flatten().chain(ho.iter().flatten()).chain(co.iter().flatten()));
    }
    all
}
";

/// A cell fed 21 steps in pieces of 5, 1, 8 and 7: every state, flattened.
const FEED: &str = "
pub fn outputs() -> Vec<f32> {
    let cell = Cell::new(&values(W, 1), &values(R, 2), &values(B, 3)).expect(\"lengths\");
    let xs = steps();
    let (mut h, mut c, mut ys) = ([0.1f32; H], [-0.2f32; H], [[0.0f32; H]; 21]);
    let mut t = 0;
    for n in [5, 1, 8, 7] {
        FEED;
        t += n;
    }
    let _ = &mut c;
    ys.iter().flatten().chain(&h).chain(&c).copied().collect()
}
";

/// A declared cell: its kind and keys (besides the sizes and `threads`), hidden size,
/// directions, the lengths of `W`, `R` and `B`, and the code that runs it: `template`
/// ([`SEQUENCE`] or [`FEED`]) with `call` in it.
struct Declared {
    op: cellc::vocab::CellOp,
    keys: &'static str,
    h: usize,
    d: usize,
    wrb: [usize; 3],
    template: &'static str,
    call: &'static str,
}

/// A cell stepped 21 times, one `step` a call: every state, flattened.
const STEP: &str = "
pub fn outputs() -> Vec<f32> {
    let cell = Cell::new(&values(W, 1), &values(R, 2), &values(B, 3)).expect(\"lengths\");
    let (mut h, mut all) = ([0.1f32; H], Vec::new());
    for x in steps() {
        let mut next = [0.0f32; H];
        STEP;
        h = next;
        all.extend(h);
    }
    all
}
";

/// A [`Declared`] with input size 8: the lengths of its weights from its kind, `keys`,
/// hidden size `h` and `d` directions.
fn declared(
    op: cellc::vocab::CellOp,
    keys: &'static str,
    h: usize,
    d: usize,
    template: &'static str,
    call: &'static str,
) -> Declared {
    use cellc::vocab::CellOp;
    let g = match op {
        CellOp::Gru => 3,
        CellOp::Rnn => 1,
        CellOp::Lstm => 4,
    };
    let bias = if keys.contains("linear_before_reset = true") { 4 * h } else { g * h };
    Declared { op, keys, h, d, wrb: [d * g * h * 8, d * g * h * h, d * bias], template, call }
}

/// Sequences in every direction, streams fed in pieces and lone steps, each cell large
/// enough to split: a block of steps runs as one job, one step after another in its stages,
/// and gives what one thread gives, to the bit, for whole blocks, a partial block, and rows
/// shorter than the sequence; a GRU large enough has its lone steps split too.
#[test]
#[ignore = "long (builds generated code in release): .ci/run runs it"]
fn split_sequences_and_feeds_compute_what_one_thread_computes() {
    use cellc::vocab::CellOp;
    let gru_run = "cell.run(&steps(), &h0, len, &mut y, &mut ho).expect(\"a length within the steps\")";
    let lstm_run = "cell.run(&steps(), &h0, &c0, len, &mut y, &mut ho, &mut co).expect(\"a length within the steps\")";
    let feed = "cell.feed(&mut h, &xs[t..t + n], &mut ys[t..t + n]).expect(\"lengths\")";
    let lstm_feed = "cell.feed(&mut h, &mut c, &xs[t..t + n], &mut ys[t..t + n]).expect(\"lengths\")";
    let gru_step = "cell.step(&x, &h, &mut next)";
    let cases = [
        declared(CellOp::Gru, "steps = 21, direction = bidirectional", 112, 2, SEQUENCE, gru_run),
        declared(CellOp::Gru, "steps = 21, direction = reverse, linear_before_reset = true", 96, 1, SEQUENCE, gru_run),
        declared(CellOp::Lstm, "steps = 21, direction = bidirectional, clip = 0.7", 64, 2, SEQUENCE, lstm_run),
        declared(CellOp::Rnn, "steps = 21, direction = reverse, activations = [relu]", 128, 1, SEQUENCE, gru_run),
        declared(CellOp::Gru, "", 112, 1, FEED, feed),
        declared(CellOp::Lstm, "", 64, 1, FEED, lstm_feed),
        // Large enough that a lone step is split too, in two stages.
        declared(CellOp::Gru, "", 160, 1, STEP, gru_step),
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (mut main, mut checks, mut files) = (String::new(), String::new(), Vec::new());
    for (c, Declared { op, keys, h, d, wrb: [w, r, b], template, call }) in cases.iter().enumerate() {
        for threads in THREADS {
            let decl = format!("pub struct Cell<input_size = 8, hidden_size = {h}, {keys}, threads = {threads}>;");
            let tokens: proc_macro2::TokenStream = decl.replace(", ,", ",").parse().expect("tokens");
            let (file, _) = cellc::expand::declaration(*op, tokens, root).unwrap_or_else(|e| panic!("{decl}: {e}"));
            let code = prettyplease::unparse(&file);
            // Jobs in `feed_block`, and in `step_at` and `step_projected` when a lone step splits.
            let jobs = match threads {
                1 => 0,
                _ if *template == STEP => 3,
                _ => *d,
            };
            assert_eq!(code.matches("team::run").count(), jobs, "{decl}");
            let body = template.replace("RUN", call).replace("FEED", call).replace("STEP;", &format!("{call};"));
            let body = format!(
                "const H: usize = {h};\nconst D: usize = {d};\nconst W: usize = {w};\nconst R: usize = {r};\nconst B: usize = {b};\n{VALUES}{body}"
            );
            files.push((format!("s{c}t{threads}.rs"), format!("{code}\n{body}")));
            main.push_str(&format!("#[allow(dead_code, unused_mut, unused_variables)]\nmod s{c}t{threads} {{ include!(\"s{c}t{threads}.rs\"); }}\n"));
        }
        checks.push_str(&format!(
            "    let one = s{c}t1::outputs();\n    assert!(one.iter().any(|v| *v != 0.0), \"case {c} computes\");\n    assert_eq!(one, s{c}t2::outputs(), \"case {c}, 2 threads\");\n    assert_eq!(one, s{c}t3::outputs(), \"case {c}, 3 threads\");\n"
        ));
    }
    run_checks("split_seq", files, main, &checks);
}

/// Builds the program of `files` and `main` whose `main` runs `checks`, and runs it.
fn run_checks(name: &str, mut files: Vec<(String, String)>, mut main: String, checks: &str) {
    main.push_str(&format!("fn main() {{\n{checks}}}\n"));
    files.push(("main.rs".into(), main));
    let exe = Scratch::new(name).build_program(&files).unwrap_or_else(|e| panic!("{e}"));
    let out = std::process::Command::new(&exe).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
