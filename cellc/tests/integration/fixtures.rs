//! The generated source of a model of `tests/models`, and one step of it: what the
//! snapshots of single steps show.
use cellc::Options;
use std::path::Path;

/// The generated `language` source of `tests/models/<name>`, its prefix `net`.
pub(crate) fn source(name: &str, language: cellc::Language) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/models/{name}/model.xml"));
    let m = cellc::load_ir(&path, None).expect("fixture loads");
    let opts = Options::default().name(Some("net".into()));
    match language {
        cellc::Language::Rust => cellc::emit::rust::emit(&m, &opts).expect("fixture emits"),
        cellc::Language::C => cellc::emit::c::emit(&m, &opts, "net.h").expect("fixture emits").source,
    }
}

/// The step of `source` that holds the first `what`: from the step marker `mark` before it
/// to the next one.
pub(crate) fn step(source: &str, what: &str, mark: &str) -> String {
    let at = source.find(what).expect("the step looked for");
    let start = source[..at].rfind(mark).expect("its step's start");
    let end = at + source[at..].find(mark).expect("the next step");
    source[start..end].to_owned()
}
