//! The graph front-end and the fold and simplify passes on the whole models of
//! `tests/models` (IRs written by OpenVINO from ONNX files).
use cellc::graph::Graph;
use cellc::ops::Op;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn models() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir).expect("tests/models").map(|e| e.expect("entry").path()).collect();
    v.sort();
    v
}

/// The case's graph, read and folded with its pinned dimensions (`pin` in its case.json).
fn folded(xml: &Path) -> Graph {
    let mut g = cellc::front::openvino::read_graph(xml, None).expect("reads");
    let dir = xml.ancestors().find(|d| d.join("case.json").exists()).expect("a case");
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).expect("case.json")).expect("json");
    for p in case["pin"].as_array().into_iter().flatten() {
        let s = cellc::InputShape::parse(p.as_str().expect("a pin")).expect("pin");
        g.pin(&s.name, &s.dims).expect("pinned");
    }
    let diags = cellc::passes::fold(&mut g);
    assert!(diags.is_empty(), "{}: {diags:?}", xml.display());
    cellc::passes::simplify(&mut g);
    g
}

/// The op types of the live nodes, apart from Parameters, constants and Results.
fn remaining(g: &Graph) -> BTreeSet<String> {
    g.nodes
        .iter()
        .filter(|n| !n.dead && !matches!(n.op, Op::Parameter { .. } | Op::Const { .. } | Op::Result))
        .map(|n| n.origin.op.clone())
        .collect()
}

#[test]
fn shape_subgraphs_and_constant_branches_fold_away() {
    for dir in models() {
        for xml in [dir.join("model.xml"), dir.join("f32/model.xml")] {
            if !xml.exists() {
                continue;
            }
            let g = folded(&xml);
            let left = remaining(&g);
            println!("{}: {left:?}", xml.display());
            for op in ["ShapeOf", "Broadcast", "If"] {
                assert!(!left.contains(op), "{}: {op} is left: {left:?}", xml.display());
            }
            // A Convert of weights folds away; one of booleans computed at run time (a
            // mask) has become a select. (Whole numbers computed at run time, an index
            // made a float, stay converted.)
            let converts = g
                .nodes
                .iter()
                .filter(|n| !n.dead && matches!(n.op, Op::Convert { .. }))
                .filter_map(|n| n.inputs.first().copied().flatten())
                .filter(|&t| g.tensors[t].fact.value.is_some() || g.tensors[t].fact.elem == cellc::graph::Elem::Bool)
                .count();
            assert_eq!(converts, 0, "{}: a Convert of a constant or of booleans is left: {left:?}", xml.display());
        }
    }
}

fn read_f32(path: &Path) -> Vec<f64> {
    let bytes = std::fs::read(path).expect("data file");
    let int = path.extension().is_some_and(|e| e == "i32");
    bytes
        .chunks_exact(4)
        .map(|b| {
            let b = [b[0], b[1], b[2], b[3]];
            if int { i32::from_le_bytes(b) as f64 } else { f32::from_le_bytes(b) as f64 }
        })
        .collect()
}

/// The validated model of each case runs in the reference interpreter to onnxruntime's (or
/// OpenVINO's) outputs: the steps compute the graph. Models of more than [`LIGHT_MACS`] are
/// left to [`heavy_models_compute_what_onnxruntime_computes`].
#[test]
fn planned_steps_compute_what_onnxruntime_computes() {
    run_cases(models(), Weight::Light);
}

/// The models of more than [`LIGHT_MACS`] (the real noise and echo models: seconds each in
/// the interpreter unoptimised).
#[test]
#[ignore = "long (the reference interpreter on the largest real models): .ci/run runs it"]
fn heavy_models_compute_what_onnxruntime_computes() {
    run_cases(models(), Weight::Heavy);
}

/// The single-op fixtures, through the graph pipeline, to OpenVINO's outputs.
#[test]
fn fixtures_compute_what_openvino_computes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(dir).expect("tests/fixtures").map(|e| e.expect("entry").path()).collect();
    v.sort();
    run_cases(v, Weight::Light);
}

/// Multiply–adds of a run above which a case is heavy.
const LIGHT_MACS: usize = 20_000_000;

/// Which cases a sweep runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Weight {
    Light,
    Heavy,
}

/// The multiply–adds of a run of `m`: its products, dense layers and cells.
fn macs(m: &cellc::ir::Model) -> usize {
    let rows = match m.batch {
        cellc::ir::Batch::Static(n) => n,
        cellc::ir::Batch::Dynamic => 1,
    };
    let per_row: usize = m
        .steps
        .iter()
        .map(|s| match s {
            cellc::ir::Step::MatMul(p) => p.batch.iter().map(|b| b[0]).product::<usize>() * p.m * p.k * p.n,
            cellc::ir::Step::Dense(d) => d.rows * m.denses[d.dense].k * m.denses[d.dense].n,
            cellc::ir::Step::Cell(c) => {
                let cell = &m.cells[c.cell];
                let seq = cell.seq.as_ref().map_or(1, |q| q.steps * q.direction.count());
                c.rows * seq * cell.spec.macs()
            }
            _ => 0,
        })
        .sum();
    per_row * rows
}

fn run_cases(dirs: Vec<PathBuf>, weight: Weight) {
    let mut failed = Vec::new();
    let mut ran = 0;
    for dir in dirs {
        let case: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).expect("case.json")).expect("json");
        // A streaming case (several frames, state carried) is the conformance runner's.
        if case["frames"].as_u64().is_some_and(|f| f > 1) {
            continue;
        }
        // The f32 IR when there is one, else the IR, else the ONNX file alone.
        let xml = ["f32/model.xml", "model.xml", "model.onnx"]
            .iter()
            .map(|f| dir.join(f))
            .find(|p| p.exists())
            .unwrap_or_else(|| dir.join("model.xml"));
        let pins = case["pin"]
            .as_array()
            .map(|v| v.iter().filter_map(|p| cellc::InputShape::parse(p.as_str()?).ok()).collect());
        let names = |k: &str| -> Vec<String> {
            case[k]
                .as_array()
                .map(|v| v.iter().filter_map(|s| Some(s.as_str()?.to_owned())).collect())
                .unwrap_or_default()
        };
        let opts = cellc::Options::default()
            .input_shapes(pins.unwrap_or_default())
            .cut_inputs(names("cut_inputs"))
            .cut_outputs(names("cut_outputs"));
        let m = match cellc::load_graph(&xml, &opts) {
            Ok(m) => m,
            Err(d) => {
                failed.push(format!("{}: {d}", dir.display()));
                continue;
            }
        };
        if (macs(&m) > LIGHT_MACS) != (weight == Weight::Heavy) {
            continue;
        }
        ran += 1;
        let inputs: Vec<Vec<f64>> = case["inputs"]
            .as_array()
            .expect("inputs")
            .iter()
            .map(|i| read_f32(&dir.join(i["file"].as_str().expect("file"))))
            .collect();
        let outs = match cellc::reference::run(&m, &inputs) {
            Ok(o) => o,
            Err(e) => {
                failed.push(format!("{}: {e}", dir.display()));
                continue;
            }
        };
        let tol = case["tolerance"].as_f64().unwrap_or(1e-5);
        for (k, o) in case["outputs"].as_array().expect("outputs").iter().enumerate() {
            // An output on its own scale has its own tolerance (`output_tolerance`).
            let tol = o["name"].as_str().and_then(|n| case["output_tolerance"][n].as_f64()).unwrap_or(tol);
            let want = read_f32(&dir.join(o["file"].as_str().expect("file")));
            let got = &outs[k];
            let err = want.iter().zip(got).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            println!("{}: output {k}: max error {err:.3e}", dir.display());
            if got.len() != want.len() || err > tol {
                failed.push(format!("{}: output {k}: {} values, max error {err}", dir.display(), got.len()));
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
    assert!(ran > 0, "no case ran");
}

/// `--outputs` and `--inputs` cut a model: a head cellc does not compile (the Sigmoid made a
/// GRN) is left out by taking the logits as the output, whose values are onnxruntime's
/// outputs through the inverse sigmoid; and the model cut at the last hidden state computes
/// onnxruntime's outputs from that state.
#[test]
fn cutting_a_model_compiles_the_part_between() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/pt_gru_linear_sigmoid");
    let x = read_f32(&dir.join("in_0.f32"));
    let want = read_f32(&dir.join("out_0.f32"));
    let tmp = tempfile::tempdir().expect("temp dir");
    let xml = std::fs::read_to_string(dir.join("f32/model.xml"))
        .expect("model")
        .replace(r#"type="Sigmoid""#, r#"type="GRN""#);
    std::fs::write(tmp.path().join("model.xml"), xml).expect("write");
    std::fs::copy(dir.join("f32/model.bin"), tmp.path().join("model.bin")).expect("copy");
    let model = tmp.path().join("model.xml");
    let err = cellc::load_graph(&model, &cellc::Options::default()).expect_err("GRN is not compiled");
    assert!(err.to_string().contains("GRN"), "{err}");
    let logits = cellc::Options::default().cut_outputs(vec!["/Gemm_20_output_0".into()]);
    let m = cellc::load_graph(&model, &logits).expect("the logits compile");
    let got = &cellc::reference::run(&m, std::slice::from_ref(&x)).expect("runs")[0];
    for (g, w) in got.iter().zip(&want) {
        let logit = (w / (1.0 - w)).ln();
        assert!((g - logit).abs() < 1e-4, "logit {g} vs {logit}");
    }
    // The last hidden state as the output, then as the input of the head.
    let dir_model = dir.join("f32/model.xml");
    let state = cellc::Options::default().cut_outputs(vec!["/Gather_16_output_0".into()]);
    let m = cellc::load_graph(&dir_model, &state).expect("the GRU compiles alone");
    let h = cellc::reference::run(&m, std::slice::from_ref(&x)).expect("runs").remove(0);
    assert_eq!(h.len(), 2 * 16);
    let head = cellc::Options::default().cut_inputs(vec!["/Gather_16_output_0".into()]);
    let m = cellc::load_graph(&dir_model, &head).expect("the head compiles alone");
    assert_eq!(m.params.len(), 1, "the input of the GRU is no longer needed");
    assert!(m.cells.is_empty());
    let got = &cellc::reference::run(&m, &[h]).expect("runs")[0];
    let err = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(err < 1e-5, "max error {err}");
    let bad = cellc::Options::default().cut_outputs(vec!["nowhere".into()]);
    let err = cellc::load_graph(&dir_model, &bad).expect_err("no such tensor");
    assert!(err.to_string().contains("\"nowhere\"") && err.to_string().contains("/Gather_16_output_0"), "{err}");
}

/// A stateful model (OpenVINO's MakeStateful: ReadValue and Assign) fed its sequence one
/// step a call carries its state, and gives onnxruntime's outputs over the whole sequence;
/// a new session (a reset) starts again from zero.
#[test]
fn a_stateful_model_carries_its_state_between_calls() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/ov_gru_stateful");
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).expect("case.json")).expect("json");
    let m = cellc::load_graph(&dir.join("model.xml"), &cellc::Options::default()).expect("compiles");
    assert_eq!(m.states.len(), 1);
    let mut session = cellc::reference::Session::new(&m);
    let calls = case["calls"].as_array().expect("calls");
    let mut first = Vec::new();
    for (t, call) in calls.iter().enumerate() {
        let x = read_f32(&dir.join(call["inputs"][0]["file"].as_str().expect("file")));
        let want = read_f32(&dir.join(call["outputs"][0]["file"].as_str().expect("file")));
        let got = cellc::reference::run_session(&m, &[x], &mut session).expect("runs").remove(0);
        let err = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(err < 1e-5, "call {t}: max error {err}");
        if t == 0 {
            first = got;
        }
    }
    let x = read_f32(&dir.join(calls[0]["inputs"][0]["file"].as_str().expect("file")));
    let again = cellc::reference::run_session(&m, &[x], &mut cellc::reference::Session::new(&m)).expect("runs");
    assert_eq!(again[0], first, "a new session starts from zero");
}

/// `--state IN=OUT` makes the same variable of a model exported with its state as a
/// Parameter and a Result.
#[test]
fn a_state_pair_becomes_a_variable() {
    let stateful = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/ov_gru_stateful");
    let plain = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/pt_gru_dynamic_h0/f32/model.xml");
    let opts = cellc::Options::default()
        .input_shapes(vec![
            cellc::InputShape::parse("input=[2,1,8]").expect("pin"),
            cellc::InputShape::parse("h0=[1,2,16]").expect("pin"),
        ])
        .states(vec![("h0".into(), "h_n".into())]);
    let m = cellc::load_graph(&plain, &opts).expect("compiles");
    assert_eq!((m.params.len(), m.outputs.len(), m.states.len()), (1, 1, 1));
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stateful.join("case.json")).expect("case.json")).expect("json");
    let mut session = cellc::reference::Session::new(&m);
    for call in case["calls"].as_array().expect("calls") {
        let x = read_f32(&stateful.join(call["inputs"][0]["file"].as_str().expect("file")));
        let want = read_f32(&stateful.join(call["outputs"][0]["file"].as_str().expect("file")));
        let got = cellc::reference::run_session(&m, &[x], &mut session).expect("runs").remove(0);
        let err = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(err < 1e-5, "max error {err}");
    }
    let bad = opts.clone().states(vec![("h0".into(), "nowhere".into())]);
    let msg = cellc::load_graph(&plain, &bad).expect_err("no such Result").to_string();
    assert!(msg.contains("--state h0=nowhere: the model has no such Result; its Results are"), "{msg}");
    // A state left dynamic is told the pin to write.
    let dynamic = opts.clone().input_shapes(opts.input_shapes[..1].to_vec());
    let msg = cellc::load_graph(&plain, &dynamic).expect_err("a dynamic state").to_string();
    assert!(msg.contains("shape [1,?,16] is not static") && msg.contains("--input h0=[1,N,16]"), "{msg}");
}

/// `--state auto` pairs the states of silero-vad v6 as faster-whisper ships it (`h`/`hn`,
/// `c`/`cn`) and the stateful model computes, call after call, what onnxruntime computed
/// with the states carried by hand (the case's expected outputs).
#[test]
fn state_pairs_are_found_by_their_names() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/silero_vad_v6");
    let model = dir.join("model.onnx");
    let opts = cellc::Options::default()
        .state_auto(true)
        .input_shapes(vec![cellc::InputShape::parse("input=[24,576]").expect("pin")]);
    let found = cellc::auto_states(&model, &opts).expect("pairs");
    assert_eq!(found, vec![("h".to_owned(), "hn".to_owned()), ("c".to_owned(), "cn".to_owned())]);
    let m = cellc::load_graph(&model, &opts).expect("compiles");
    assert_eq!((m.params.len(), m.outputs.len(), m.states.len()), (1, 1, 2));
    let x = read_f32(&dir.join("in_0.f32"));
    let want = read_f32(&dir.join("out_0.f32"));
    let (calls, per) = (2, 24);
    let mut session = cellc::reference::Session::new(&m);
    for k in 0..calls {
        let frame = x[k * per * 576..(k + 1) * per * 576].to_vec();
        let got = cellc::reference::run_session(&m, &[frame], &mut session).expect("runs").remove(0);
        let err = got.iter().zip(&want[k * per..(k + 1) * per]).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(err < 1e-5, "call {k}: max error {err}");
    }
    // A model with no such names: told so, with the flag to write instead.
    let plain = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/onnx_pure_ops/model.onnx");
    let none = cellc::Options::default().state_auto(true);
    let msg = cellc::load_graph(&plain, &none).expect_err("no pairs").to_string();
    assert!(msg.contains("found no Parameter and Result named as a state's two ends"), "{msg}");
}

/// A dimension left dynamic that compile-time values hang on (swift-f0's `samples`: its
/// STFTs' padding and frame counts) is reported once, at the first layer it reaches, with
/// the Parameter, the dimension and the pin to write; nothing it leads to is reported again.
#[test]
fn a_dynamic_dimension_is_reported_once_as_the_cause_with_its_pin() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/swift_f0/model.onnx");
    let err = cellc::load_graph(&model, &cellc::Options::default()).expect_err("samples is dynamic");
    assert_eq!(err.0.len(), 1, "one error, the cause: {err}");
    let msg = err.to_string();
    assert!(
        msg.contains("dimension 1 of Parameter \"audio\", which is dynamic") && msg.contains("--input audio=[1,N]"),
        "{msg}"
    );
}

/// A pin of a Parameter the cut then drops (`--outputs` of a value `fmin` does not reach)
/// does nothing, rather than naming a Parameter the cut model no longer has.
#[test]
fn a_pin_of_a_parameter_the_cut_drops_is_no_error() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/swift_f0/model.onnx");
    let pins = ["audio=[1,16000]", "fmin=50"].map(|p| cellc::InputShape::parse(p).expect("pin"));
    let opts = cellc::Options::default().input_shapes(pins.to_vec()).cut_outputs(vec!["v429".into()]);
    let m = cellc::load_graph(&model, &opts).expect("compiles");
    assert_eq!(m.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["audio"]);
}
