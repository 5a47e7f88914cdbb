//! Mistakes in macro input are compile errors at the offending token, with the message
//! committed beside each case.
#[test]
#[ignore = "long (trybuild builds the macros' dependencies again): .ci/run runs it"]
fn compile_fail() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
