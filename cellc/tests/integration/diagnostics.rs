//! Each diagnostic's stable code: docs/DIAGNOSTICS.md lists every one, in the order of
//! `Code::ALL`, and real problems get the code the docs say.
use cellc::diag::Code;
use cellc::{Diagnostics, Options};
use std::path::{Path, PathBuf};

fn docs() -> String {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/DIAGNOSTICS.md");
    std::fs::read_to_string(doc).expect("docs/DIAGNOSTICS.md")
}

#[test]
fn the_docs_list_every_code_once_in_order() {
    let listed: Vec<String> = docs()
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(|h| h.split(':').next().unwrap_or_default().to_owned())
        .collect();
    let codes: Vec<String> = Code::ALL.iter().map(|c| c.id().to_owned()).collect();
    assert_eq!(listed, codes, "docs/DIAGNOSTICS.md's headings against cellc::diag::Code::ALL");
}

fn model(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/models").join(name).join("model.xml")
}

fn codes(e: &Diagnostics) -> Vec<Code> {
    e.0.iter().map(|d| d.code).collect()
}

fn refused(path: &Path, opts: &Options) -> Diagnostics {
    cellc::compile_file(path, opts).expect_err("refused")
}

#[test]
fn problems_get_the_codes_the_docs_give_them() {
    let dynamic = model("pt_gru_dynamic");
    // Dimension 1 (the steps) dynamic, not the batch.
    let e = refused(&dynamic, &Options::default());
    assert_eq!(codes(&e), [Code::Dynamic], "{e}");
    let mut wrong = Options::default();
    wrong.set("input", "inptu=[1,5,8]").expect("the option's form is right");
    let e = refused(&dynamic, &wrong);
    assert_eq!(codes(&e), [Code::Pin], "{e}");
    assert!(e.to_string().contains("error[C0302]"), "{e}");
    let e = refused(Path::new("no/such/model.xml"), &Options::default());
    assert_eq!(codes(&e), [Code::Read], "{e}");
    let mut name = Options::default();
    name.set("input", "input=[1,5,8]").expect("set");
    name.set("name", "not a name").expect("set");
    let e = refused(&dynamic, &name);
    assert_eq!(codes(&e), [Code::Name], "{e}");
}
