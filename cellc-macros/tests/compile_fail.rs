//! Mistakes in macro input are compile errors at the offending token, with the message
//! committed beside each case.
#[test]
fn compile_fail() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
