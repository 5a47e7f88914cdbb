//! A stateful model streams: OpenVINO's stateful GRU (`tests/models/ov_gru_stateful`, made by
//! MakeStateful) compiled to Rust and to C is fed its sequence one step a call, each call's
//! output within 1e-5 of onnxruntime's over the whole sequence; after a reset the first
//! call gives the same output again, bit for bit.
use cellc_conformance::case::read_data;
use cellc_conformance::cscratch::{STRICT, compiler};
use cellc_conformance::scratch::Scratch;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn case_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models/ov_gru_stateful")
}

/// Each call's input and expected output.
fn calls() -> Vec<(Vec<f32>, Vec<f32>)> {
    let dir = case_dir();
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).expect("case.json")).expect("json");
    let file = |v: &serde_json::Value| read_data(&dir.join(v["file"].as_str().expect("file"))).expect("data");
    case["calls"].as_array().expect("calls").iter().map(|c| (file(&c["inputs"][0]), file(&c["outputs"][0]))).collect()
}

fn array(v: &[f32]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
    format!("[{}]", items.join(", "))
}

#[test]
fn a_stateful_model_streams_in_rust() {
    let opts = cellc::Options { name: Some("Model".into()), ..Default::default() };
    let code = cellc::compile_file(&case_dir().join("model.xml"), &opts).expect("compiles");
    let mut main = String::from(
        "#![allow(dead_code)] // the cell types' own API is not used here\nmod m { include!(\"m.rs\"); }\nuse cellc_runtime::Model as _;\n\nfn main() {\n",
    );
    main += "    let mut model = m::Model::new();\n    let first: Vec<f32>;\n";
    for (t, (x, want)) in calls().iter().enumerate() {
        let _ = writeln!(main, "    let x: &[f32] = &{};\n    let want: &[f32] = &{};", array(x), array(want));
        let _ = writeln!(main, "    let mut y = vec![0.0f32; {}];", want.len());
        main += "    model.run(&[x], &mut [&mut y]).expect(\"runs\");\n";
        let _ = writeln!(
            main,
            "    assert!(y.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-5), \"call {t}: {{y:?}}\");"
        );
        if t == 0 {
            main += "    first = y.clone();\n";
        }
    }
    let (x0, want0) = &calls()[0];
    let _ = writeln!(
        main,
        "    model.reset();\n    let mut y = vec![0.0f32; {}];\n    model.run(&[&{}], &mut [&mut y]).expect(\"runs\");\n    assert_eq!(y, first, \"after a reset\");\n}}",
        want0.len(),
        array(x0)
    );
    let scratch = Scratch::new("stateful");
    let exe = scratch.build_program(&[("main.rs".into(), main), ("m.rs".into(), code)]).expect("builds");
    let out = Command::new(exe).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_stateful_model_streams_in_c() {
    let opts = cellc::Options { name: Some("m".into()), language: cellc::Language::C, ..Default::default() };
    let dir = tempfile::tempdir().expect("temp dir");
    let files = cellc::compile_to(&case_dir().join("model.xml"), &opts, &dir.path().join("m.c")).expect("compiles");
    for (path, text) in &files {
        std::fs::write(path, text).expect("write");
    }
    let mut main = String::from(
        "#include <math.h>\n#include <stdio.h>\n#include <string.h>\n#include \"m.h\"\n\nint main(void)\n{\n",
    );
    main += "    static m_model model;\n    float first[64];\n    m_reset(&model);\n";
    // One call in its own block: `x` in, `y` out, then `check` on them.
    let call = |main: &mut String, x: &[f32], n_out: usize, before: &str, check: &str| {
        let list = |v: &[f32]| v.iter().map(|x| format!("{x:?}f")).collect::<Vec<_>>().join(", ");
        let _ = writeln!(main, "    {{\n        static const float x[{}] = {{{}}};", x.len(), list(x));
        let _ = writeln!(
            main,
            "        float y[{n_out}];\n        const float *ins[1] = {{x}};\n        float *outs[1] = {{y}};"
        );
        let _ = writeln!(main, "        size_t il[1] = {{{}}}, ol[1] = {{{n_out}}};\n{before}", x.len());
        let _ = writeln!(main, "        if (m_run(&model, ins, il, 1, outs, ol, 1) != M_OK) return 1;\n{check}    }}");
    };
    for (t, (x, want)) in calls().iter().enumerate() {
        let wants = want.iter().map(|x| format!("{x:?}f")).collect::<Vec<_>>().join(", ");
        let mut check = format!(
            "        static const float want[{n}] = {{{wants}}};\n        for (size_t j = 0; j < {n}; ++j) if (fabsf(y[j] - want[j]) >= 1e-5f) {{ printf(\"call {t}\\n\"); return 2; }}\n",
            n = want.len()
        );
        if t == 0 {
            check += "        memcpy(first, y, sizeof y);\n";
        }
        call(&mut main, x, want.len(), "", &check);
    }
    // After a reset, call 0's input again.
    let (x0, want0) = &calls()[0];
    let check = "        if (memcmp(y, first, sizeof y) != 0) { printf(\"after a reset\\n\"); return 3; }\n";
    call(&mut main, x0, want0.len(), "        m_reset(&model);", check);
    main += "    return 0;\n}\n";
    std::fs::write(dir.path().join("main.c"), main).expect("write main");
    let exe = dir.path().join("prog");
    let out = Command::new(compiler())
        .args(STRICT)
        .arg("-I")
        .arg(dir.path())
        .args([dir.path().join("m.c"), dir.path().join("main.c")])
        .arg("-o")
        .arg(&exe)
        .arg("-lm")
        .output()
        .expect("run the C compiler");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).output().expect("runs");
    assert!(run.status.success(), "exit {:?}: {}", run.status.code(), String::from_utf8_lossy(&run.stdout));
}
