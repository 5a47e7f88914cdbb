//! The generated C computes each transcendental activation as `cellc_runtime::act` does:
//! the same operations in the same order, its multiply–adds fused where the target makes
//! `fmaf` fast and rounded twice elsewhere, so the error bounds the runtime's exhaustive
//! test establishes for its FMA levels and for its portable level hold for the C too.
//! Checked here bit for bit on a spread of inputs (every 4099th f32 bit pattern, which
//! visits every exponent of both signs, and the special values), through an RNN cell of one
//! unit whose output is `f(x)`, compiled by `cc -std=c99 -O2` for the baseline x86-64 (no
//! FMA: the portable level's bits) and with `-mfma` (the FMA levels' bits, on a CPU that
//! has FMA).
use cellc::ir::Activation;
use cellc::vocab::CellOp;
use cellc_runtime::__private::simd::{Isa, Level, Portable};
use cellc_runtime::act;
use std::path::Path;
use std::process::Command;

/// `h' = f(x·1 + h·0 + 0)`: `f(x)` for every x but −0, which the sum makes +0. Declared as
/// a macro declares it, its weights in a raw file in `dir`.
fn one_unit(dir: &Path, activation: Activation) -> cellc::ir::verify::Verified {
    let bytes: Vec<u8> = [1.0f32, 0.0, 0.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join("act.bin"), bytes).expect("weights");
    let declaration =
        format!("struct Cell<input_size = 1, hidden_size = 1, activations = [{activation}], weights = \"act.bin\">;");
    cellc::front::decl::model_of_text(CellOp::Rnn, &declaration, dir).unwrap_or_else(|e| panic!("{e}"))
}

const DRIVER: &str = r#"#include "act.h"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb");
    long n;
    float *x, *h, *y;
    (void)argc;
    if (!f || fseek(f, 0, SEEK_END) != 0) return 2;
    n = ftell(f) / (long)sizeof(float);
    rewind(f);
    x = malloc((size_t)n * sizeof(float));
    h = calloc((size_t)n, sizeof(float));
    y = malloc((size_t)n * sizeof(float));
    if (!x || !h || !y || fread(x, sizeof(float), (size_t)n, f) != (size_t)n) return 3;
    fclose(f);
    if (act_cell_step_batch(x, (size_t)n, h, (size_t)n, y, (size_t)n) != ACT_OK) return 4;
    f = fopen(argv[2], "wb");
    if (!f || fwrite(y, sizeof(float), (size_t)n, f) != (size_t)n) return 5;
    return fclose(f) != 0;
}
"#;

/// `f` as the C of `activation` computes it, compiled with `flags`, on every input in `xs`.
fn in_c(dir: &Path, (activation, fast): (Activation, bool), flags: &[&str], xs: &[f32]) -> Vec<f32> {
    let opts = cellc::Options::default().name(Some("act".into())).fast_activations(fast);
    let files = cellc::emit::c::emit(&one_unit(dir, activation), &opts, "act.h").expect("emits");
    std::fs::write(dir.join("act.h"), files.header).expect("header");
    std::fs::write(dir.join("act.c"), files.source).expect("source");
    std::fs::write(dir.join("main.c"), DRIVER).expect("driver");
    let bytes: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(dir.join("in.bin"), bytes).expect("inputs");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let built = Command::new(compiler)
        .args(["-std=c99", "-O2"])
        .args(flags)
        .args(["act.c", "main.c", "-lm", "-o", "act"])
        .current_dir(dir)
        .output()
        .expect("run cc");
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let ran = Command::new(dir.join("act")).args(["in.bin", "out.bin"]).current_dir(dir).status().expect("run");
    assert!(ran.success(), "the driver failed: {ran}");
    let out = std::fs::read(dir.join("out.bin")).expect("outputs");
    out.as_chunks::<4>().0.iter().map(|b| f32::from_le_bytes(*b)).collect()
}

fn inputs() -> Vec<f32> {
    let specials = [0.0, f32::MIN_POSITIVE, -f32::MIN_POSITIVE, f32::MAX, f32::MIN, f32::INFINITY, f32::NEG_INFINITY];
    (0..=u32::MAX).step_by(4099).map(f32::from_bits).filter(|x| !x.is_nan()).chain(specials).collect()
}

/// The runtime's activation `name` (its fast form if `fast`) at the level of `isa`.
fn runtime<I: Isa>(isa: I, name: &str, fast: bool, x: f32) -> f32 {
    match (name, fast) {
        ("sigmoid", false) => act::sigmoid(isa, x),
        ("tanh", false) => act::tanh(isa, x),
        ("elu", false) => act::elu(isa, x, 1.0),
        ("softplus", false) => act::softplus(isa, x),
        ("sigmoid", true) => act::fast::sigmoid(isa, x),
        ("tanh", true) => act::fast::tanh(isa, x),
        ("elu", true) => act::fast::elu(isa, x, 1.0),
        ("softplus", true) => act::fast::softplus(isa, x),
        _ => unreachable!("no case {name}"),
    }
}

/// The first input where `got` and `want` differ in their bits.
fn first_difference(xs: &[f32], got: &[f32], want: &[f32]) -> Option<(f32, f32, f32)> {
    assert_eq!(got.len(), xs.len(), "one output per input");
    xs.iter().zip(got).zip(want).find(|&((_, g), w)| g.to_bits() != w.to_bits()).map(|((&x, &g), &w)| (x, g, w))
}

#[test]
#[ignore = "long (builds generated code in release): .ci/run runs it"]
fn c_activations_compute_the_runtimes_bits() {
    // Which build has FMA is known on x86-64 only: elsewhere (AArch64) `cc` fuses by default.
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let xs = inputs();
    // The -mfma build runs only where the runtime runs a level with FMA (AVX2 and up: the
    // CPU has FMA, and `CELLC_SIMD` does not cap the runtime below it).
    let fma = cellc_runtime::__private::simd::level() != Level::Portable;
    for name in ["sigmoid", "tanh", "elu", "softplus"] {
        for fast in [false, true] {
            let activation = Activation::from_name(name, None, None).expect("known");
            // Without copies for wider processors, which fuse.
            let got = in_c(dir.path(), (activation, fast), &["-DCELLC_NO_DISPATCH"], &xs);
            let want: Vec<f32> = xs.iter().map(|&x| runtime(Portable, name, fast, x)).collect();
            if let Some((x, g, w)) = first_difference(&xs, &got, &want) {
                panic!("{name} (fast: {fast}, no FMA) at x = {x:e}: C {g:e}, cellc_runtime::act {w:e}");
            }
            if !fma {
                continue;
            }
            let got = in_c(dir.path(), (activation, fast), &["-mfma"], &xs);
            let want: Vec<f32> =
                cellc_runtime::__private::dispatch!(|L, isa| xs.iter().map(|&x| runtime(isa, name, fast, x)).collect());
            if let Some((x, g, w)) = first_difference(&xs, &got, &want) {
                panic!("{name} (fast: {fast}, FMA) at x = {x:e}: C {g:e}, cellc_runtime::act {w:e}");
            }
        }
    }
}
