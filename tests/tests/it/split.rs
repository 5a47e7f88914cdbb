//! Steps split across threads (`--threads`): a model whose large cells run each step as a
//! job of `cellc_runtime::team` gives exactly, to the bit, what it gives on one thread, for
//! every kind of cell (GRU in one pass and in two, RNN with clip, LSTM with f16 weights), a
//! stack of two cells, and a real model whose LSTM sequence runs through `run`, with parts
//! that end mid-tile (three threads over eight tiles) and more parts than the machine may
//! have cores. Each model runs several times in a row, so that the state a run leaves is
//! the next one's input, and the helpers are awake for some runs and asleep for others.
use cellc_conformance::scratch::Scratch;
use std::path::Path;

const CASES: [&str; 6] = [
    "fixtures/gru_lbr_off",
    "fixtures/gru_spec_example",
    "fixtures/rnn_clip",
    "fixtures/lstm_f16_weights",
    "fixtures/stacked_gru_gru",
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
            cellc_runtime::team::set_spin(std::time::Duration::ZERO);
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
    cellc_runtime::team::set_spin(cellc_runtime::team::DEFAULT_SPIN);
    all
}
"#;

#[test]
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
            let opts = cellc::Options {
                name: Some("Model".into()),
                cut_inputs,
                cut_outputs,
                threads: cellc::Threads::new(threads).expect("a valid count"),
                ..cellc::Options::default()
            };
            let code = cellc::compile_file(&root.join(case).join("model.xml"), &opts).unwrap_or_else(|d| panic!("{d}"));
            assert_eq!(code.contains("team::run"), threads > 1, "{case} with {threads} threads");
            main.push_str(&format!("mod c{c}t{threads} {{ include!(\"c{c}t{threads}.rs\"); }}\n"));
            files.push((format!("c{c}t{threads}.rs"), code));
        }
        checks.push_str(&format!(
            "    let one = runs::<c{c}t1::Model>();\n    assert_eq!(one, runs::<c{c}t2::Model>(), \"{case}, 2 threads\");\n    assert_eq!(one, runs::<c{c}t3::Model>(), \"{case}, 3 threads\");\n"
        ));
    }
    main.push_str(&format!("fn main() {{\n{checks}}}\n"));
    files.push(("main.rs".into(), main));
    let scratch = Scratch::new("split");
    let exe = scratch.build_program(&files).unwrap_or_else(|e| panic!("{e}"));
    let out = std::process::Command::new(&exe).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
