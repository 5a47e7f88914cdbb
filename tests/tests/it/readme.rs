//! The README's main command and its usage snippet: the example model compiles, and the
//! snippet, with the generated file beside it, builds and runs; the README's excerpt of a C
//! header is what cellc writes.
use cellc_conformance::scratch::Scratch;
use std::path::Path;

#[test]
fn readme_snippet_builds_and_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    // The usage snippet: the rust block that includes the generated `gru.rs`.
    let start = readme.find("```rust,ignore\ninclude!(\"gru.rs\")").expect("the usage snippet in the README")
        + "```rust,ignore\n".len();
    let snippet = &readme[start..start + readme[start..].find("```").expect("end of the block")];
    let code = cellc::compile_file(&root.join("examples/gru/model.xml"), &cellc::Options::default())
        .unwrap_or_else(|d| panic!("{d}"));
    let scratch = Scratch::new("readme");
    let files = [("gru.rs".to_owned(), code), ("main.rs".to_owned(), snippet.to_owned())];
    let exe = scratch.build_program(&files).unwrap_or_else(|e| panic!("{e}"));
    let out = std::process::Command::new(exe).output().expect("run the snippet");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn readme_c_header_excerpt_is_what_cellc_writes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let start = readme.find("```c\n").expect("the C header excerpt in the README") + "```c\n".len();
    let excerpt = &readme[start..start + readme[start..].find("```").expect("end of the block")];
    let opts = cellc::Options { language: cellc::Language::C, name: Some("vad".into()), ..Default::default() };
    let files = cellc::compile_to(&root.join("examples/gru/model.xml"), &opts, Path::new("vad.c"))
        .unwrap_or_else(|d| panic!("{d}"));
    let header = &files[0].1;
    // Every line of the excerpt is a line of the header, in the same order.
    let mut lines = header.lines();
    for want in excerpt.lines().filter(|l| !l.is_empty()) {
        assert!(lines.any(|l| l == want), "the README's header line {want:?} is not in the generated header, in order");
    }
}
