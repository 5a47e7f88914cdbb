//! The scratch build's check that no intrinsic is left out of line can fail: a program whose
//! function uses an AVX intrinsic without the target feature is refused, naming it.
#[test]
#[cfg(target_arch = "x86_64")]
fn an_intrinsic_out_of_line_is_refused_by_name() {
    use cellc_conformance::scratch::Scratch;
    // `lanes` has no `#[target_feature]`, so `_mm256_setzero_ps` (an AVX function) cannot be
    // inlined into it and stays a function of its own. The program is built, never run.
    let main = "#[inline(never)]\n\
                fn lanes() -> f32 {\n\
                    // SAFETY: never called.\n\
                    unsafe { core::arch::x86_64::_mm256_cvtss_f32(core::arch::x86_64::_mm256_setzero_ps()) }\n\
                }\n\
                fn main() {\n\
                    if std::env::args().count() > 99 {\n\
                        println!(\"{}\", lanes());\n\
                    }\n\
                }\n";
    let scratch = Scratch::new("out_of_line");
    let err = scratch.build_program(&[("main.rs".to_owned(), main.to_owned())]).expect_err("refused");
    assert!(err.contains("calls intrinsics out of line"), "{err}");
    assert!(err.contains("core::core_arch::x86::avx::_mm256_setzero_ps"), "{err}");
}
