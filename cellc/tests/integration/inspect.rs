//! `cellc inspect`: a model cellc refuses (a spectral front end it does not compile before
//! an LSTM) is still described, with its problems and a cut that compiles; the JSON form
//! says the same; the weight bytes reported are those of the tables the generated code
//! holds.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn model(dir: &str) -> PathBuf {
    root().join("tests/models").join(dir).join("model.xml")
}

fn cellc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cellc")).args(args).output().expect("run cellc")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = cellc(args);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn a_refused_model_is_described_with_a_cut_that_compiles() {
    let refused = root().join("tests/refused/spectral_lstm/model.xml");
    let path = refused.to_str().expect("a UTF-8 path");
    let out = cellc(&["inspect", path]);
    assert_eq!(out.status.code(), Some(1), "a model that does not compile exits with 1");
    let text = String::from_utf8_lossy(&out.stdout).replace(path, "[MODEL]");
    insta::assert_snapshot!(text);

    let r = json(&["inspect", "--json", path]);
    assert_eq!(r["compiles"], false);
    let problems = r["problems"].as_array().expect("problems");
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0]["op"], "RDFT", "{problems:#?}");
    assert_eq!(r["cells"][0]["op"], "LSTMSequence");
    assert_eq!(r["cells"][0]["hidden_size"], 16);
    // Sizes are JSON numbers where known, strings only where dynamic.
    assert!(r["cells"][0]["input_size"].is_u64(), "{:#?}", r["cells"][0]);
    assert!(r["cells"][0]["weights"][0]["shape"].as_array().expect("shape").iter().all(|d| d.is_u64()));
    let dft = r["layers"].as_array().expect("layers").iter().find(|c| c["op"] == "RDFT").expect("RDFT");
    assert_eq!((dft["read"].as_u64(), dft["unsupported"].as_u64()), (Some(1), Some(1)));

    // The advice compiles the model, run as a user would run it.
    let advice = &r["advice"][0];
    assert_eq!(advice["compiles"], true);
    let args: Vec<&str> = advice["args"].as_array().expect("args").iter().filter_map(|a| a.as_str()).collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let core = dir.path().join("core.rs");
    let mut compile = vec![path];
    compile.extend(&args);
    compile.extend(["-o", core.to_str().expect("a UTF-8 path")]);
    let out = cellc(&compile);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // What is left holds the LSTM, between the cut's tensors.
    let r = json(&[&["inspect", "--json"][..], &compile[..compile.len() - 2]].concat());
    assert_eq!(r["compiles"], true);
    assert!(r["compiled"]["steps"].as_array().expect("steps").iter().any(|s| s.as_str() == Some("cell \"lstm0\"")));
}

#[test]
fn a_refused_model_shows_the_shapes_it_declares() {
    // The convolution stops the shape inference before the output; the shape the IR
    // declares on the Result's port is still shown.
    let m = model("pt_kws_conv_gru_layernorm");
    let r = json(&["inspect", "--json", m.to_str().expect("a UTF-8 path")]);
    assert_eq!(r["compiles"], false);
    assert_eq!(r["outputs"][0]["shape"], serde_json::json!(["?", 12]), "{:#?}", r["outputs"]);
}

/// The bytes of the tables a generated Rust file holds (weights, constants, index tables):
/// each `static NAME: ::cellc_runtime::Aligned<[T; N]>`.
fn table_bytes(code: &str) -> u64 {
    code.lines()
        .filter_map(|l| l.trim_start().strip_prefix("static ")?.split_once("Aligned<[")?.1.split_once("]>"))
        .map(|(inner, _)| {
            let (ty, n) = inner.split_once("; ").expect("[T; N]");
            let size = match ty {
                "f32" | "u32" => 4,
                "u16" => 2,
                other => panic!("table of {other}"),
            };
            size * n.parse::<u64>().expect("a length")
        })
        .sum()
}

#[test]
fn weight_and_constant_bytes_are_those_of_the_generated_tables() {
    let models = [
        root().join("examples/gru/model.xml"),
        model("pt_gru_frame_heads"),
        model("pt_lstm_bidirectional"),
        model("pt_gru_2_layers"),
        // Gathers by tables and by runs, and constants.
        model("ov_convolutions"),
    ];
    for m in &models {
        let path = m.to_str().expect("a UTF-8 path");
        for wt in ["auto", "f32", "bf16", "f16"] {
            let r = json(&["inspect", "--json", "--weight-type", wt, path]);
            let weights = r["compiled"]["embedded_weight_bytes"].as_u64().expect("bytes");
            let reported = weights + r["compiled"]["constant_bytes"].as_u64().expect("bytes");
            let out = cellc(&[path, "--weight-type", wt]);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let tables = table_bytes(&String::from_utf8_lossy(&out.stdout));
            assert_eq!(reported, tables, "{path} with --weight-type {wt}");
        }
    }
}

/// `inspect --lang c` reports the C's tables: f32 under `auto` for a model saved with
/// compressed (f16) weights, which the Rust keeps 16-bit.
#[test]
fn the_bytes_reported_are_those_of_the_language_asked_for() {
    let path = model("pt_gru_2_layers");
    let path = path.to_str().expect("a UTF-8 path");
    let bytes = |lang: &str, wt: &str| {
        let r = json(&["inspect", "--json", "--lang", lang, "--weight-type", wt, path]);
        r["compiled"]["embedded_weight_bytes"].as_u64().expect("bytes")
    };
    assert_eq!(bytes("c", "auto"), bytes("c", "f32"));
    assert_eq!(bytes("rust", "auto"), bytes("rust", "f16"));
    assert!(bytes("c", "auto") > bytes("rust", "auto"));
    // The C's tables (the GRUs' packed matrices and biases, in floats) are those bytes.
    let dir = tempfile::tempdir().expect("temp dir");
    let c = dir.path().join("net.c");
    let out = cellc(&[path, "--lang", "c", "-o", c.to_str().expect("a UTF-8 path")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let source = std::fs::read_to_string(&c).expect("the source");
    let floats: u64 = source
        .lines()
        .filter_map(|l| l.split("static const float ").nth(1))
        .filter_map(|d| d.split_once('[')?.1.split_once(']')?.0.parse::<u64>().ok())
        .sum();
    let r = json(&["inspect", "--json", "--lang", "c", path]);
    let constants = r["compiled"]["constant_bytes"].as_u64().expect("bytes");
    assert_eq!(floats * 4, bytes("c", "auto") + constants);
}

/// Every cut `inspect` prints, over every model of the fixtures (as they are, and with the
/// user's own options: a pin, a weight type), runs as printed — through a shell, the
/// printed line with an output file added — and compiles exactly when the advice says it
/// was checked to.
#[test]
fn every_printed_cut_runs_as_printed() {
    let bin = Path::new(env!("CARGO_BIN_EXE_cellc")).parent().expect("the binary's directory").to_owned();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut models: Vec<PathBuf> = ["tests/models", "tests/refused"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root().join(d)).expect("a fixture directory"))
        .map(|e| e.expect("an entry").path().join("model.xml"))
        .filter(|m| m.is_file())
        .collect();
    models.sort();
    let refused = root().join("tests/refused/spectral_lstm/model.xml");
    let mut runs: Vec<(PathBuf, Vec<&str>)> = models.into_iter().map(|m| (m, Vec::new())).collect();
    runs.push((refused.clone(), vec!["--input", "audio=[1,8,32]", "--weight-type", "f32"]));
    runs.push((refused, vec!["--input", "h0=[1,1,16]"]));
    let mut printed = 0;
    for (m, extra) in &runs {
        let m = m.to_str().expect("a UTF-8 path");
        let out = cellc(&[&["inspect", m][..], extra].concat());
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines().skip_while(|l| *l != "what would make it compile");
        while let Some(l) = lines.next() {
            let Some(command) = lines.clone().next().filter(|c| c.starts_with("    cellc ")) else { continue };
            let checked = l.contains("checked: it compiles");
            let dir = tempfile::tempdir().expect("temp dir");
            let line = format!("{} -o {}", command.trim(), dir.path().join("cut.rs").display());
            let run = Command::new("sh").arg("-c").arg(&line).env("PATH", &path).output().expect("run sh");
            let err = String::from_utf8_lossy(&run.stderr);
            assert_eq!(run.status.success(), checked, "{line}: {err}");
            printed += 1;
        }
    }
    assert!(printed >= 3, "only {printed} cuts were printed");
}

/// `inspect` names a model as its generated code does, refused or not: a converter's default
/// name (`onnx_Frontend_IR`) gives way to the file's, before and after the pins.
#[test]
fn a_model_is_named_as_its_code_names_it() {
    let path = model("aecmos_prelu");
    let path = path.to_str().expect("a UTF-8 path");
    let refused = json(&["inspect", "--json", path]);
    assert_eq!(refused["compiles"], false);
    assert_eq!(refused["model"], "model");
    let pins = ["--input", "input=[1,3,64,160]", "--input", "h0=[4,1,64]"];
    let code = cellc(&[path, pins[0], pins[1], pins[2], pins[3]]);
    assert!(code.status.success(), "{}", String::from_utf8_lossy(&code.stderr));
    assert!(String::from_utf8_lossy(&code.stdout).contains("\npub mod model {\n"));
    let compiled = json(&["inspect", "--json", path, pins[0], pins[1], pins[2], pins[3]]);
    assert_eq!((&compiled["compiles"], &compiled["model"]), (&serde_json::json!(true), &serde_json::json!("model")));
}

/// `inspect --state` shows the state carried between runs, of the size of the Parameter it
/// replaces (examples/gru's `H`, [1, 128]).
#[test]
fn a_carried_state_is_shown() {
    let gru = root().join("examples/gru/model.xml");
    let out = cellc(&["inspect", gru.to_str().expect("a UTF-8 path"), "--state", "H=gru_spec_example_out"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("state \"H\": 128 values, carried from one run to the next"),
        "{text}"
    );
    assert!(!text.contains("input 1 \"H\""), "{text}");
}

/// A model without cells whose last layer cellc does not compile is given the cut that
/// leaves that layer out (`--outputs` before it), checked to compile.
#[test]
fn a_model_without_cells_is_given_a_cut_before_its_refused_tail() {
    let dir = tempfile::tempdir().expect("temp dir");
    let from = model("onnx_thresholded_relu").parent().expect("dir").join("f32");
    let xml =
        std::fs::read_to_string(from.join("model.xml")).expect("xml").replace(r#"type="Multiply""#, r#"type="GRN""#);
    std::fs::write(dir.path().join("model.xml"), xml).expect("write");
    std::fs::copy(from.join("model.bin"), dir.path().join("model.bin")).expect("copy");
    let path = dir.path().join("model.xml");
    let r = json(&["inspect", "--json", path.to_str().expect("a UTF-8 path")]);
    assert_eq!(r["compiles"], false);
    let advice = &r["advice"][0];
    assert_eq!(advice["compiles"], true, "{r:#}");
    let args: Vec<&str> = advice["args"].as_array().expect("args").iter().filter_map(|a| a.as_str()).collect();
    assert_eq!(args.first(), Some(&"--outputs"), "{args:?}");
}
