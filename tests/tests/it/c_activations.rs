//! The generated C computes each transcendental activation as `cellc_runtime::act` does:
//! the same operations in the same order, its multiply–adds fused where the target makes
//! `fmaf` fast and rounded twice elsewhere, so the error bounds the runtime's exhaustive
//! test establishes for its FMA levels and for its portable level hold for the C too.
//! Checked here bit for bit on a spread of inputs (every 4099th f32 bit pattern, which
//! visits every exponent of both signs, and the special values), through an RNN cell of one
//! unit whose output is `f(x)`, compiled by `cc -std=c99 -O2` for the baseline x86-64 (no
//! FMA: the portable level's bits) and with `-mfma` (the FMA levels' bits, on a CPU that
//! has FMA). The logarithm of the layers around the cells (`math::ln`) and the C's rows of
//! square roots are checked the same way, through a model of `Log` and `Sqrt`.
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
    built_and_run(dir, "act", &[&["-std=c99", "-O2"], flags])
}

/// `<name>.c` and `main.c` of `dir` compiled by `cc` (or `$CC`) with `flags` and run on
/// `in.bin`: the floats the driver writes to `out.bin`.
fn built_and_run(dir: &Path, name: &str, flags: &[&[&str]]) -> Vec<f32> {
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let built = Command::new(compiler)
        .args(flags.concat())
        .args([&format!("{name}.c"), "main.c", "-lm", "-o", name])
        .current_dir(dir)
        .output()
        .expect("run cc");
    assert!(built.status.success(), "{flags:?}: {}", String::from_utf8_lossy(&built.stderr));
    let ran = Command::new(dir.join(name)).args(["in.bin", "out.bin"]).current_dir(dir).status().expect("run");
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

/// A model of `Log(x)` and `Sqrt(x)` over `n` values, as OpenVINO IR text.
fn log_and_sqrt(n: usize) -> String {
    let port = |id: u32| format!(r#"<port id="{id}" precision="FP32"><dim>{n}</dim></port>"#);
    let op = |id: u32, ty: &str| {
        format!(
            r#"<layer id="{id}" name="{ty}" type="{ty}" version="opset1"><input>{}</input><output>{}</output></layer>
<layer id="{}" name="{ty}_out" type="Result" version="opset1"><input>{}</input></layer>
"#,
            port(0),
            port(1),
            id + 1,
            port(0)
        )
    };
    format!(
        r#"<?xml version="1.0"?>
<net name="math" version="11">
<layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{n}" element_type="f32"/><output>{}</output></layer>
{}{}</layers>
<edges>
<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
<edge from-layer="0" from-port="0" to-layer="3" to-port="0"/>
<edge from-layer="3" from-port="1" to-layer="4" to-port="0"/>
</edges>
</net>
"#,
        port(0),
        op(1, "Log"),
        op(3, "Sqrt")
    )
}

const MATH_DRIVER: &str = r#"#include "math_net.h"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb");
    static float x[N], y[2][N];
    const float *in[1];
    float *out[2];
    size_t lin[1] = {N}, lout[2] = {N, N};
    static math_net_model net;
    (void)argc;
    if (!f || fread(x, sizeof(float), N, f) != N) return 3;
    fclose(f);
    in[0] = x;
    out[0] = y[0];
    out[1] = y[1];
    if (math_net_run(&net, in, lin, 1, out, lout, 2) != MATH_NET_OK) return 4;
    f = fopen(argv[2], "wb");
    if (!f || fwrite(y, sizeof(float), 2 * N, f) != 2 * N) return 5;
    return fclose(f) != 0;
}
"#;

#[test]
#[ignore = "long (builds generated code in release): .ci/run runs it"]
fn c_log_and_square_root_compute_the_runtimes_bits() {
    // `Log` as the runtime's `math::ln` (in double, so no fused multiply-add changes its
    // bits), `Sqrt` through the C's row of square roots: its vectors and its tail (the
    // count is odd), at the baseline, at AVX2 and at AVX-512 where the CPU has them.
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let xs: Vec<f32> = inputs().into_iter().chain([-0.0, -1.0, f32::NAN, 1.0, 2.0, 1e-45]).collect();
    let n = xs.len();
    assert!(!n.is_multiple_of(4), "a tail after the vectors");
    let g = cellc::front::openvino::parse_graph(
        "math.xml",
        &log_and_sqrt(n),
        cellc::vocab::Weights::whole("math.bin", vec![]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let m = cellc::model_of(g).unwrap_or_else(|e| panic!("{e}"));
    let opts = cellc::Options::default().name(Some("math_net".into()));
    let files = cellc::emit::c::emit(&m, &opts, "math_net.h").expect("emits");
    std::fs::write(dir.path().join("math_net.h"), files.header).expect("header");
    std::fs::write(dir.path().join("math_net.c"), files.source).expect("source");
    std::fs::write(dir.path().join("main.c"), MATH_DRIVER).expect("driver");
    let bytes: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(dir.path().join("in.bin"), bytes).expect("inputs");
    let level = cellc_runtime::__private::simd::level();
    let mut builds: Vec<&[&str]> = vec![&[]];
    if level >= Level::Avx2 {
        builds.push(&["-mavx2", "-mfma"]);
    }
    if level >= Level::Avx512 {
        builds.push(&["-mavx512f", "-mfma"]);
    }
    let ln: Vec<f32> = xs.iter().map(|&x| cellc_runtime::__private::math::ln(x)).collect();
    let sqrt: Vec<f32> = xs.iter().map(|&x| cellc_runtime::__private::math::sqrt(x)).collect();
    let count = format!("-DN={n}");
    for flags in builds {
        let strict: &[&str] = &["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic", &count];
        let got = built_and_run(dir.path(), "math_net", &[strict, flags]);
        for (name, got, want) in [("ln", &got[..n], &ln), ("sqrt", &got[n..], &sqrt)] {
            // NaNs compared as NaNs: their payloads are the instructions'.
            let same = |g: f32, w: f32| g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan());
            if let Some(((x, g), w)) = xs.iter().zip(got).zip(want.iter()).find(|((_, g), w)| !same(**g, **w)) {
                panic!("{name} ({flags:?}) at x = {x:e}: C {g:e}, the runtime {w:e}");
            }
        }
    }
}
