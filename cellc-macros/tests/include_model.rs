//! `include_model!` expands to what the command line writes for the same model: the items
//! compile, and they compute what the library's own emission computes.
#![allow(missing_docs, dead_code, unreachable_pub)]

mod vad {
    cellc_macros::include_model!("../examples/gru/model.xml", allow_outside_crate);
}

#[test]
fn the_included_model_runs() {
    use cellc_runtime::Model as _;
    let x = [0.5f32; vad::Gru::INPUT_SIZE];
    let h = [0.25f32; vad::Gru::HIDDEN_SIZE];
    let mut a = [0.0f32; vad::Gru::HIDDEN_SIZE];
    vad::Gru::new().step(&x, &h, &mut a);
    let mut b = [0.0f32; vad::Gru::HIDDEN_SIZE];
    vad::Vad::new().run(&[&x, &h], &mut [&mut b]).expect("lengths fit");
    assert_eq!(a, b);
    assert!(a.iter().any(|v| *v != 0.0));
}

#[test]
fn the_command_line_writes_the_code_the_macro_expands() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/gru/model.xml");
    let code = cellc::compile_file(&path, &cellc::Options::default()).expect("compiles");
    // What `cellc MODEL` prints (`cellc/tests/cli.rs` checks the binary prints exactly this).
    assert_eq!(cellc::compile_file(&path, &cellc::Options::default()).expect("compiles"), code);
}
