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

fn folded(xml: &Path) -> Graph {
    let mut g = cellc::front::openvino::read_graph(xml, None).expect("reads");
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
            for op in ["ShapeOf", "Broadcast", "If", "Convert"] {
                assert!(!left.contains(op), "{}: {op} is left: {left:?}", xml.display());
            }
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
/// OpenVINO's) outputs: the planner's steps compute the graph.
#[test]
fn planned_steps_compute_what_onnxruntime_computes() {
    run_cases(models());
}

/// The single-op fixtures, through the graph pipeline, to OpenVINO's outputs.
#[test]
fn fixtures_compute_what_openvino_computes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(dir).expect("tests/fixtures").map(|e| e.expect("entry").path()).collect();
    v.sort();
    run_cases(v);
}

fn run_cases(dirs: Vec<PathBuf>) {
    let mut failed = Vec::new();
    for dir in dirs {
        let case: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).expect("case.json")).expect("json");
        let xml = if dir.join("f32/model.xml").exists() { dir.join("f32/model.xml") } else { dir.join("model.xml") };
        let pins = case["pin"]
            .as_array()
            .map(|v| v.iter().filter_map(|p| cellc::InputShape::parse(p.as_str()?).ok()).collect());
        let opts = cellc::Options { input_shapes: pins.unwrap_or_default(), ..Default::default() };
        let m = match cellc::load_graph(&xml, &opts) {
            Ok(m) => m,
            Err(d) => {
                failed.push(format!("{}: {d}", dir.display()));
                continue;
            }
        };
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
}
