//! Stateful models stream: OpenVINO's stateful GRU (`tests/models/ov_gru_stateful`, made by
//! MakeStateful) and its two-layer LSTM made stateful by LowLatency2
//! (`tests/models/ov_lstm_low_latency`, whose variables take their first values from the
//! h0/c0 Parameters), compiled to Rust and to C, are fed their sequence one step a call,
//! each call's output within 1e-5 of onnxruntime's over the whole sequence; after a reset
//! the first call gives the same output again, bit for bit.
use cellc_conformance::case::read_data;
use cellc_conformance::cscratch::{STRICT, compiler};
use cellc_conformance::scratch::Scratch;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const CASES: [&str; 2] = ["ov_gru_stateful", "ov_lstm_low_latency"];

fn case_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models").join(name)
}

/// One call: its inputs and its expected outputs.
type Call = (Vec<Vec<f32>>, Vec<Vec<f32>>);

/// Each call of a case.
fn calls(name: &str) -> Vec<Call> {
    let dir = case_dir(name);
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).expect("case.json")).expect("json");
    let file = |v: &serde_json::Value| read_data(&dir.join(v["file"].as_str().expect("file"))).expect("data");
    let all = |c: &serde_json::Value, k: &str| c[k].as_array().expect("tensors").iter().map(file).collect();
    case["calls"].as_array().expect("calls").iter().map(|c| (all(c, "inputs"), all(c, "outputs"))).collect()
}

fn array(v: &[f32]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
    format!("[{}]", items.join(", "))
}

#[test]
#[ignore = "long (builds generated code in release): .ci/run runs it"]
fn stateful_models_stream_in_rust() {
    for name in CASES {
        streams_in_rust(name);
    }
}

fn streams_in_rust(name: &str) {
    let opts = cellc::Options::default().name(Some("Model".into()));
    let code = cellc::compile_file(&case_dir(name).join("model.xml"), &opts).expect("compiles");
    let ins = |xs: &[Vec<f32>]| xs.iter().map(|x| format!("&{}", array(x))).collect::<Vec<_>>().join(", ");
    let outs = |ys: &[Vec<f32>]| ys.iter().map(|y| format!("vec![0.0f32; {}]", y.len())).collect::<Vec<_>>().join(", ");
    let mut main = String::from(
        "#![allow(dead_code)] // the cell types' own API is not used here\nmod m { include!(\"m.rs\"); }\nuse cellc_runtime::Model as _;\n\nfn main() {\n",
    );
    main += "    let mut model = m::Model::new();\n    let first: Vec<Vec<f32>>;\n";
    for (t, (xs, wants)) in calls(name).iter().enumerate() {
        let _ = writeln!(main, "    let x: &[&[f32]] = &[{}];", ins(xs));
        let _ = writeln!(main, "    let mut ys: Vec<Vec<f32>> = vec![{}];", outs(wants));
        main += "    let mut y: Vec<&mut [f32]> = ys.iter_mut().map(|v| v.as_mut_slice()).collect();\n";
        main += "    model.run(x, &mut y).expect(\"runs\");\n";
        for (k, want) in wants.iter().enumerate() {
            let _ = writeln!(
                main,
                "    assert!(ys[{k}].iter().zip(&{}).all(|(a, b): (&f32, &f32)| (a - b).abs() < 1e-5), \"call {t}, output {k}: {{:?}}\", ys[{k}]);",
                array(want)
            );
        }
        if t == 0 {
            main += "    first = ys.clone();\n";
        }
    }
    let (x0, want0) = &calls(name)[0];
    let _ = writeln!(
        main,
        "    model.reset();\n    let mut ys: Vec<Vec<f32>> = vec![{}];\n    let mut y: Vec<&mut [f32]> = ys.iter_mut().map(|v| v.as_mut_slice()).collect();\n    model.run(&[{}], &mut y).expect(\"runs\");\n    assert_eq!(ys, first, \"after a reset\");\n}}",
        outs(want0),
        ins(x0)
    );
    let scratch = Scratch::new(&format!("stateful_{name}"));
    let exe = scratch.build_program(&[("main.rs".into(), main), ("m.rs".into(), code)]).expect("builds");
    let out = Command::new(exe).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
#[ignore = "long (builds generated code in release): .ci/run runs it"]
fn stateful_models_stream_in_c() {
    for name in CASES {
        streams_in_c(name);
    }
}

fn streams_in_c(name: &str) {
    let opts = cellc::Options::default().name(Some("m".into())).language(cellc::Language::C);
    let dir = tempfile::tempdir().expect("temp dir");
    let files = cellc::compile_to(&case_dir(name).join("model.xml"), &opts, &dir.path().join("m.c")).expect("compiles");
    for (path, text) in &files {
        std::fs::write(path, text).expect("write");
    }
    let mut main = String::from(
        "#include <math.h>\n#include <stdio.h>\n#include <string.h>\n#include \"m.h\"\n\nint main(void)\n{\n",
    );
    let sizes: Vec<usize> = calls(name)[0].1.iter().map(Vec::len).collect();
    main += "    static m_model model;\n    m_reset(&model);\n";
    for (k, n) in sizes.iter().enumerate() {
        let _ = writeln!(main, "    float first{k}[{n}];");
    }
    // One call in its own block: `xs` in, `y0`, `y1`, … out, then `check` on them.
    let call = |main: &mut String, xs: &[Vec<f32>], before: &str, check: &str| {
        let list = |v: &[f32]| v.iter().map(|x| format!("{x:?}f")).collect::<Vec<_>>().join(", ");
        main.push_str("    {\n");
        for (k, x) in xs.iter().enumerate() {
            let _ = writeln!(main, "        static const float x{k}[{}] = {{{}}};", x.len(), list(x));
        }
        for (k, n) in sizes.iter().enumerate() {
            let _ = writeln!(main, "        float y{k}[{n}];");
        }
        let (n, m) = (xs.len(), sizes.len());
        let join = |v: Vec<String>| v.join(", ");
        let _ = writeln!(
            main,
            "        const float *ins[{n}] = {{{}}};\n        float *outs[{m}] = {{{}}};",
            join((0..n).map(|k| format!("x{k}")).collect()),
            join((0..m).map(|k| format!("y{k}")).collect())
        );
        let _ = writeln!(
            main,
            "        size_t il[{n}] = {{{}}}, ol[{m}] = {{{}}};\n{before}",
            join(xs.iter().map(|x| x.len().to_string()).collect()),
            join(sizes.iter().map(ToString::to_string).collect())
        );
        let _ =
            writeln!(main, "        if (m_run(&model, ins, il, {n}, outs, ol, {m}) != M_OK) return 1;\n{check}    }}");
    };
    for (t, (x, wants)) in calls(name).iter().enumerate() {
        let mut check = String::new();
        for (k, want) in wants.iter().enumerate() {
            let list = want.iter().map(|x| format!("{x:?}f")).collect::<Vec<_>>().join(", ");
            let _ = writeln!(
                check,
                "        {{\n            static const float want[{n}] = {{{list}}};\n            for (size_t j = 0; j < {n}; ++j) if (fabsf(y{k}[j] - want[j]) >= 1e-5f) {{ printf(\"call {t}, output {k}\\n\"); return 2; }}\n        }}",
                n = want.len()
            );
            if t == 0 {
                let _ = writeln!(check, "        memcpy(first{k}, y{k}, sizeof y{k});");
            }
        }
        call(&mut main, x, "", &check);
    }
    // After a reset, call 0's inputs again.
    let (x0, _) = &calls(name)[0];
    let mut check = String::new();
    for k in 0..sizes.len() {
        let _ = writeln!(
            check,
            "        if (memcmp(y{k}, first{k}, sizeof y{k}) != 0) {{ printf(\"after a reset\\n\"); return 3; }}"
        );
    }
    call(&mut main, x0, "        m_reset(&model);", &check);
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
    assert!(run.status.success(), "{name}: exit {:?}: {}", run.status.code(), String::from_utf8_lossy(&run.stdout));
}
