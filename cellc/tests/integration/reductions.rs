//! Snapshots of a reduction across rows (`ir::Reduce::across_rows`): the outputs of a row
//! reduced side by side, in Rust and C. `tests/models/ov_reductions` checks their values
//! against OpenVINO in both languages.
use cellc::Options;
use std::path::Path;

/// The generated `language` source of `tests/models/ov_reductions`.
fn source(language: cellc::Language) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models/ov_reductions/model.xml");
    let m = cellc::load_ir(&path, None).expect("fixture loads");
    let opts = Options::default().name(Some("net".into()));
    match language {
        cellc::Language::Rust => cellc::emit::rust::emit(&m, &opts).expect("fixture emits"),
        cellc::Language::C => cellc::emit::c::emit(&m, &opts, "net.h").expect("fixture emits").source,
    }
}

/// The step of `source` that holds the first `what`: from the step marker `mark` before it
/// to the next one.
fn step(source: &str, what: &str, mark: &str) -> String {
    let at = source.find(what).expect("a reduction across rows");
    let start = source[..at].rfind(mark).expect("its step's start");
    let end = at + source[at..].find(mark).expect("the next step");
    source[start..end].to_owned()
}

#[test]
fn rust_reduction_across_rows() {
    // An L2 norm over the middle axis of [2, 5, 3]: for each of the 2 outer rows, its 3
    // outputs reduced over 5 rows side by side, then the square root of each.
    insta::assert_snapshot!(step(&source(cellc::Language::Rust), "row.fill", "observe("));
}

#[test]
fn c_reduction_across_rows() {
    // The same step: the row's outputs summed in place in `dst`, a loop GCC vectorises.
    insta::assert_snapshot!(step(&source(cellc::Language::C), "float *const row", "NET_STEP_DONE("));
}
