//! Names in generated code survive converting the same model again: OpenVINO numbers the
//! layers it creates (`GRUSequence_54665`) with a counter that differs from one conversion
//! to the next, so generated names come from the model's file, its stable layer names and
//! the cells' positions; `--cell-name` renames.
use cellc::{Language, Options};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models").join(name)
}

/// The model of `case` converted again as OpenVINO would: every counter of the layers it
/// numbered changed (a copy, with its weights, named `model.xml` in `dir`).
fn reconverted(case: &str, dir: &Path) -> PathBuf {
    let xml = std::fs::read_to_string(fixture(case).join("model.xml")).expect("read");
    let mut again = xml.clone();
    for op in ["GRUSequence_", "LSTMSequence_", "RNNSequence_", "/MatMul_", "MatMul_"] {
        again = again.replace(op, &format!("{op}9"));
    }
    assert_ne!(again, xml, "{case}: nothing was renumbered");
    std::fs::write(dir.join("model.xml"), again).expect("write");
    std::fs::copy(fixture(case).join("model.bin"), dir.join("model.bin")).expect("copy");
    dir.join("model.xml")
}

/// The identifiers a generated file defines for users: Rust's `pub` items and C's
/// functions, types and macros (the words of the header outside comments).
fn public_names(code: &str, lang: Language) -> BTreeSet<String> {
    let words = |line: &str| -> Vec<String> {
        line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic()))
            .map(str::to_owned)
            .collect()
    };
    match lang {
        Language::Rust => code
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("pub ") || l.starts_with("impl "))
            .flat_map(words)
            .collect(),
        Language::C => code
            .lines()
            .map(str::trim)
            .filter(|l| !(l.starts_with("/*") || l.starts_with('*') || l.starts_with("//")))
            .flat_map(words)
            .collect(),
    }
}

fn generated(model: &Path, lang: Language, opts: &Options) -> String {
    let opts = opts.clone().language(lang);
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join(if lang == Language::C { "net.c" } else { "net.rs" });
    let files = cellc::compile_to(model, &opts, &out).unwrap_or_else(|d| panic!("{}: {d}", model.display()));
    // The Rust file, or the C header.
    String::from_utf8(files.into_iter().next().expect("a file").1).expect("UTF-8")
}

#[test]
fn a_second_conversion_gives_the_same_public_names() {
    // Two GRUs and two dense heads; a bidirectional LSTM; a stack of LSTMs.
    for case in ["pt_gru_frame_heads", "pt_lstm_bidirectional", "pt_lstm_2_layers"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let again = reconverted(case, dir.path());
        let first = fixture(case).join("model.xml");
        for lang in [Language::Rust, Language::C] {
            let opts = Options::default();
            let (a, b) = (generated(&first, lang, &opts), generated(&again, lang, &opts));
            let (na, nb) = (public_names(&a, lang), public_names(&b, lang));
            assert_eq!(na, nb, "{case} ({lang:?}): the names changed with the conversion");
            // Nothing of the converter's counters reaches a name, and the model's type is
            // named after its file.
            assert!(!na.iter().any(|n| n.contains("54665") || n.contains("Sequence")), "{case}: {na:?}");
            let model = if lang == Language::Rust { "Model" } else { "model_run" };
            assert!(na.contains(model), "{case} ({lang:?}): no {model} in {na:?}");
        }
    }
}

#[test]
fn cells_and_dense_layers_take_the_names_they_are_given() {
    let model = fixture("pt_gru_frame_heads").join("model.xml");
    let mut opts = Options::default();
    for rename in ["gru0=Encoder", "dense1=Head", "/MatMul_17=Frame"] {
        opts.set("cell_name", rename).expect("a rename");
    }
    let code = generated(&model, Language::Rust, &opts);
    for ty in ["pub struct Encoder ", "pub struct EncoderForward", "pub struct Head", "pub struct Frame"] {
        assert!(code.contains(ty), "no `{ty}`");
    }
    let header = generated(&model, Language::C, &opts);
    assert!(header.contains("model_encoder_run("), "{header}");
    // A name that is no cell's is refused with the names there are.
    opts.set("cell_name", "gru7=Decoder").expect("a rename");
    let err = cellc::compile_file(&model, &opts).expect_err("refused").to_string();
    assert!(err.contains("gru7") && err.contains("\"gru0\" (layer \"GRUSequence_39\")"), "{err}");
    assert!(err.contains("\"dense1\" (layer \"/MatMul_25\")"), "{err}");
}
