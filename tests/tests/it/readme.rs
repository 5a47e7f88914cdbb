//! The README's main command and its usage snippet: the example model compiles, and the
//! snippet, with the generated file beside it, builds and runs; the README's excerpt of a C
//! header is what cellc writes, and its list of the system headers the C includes is whole.
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
    let opts = cellc::Options::default().language(cellc::Language::C).name(Some("vad".into()));
    let files = cellc::compile_to(&root.join("examples/gru/model.xml"), &opts, Path::new("vad.c"))
        .unwrap_or_else(|d| panic!("{d}"));
    let header = String::from_utf8_lossy(&files[0].1);
    // Every line of the excerpt is a line of the header, in the same order.
    let mut lines = header.lines();
    for want in excerpt.lines().filter(|l| !l.is_empty()) {
        assert!(lines.any(|l| l == want), "the README's header line {want:?} is not in the generated header, in order");
    }
}

/// The system headers (`<…>`) named in the README's sentence "the header includes only …"
/// up to the end of that clause, and those the generated header and source include, for
/// models that use every helper the C back-end has (sequences, dense layers, softmax,
/// convolutions, `Log`/`Sqrt` through `<math.h>`).
#[test]
fn readme_lists_every_system_header_the_c_includes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let start = readme.find("the header includes only").expect("the README's list of included headers");
    let clause = &readme[start..start + readme[start..].find(';').expect("end of the clause")];
    let names = |text: &str, prefix: &str| -> Vec<String> {
        let mut v: Vec<String> =
            text.split(prefix).skip(1).filter_map(|rest| rest.find('>').map(|end| rest[..end].to_owned())).collect();
        v.sort();
        v.dedup();
        v
    };
    let (header_part, source_part) = clause.split_once("the source").expect("the header's and the source's lists");
    let (want_header, want_source) = (names(header_part, "`<"), names(source_part, "`<"));
    let models = [
        root.join("examples/gru/model.xml"),
        root.join("tests/fixtures/gru_seq_bidirectional/model.xml"),
        root.join("tests/models/pt_kws_conv_gru_layernorm/model.xml"),
        root.join("tests/models/silero_vad/model.xml"),
        root.join("tests/models/ov_convolutions/model.xml"),
        root.join("tests/models/ov_norms/model.xml"),
    ];
    let (mut got_header, mut got_source) = (Vec::new(), Vec::new());
    for model in &models {
        let mut opts = cellc::Options::default().language(cellc::Language::C).name(Some("m".into()));
        if let Ok(case) = cellc_conformance::case::Case::load(model.parent().expect("a case directory")) {
            opts.input_shapes = case.pins.clone();
            (opts.cut_inputs, opts.cut_outputs) = case.cut.clone();
        }
        let files = cellc::compile_to(model, &opts, Path::new("m.c")).unwrap_or_else(|d| panic!("{d}"));
        let includes = |bytes: &[u8]| -> Vec<String> {
            String::from_utf8_lossy(bytes)
                .lines()
                .filter_map(|l| l.strip_prefix("#include <").and_then(|r| r.strip_suffix('>')).map(str::to_owned))
                .collect()
        };
        got_header.extend(includes(&files[0].1));
        got_source.extend(includes(&files[1].1));
    }
    for v in [&mut got_header, &mut got_source] {
        v.sort();
        v.dedup();
    }
    assert_eq!(want_header, got_header, "the header's system headers");
    assert_eq!(want_source, got_source, "the source's system headers");
}
