//! Weight tables written as bytes beside the generated Rust (`--weight-tables binary`)
//! compute to the bit what the same tables as literals compute, for every element type a
//! table holds, from a file included from another directory than the crate's root.
use cellc_conformance::scratch::Scratch;
use std::fmt::Write as _;
use std::path::Path;

/// A program that runs each pair of modules `(source, binary)` on the same inputs, for a
/// few frames with a batch of 2, and asserts the outputs are the same bits.
const MAIN: &str = r#"
use cellc_runtime::{Dim, Model};

fn frames<A: Model, B: Model>(mut a: A, mut b: B, what: &str) {
    let batch = |shape: &[Dim]| if shape.iter().any(|d| *d == Dim::Batch) { 2 } else { 1 };
    let mut inputs: Vec<Vec<f32>> = A::INPUTS
        .iter()
        .enumerate()
        .map(|(i, t)| {
            (0..t.row_len() * batch(t.shape)).map(|k| ((k * 7 + i * 3) as f32 * 0.37).sin() * 0.8).collect()
        })
        .collect();
    for frame in 0..3 {
        let mut ya: Vec<Vec<f32>> = A::OUTPUTS.iter().map(|t| vec![0.0; t.row_len() * batch(t.shape)]).collect();
        let mut yb = ya.clone();
        let xs: Vec<&[f32]> = inputs.iter().map(Vec::as_slice).collect();
        a.run(&xs, &mut ya.iter_mut().map(Vec::as_mut_slice).collect::<Vec<_>>()).expect("lengths");
        b.run(&xs, &mut yb.iter_mut().map(Vec::as_mut_slice).collect::<Vec<_>>()).expect("lengths");
        for (o, (p, q)) in ya.iter().zip(&yb).enumerate() {
            let (p, q): (Vec<u32>, Vec<u32>) = (p.iter().map(|v| v.to_bits()).collect(), q.iter().map(|v| v.to_bits()).collect());
            assert_eq!(p, q, "{what}: output {o} of frame {frame}");
            assert!(p.iter().any(|&v| v != 0), "{what}: output {o} of frame {frame} is all zeros");
        }
        // The next frame's inputs move with the outputs (a state fed back where it fits).
        for (x, y) in inputs.iter_mut().zip(&ya) {
            for (v, w) in x.iter_mut().zip(y) {
                *v = 0.5 * *v + 0.5 * w;
            }
        }
    }
    println!("{what}: the same bits");
}
"#;

#[test]
#[ignore = "long (builds generated code in release): .ci/run runs it"]
fn tables_as_bytes_compute_what_tables_as_literals_compute() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let models = [
        ("gru", root.join("examples/gru/model.xml")),
        ("heads", root.join("tests/models/pt_gru_frame_heads/model.xml")),
        ("lstm", root.join("tests/models/pt_lstm_bidirectional/model.xml")),
    ];
    let scratch = Scratch::new("weight_tables");
    let gen_dir = scratch.dir().join("src").join("gen");
    std::fs::create_dir_all(&gen_dir).expect("a directory for the generated files");
    let mut files = Vec::new();
    let mut main = String::from(MAIN);
    let mut mods = String::new();
    main.push_str("fn main() {\n");
    for (name, model) in &models {
        for wt in [cellc::WeightType::F32, cellc::WeightType::F16, cellc::WeightType::Bf16] {
            let tag = format!("{name}_{}", wt.name());
            let opts =
                |tables| cellc::Options::default().weight_type(wt).weight_tables(tables).name(Some("Model".into()));
            let source =
                cellc::compile_file(model, &opts(cellc::WeightTables::Source)).unwrap_or_else(|d| panic!("{d}"));
            assert!(!source.contains("include_bytes!"), "{tag}: tables as literals");
            files.push((format!("{tag}_source.rs"), source));
            let out = gen_dir.join(format!("{tag}.rs"));
            let written =
                cellc::compile_to(model, &opts(cellc::WeightTables::Binary), &out).unwrap_or_else(|d| panic!("{d}"));
            let names: Vec<String> = written.iter().map(|(p, _)| p.display().to_string()).collect();
            assert_eq!(written.len(), 2, "{tag}: the bytes and the source: {names:?}");
            assert_eq!(written[0].0, gen_dir.join(format!("{tag}.weights.bin")));
            let text = String::from_utf8_lossy(&written[1].1);
            assert!(text.contains(&format!("include_bytes!(\"{tag}.weights.bin\")")), "{tag}");
            assert!(!text.contains("= ::cellc_runtime::Aligned(["), "{tag}: no table left as literals");
            for (path, bytes) in &written {
                if std::fs::read(path).ok().as_ref() != Some(bytes) {
                    std::fs::write(path, bytes).expect("write a generated file");
                }
            }
            let _ = writeln!(main, "    frames({tag}_source::Model::new(), {tag}::Model::new(), {tag:?});");
            let _ = writeln!(mods, "mod {tag}_source {{ include!(\"{tag}_source.rs\"); }}");
            let _ = writeln!(mods, "mod {tag} {{ include!(\"gen/{tag}.rs\"); }}");
        }
    }
    main.push_str("}\n");
    main.push_str(&mods);
    files.push(("main.rs".to_owned(), main));
    let exe = scratch.build_program(&files).unwrap_or_else(|e| panic!("{e}"));
    let out = std::process::Command::new(exe).output().expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), models.len() * 3);
}
