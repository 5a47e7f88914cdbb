//! A generated dense layer's own entry point (`DenseN::run`), as a program calls it: rows in,
//! one row of `y` for each row of `x`, another count an error with nothing written (a
//! partial row cannot be passed: rows are typed by their width). The layer is the ReLU head
//! of `tests/models/pt_gru_frame_heads` (32 inputs, 600 outputs a row).
use cellc_conformance::scratch::Scratch;
use std::path::Path;
use std::process::Command;

const MAIN: &str = r#"mod m { include!("m.rs"); }
use m::Dense0 as D;

fn main() {
    let x: Vec<[f32; D::INPUT_SIZE]> = (0..2)
        .map(|r| core::array::from_fn(|i| ((r * 37 + i * 11) % 17) as f32 / 8.0 - 1.0))
        .collect();
    // A row more in y than in x: an error, and y as it was (the ReLU makes no value negative).
    let mut y = vec![[-1.0f32; D::OUTPUT_SIZE]; 3];
    let err = D::run(&x, &mut y).expect_err("a row count that differs");
    assert_eq!(err, cellc_runtime::Error::Length { name: "y", expected: 2, got: 3 });
    assert!(y.iter().flatten().all(|&v| v == -1.0), "y was written");
    // One row for each: the rows computed as each alone gives it.
    let mut y = vec![[-1.0f32; D::OUTPUT_SIZE]; 2];
    D::run(&x, &mut y).expect("as many rows");
    for r in 0..2 {
        let mut one = [[-1.0f32; D::OUTPUT_SIZE]; 1];
        D::run(&x[r..r + 1], &mut one).expect("one row");
        assert_eq!(one[0], y[r], "row {r}");
        assert!(y[r].iter().all(|&v| v >= 0.0), "row {r} went through its ReLU");
    }
    assert!(y.iter().flatten().any(|&v| v > 0.0));
    D::run(&[], &mut []).expect("no rows");
    println!("ok");
}
"#;

#[test]
#[ignore = "long (builds generated code in release): .ci/run runs it"]
fn a_dense_layer_takes_one_row_of_y_for_each_row_of_x() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/pt_gru_frame_heads/model.xml");
    let code = cellc::compile_file(&model, &cellc::Options::default()).expect("compiles");
    let scratch = Scratch::new("dense_run");
    let exe = scratch.build_program(&[("main.rs".into(), MAIN.into()), ("m.rs".into(), code)]).expect("builds");
    let out = Command::new(exe).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");
}
