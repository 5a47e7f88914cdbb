//! Extracts the README's macro snippet, so that a test builds it exactly as a user would
//! copy it, in a crate whose only dependency is `cellc-runtime`.
use std::path::Path;

fn main() {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    println!("cargo:rerun-if-changed={}", readme.display());
    let text = std::fs::read_to_string(&readme).expect("README.md");
    let open = "```rust,ignore\ncellc_runtime::gru_cell!";
    let start = text.find(open).expect("the macro snippet in the README") + "```rust,ignore\n".len();
    let end = start + text[start..].find("```").expect("the end of the snippet");
    // The test calls the snippet's `main` from a module.
    let snippet = text[start..end].replacen("fn main(", "pub fn main(", 1);
    let out = Path::new(&std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("readme_macro.rs");
    std::fs::write(out, snippet).expect("write the snippet");
}
