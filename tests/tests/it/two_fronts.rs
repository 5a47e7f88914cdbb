//! Two front-ends, one answer: every committed model with both an ONNX file and the IR
//! OpenVINO converted from it compiles to the same steps from either (names aside: ONNX
//! names its tensors, OpenVINO renames them), so that the kernels, and therefore the
//! numbers, are the same. Their outputs are checked against the same expected values by
//! the conformance runner. A case whose forms differ by what the conversion wrote says why
//! in its `fronts_differ` (and must differ: an explanation cannot hide equal steps).
use cellc_conformance::case::Case;
use std::path::{Path, PathBuf};

fn models() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models")
}

/// A step's words with the names in them (the quoted parts) left out.
fn unnamed(step: &str) -> String {
    step.split('"').step_by(2).collect::<Vec<_>>().join("\"…\"")
}

fn steps(path: &Path, case: &Case) -> Result<Vec<String>, String> {
    let opts = cellc::Options::default()
        .input_shapes(case.pins.clone())
        .cut_inputs(case.cut.0.clone())
        .cut_outputs(case.cut.1.clone());
    let v = cellc::load_graph(path, &opts).map_err(|e| format!("{}: {e}", path.display()))?;
    let m = v.model();
    // Steps that do not depend on each other may come in another order (the order of the
    // nodes in the file): the same steps, as a multiset.
    let mut steps: Vec<String> = m.steps.iter().map(|s| unnamed(&m.step_text(s))).collect();
    steps.sort();
    Ok(steps)
}

#[test]
fn an_onnx_file_and_its_ir_compile_to_the_same_steps() {
    let mut compared = Vec::new();
    let mut problems = Vec::new();
    for dir in Case::discover(&models()).expect("tests/models") {
        let ir = [dir.join("f32/model.xml"), dir.join("model.xml")].into_iter().find(|p| p.is_file());
        let (Some(ir), true) = (ir, dir.join("model.onnx").is_file()) else { continue };
        let case = Case::load(&dir).expect("case");
        let (a, b) = match (steps(&dir.join("model.onnx"), &case), steps(&ir, &case)) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                problems.extend(a.err().into_iter().chain(b.err()));
                continue;
            }
        };
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).expect("case.json")).expect("json");
        if let Some(why) = json["fronts_differ"].as_str() {
            if a == b {
                problems
                    .push(format!("{}: the same steps from both forms, yet `fronts_differ` says {why:?}", case.name));
            }
            continue;
        }
        if a != b {
            let diff: Vec<String> = a
                .iter()
                .zip(&b)
                .enumerate()
                .filter(|(_, (x, y))| x != y)
                .take(3)
                .map(|(k, (x, y))| format!("step {k}: ONNX {x:?}, IR {y:?}"))
                .collect();
            problems.push(format!(
                "{}: {} steps from the ONNX file, {} from the IR: {}",
                case.name,
                a.len(),
                b.len(),
                diff.join("; ")
            ));
        }
        compared.push(case.name);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(compared.len() >= 28, "only {} models have both forms: {compared:?}", compared.len());
}
