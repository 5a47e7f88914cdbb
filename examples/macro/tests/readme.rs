//! The README's macro snippet builds and runs as it stands.
#![allow(missing_docs, unreachable_pub)]

mod readme {
    include!(concat!(env!("OUT_DIR"), "/readme_macro.rs"));
}

#[test]
fn the_readme_macro_snippet_runs() {
    readme::main().expect("the snippet runs");
}
