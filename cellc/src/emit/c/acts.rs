//! The C definitions of the activations, each computed as `cellc_runtime::act` (or, with
//! fast activations, `cellc_runtime::act::fast`) computes it: the same operations in the
//! same order, so the C has the same error bounds, and its loops over lanes vectorise. The
//! multiply–adds the runtime fuses at its levels with FMA go through `PREFIX_fma`, which
//! fuses them where `<math.h>` says `fmaf` is fast (`FP_FAST_FMAF`: a target with FMA
//! instructions, such as `-march=native` on x86-64 machines of the last decade) and rounds
//! the product and the sum otherwise: the bits of the runtime's FMA levels, or of its
//! portable level.
use super::text::float;
use crate::ir::Activation;
use cellc_pack::poly;

/// A helper's comment, parameters and body (`PREFIX` stands for the file's prefix).
pub(super) type Definition = (&'static str, &'static str, String);

/// The helpers other helpers call, callees first.
const CALLEES: &[&str] = &[
    "select",
    "clip",
    "fma",
    "exp_reduced_m1",
    "exp",
    "expm1_neg",
    "ln_1p_unit",
    "ln",
    "tanh",
    "fast_exp_neg",
    "fast_tanh",
];

/// `ln` and every helper it calls: what a `Log` of the layers around the cells needs.
pub(super) const LN: &[&str] = &["select", "ln"];

/// `exp` and every helper it calls: what an `Exp` of the layers around the cells needs.
pub(super) const EXP: &[&str] = &["select", "fma", "exp_reduced_m1", "exp"];

/// The fast activations that call one of [`CALLEES`].
const FAST: &[&str] = &["fast_sigmoid", "fast_scaledtanh", "fast_elu", "fast_softplus"];

/// Every helper an activation can need, callees before callers, each once: the order
/// definitions come out in.
pub(super) fn order() -> impl Iterator<Item = &'static str> {
    let activations = Activation::NAMES.iter().filter(|n| !CALLEES.contains(n));
    CALLEES.iter().chain(activations).chain(FAST).copied()
}

/// The helper computing `a` (fast or not) and every helper it calls.
pub(super) fn helper(a: &Activation, fast: bool) -> (&'static str, &'static [&'static str]) {
    match (a, fast) {
        (Activation::Sigmoid, false) => ("sigmoid", &["select", "fma", "exp_reduced_m1"]),
        (Activation::Tanh, false) => ("tanh", &["select", "fma", "exp_reduced_m1"]),
        (Activation::ScaledTanh { .. }, false) => ("scaledtanh", &["select", "fma", "exp_reduced_m1", "tanh"]),
        (Activation::Elu { .. }, false) => ("elu", &["select", "fma", "exp_reduced_m1", "exp", "expm1_neg"]),
        (Activation::Softplus, false) => ("softplus", &["select", "fma", "exp_reduced_m1", "exp", "ln_1p_unit"]),
        (Activation::Sigmoid, true) => ("fast_sigmoid", &["select", "fma", "fast_tanh"]),
        (Activation::Tanh, true) => ("fast_tanh", &["select", "fma"]),
        (Activation::ScaledTanh { .. }, true) => ("fast_scaledtanh", &["select", "fma", "fast_tanh"]),
        (Activation::Elu { .. }, true) => ("fast_elu", &["select", "fma", "fast_exp_neg"]),
        (Activation::LeakyRelu { .. }, _) => ("leakyrelu", &["select"]),
        (Activation::Softplus, true) => ("fast_softplus", &["select", "fma", "fast_exp_neg"]),
        (a, _) => (a.name(), &[]),
    }
}

/// The definition of a helper named by [`order`] (`None` for any other name).
pub(super) fn definition(name: &str) -> Option<Definition> {
    let fixed = |(doc, params, body): (&'static str, &'static str, &str)| (doc, params, body.to_owned());
    Some(match name {
        "clip" => fixed(CLIP),
        "select" => fixed(SELECT),
        "fma" => fixed(FMA),
        "exp_reduced_m1" => exp_reduced_m1(),
        "exp" => exp(),
        "expm1_neg" => expm1_neg(),
        "ln_1p_unit" => ln_1p_unit(),
        "ln" => fixed(LN_DEF),
        "fast_exp_neg" => fast_exp_neg(),
        "fast_tanh" => fast_tanh(),
        "fast_sigmoid" => fixed(FAST_SIGMOID),
        "fast_scaledtanh" => fixed(FAST_SCALEDTANH),
        "fast_elu" => fixed(FAST_ELU),
        "fast_softplus" => fast_softplus(),
        _ => activation(Activation::from_name(name, None, None)?),
    })
}

/// Statements evaluating the polynomial `c` at `x` into `p` by Horner's rule, as the
/// runtime's `horner` does (declaring `p` as a float when `declare`).
fn horner(p: &str, x: &str, c: &[f32], declare: bool) -> String {
    let ty = if declare { "float " } else { "" };
    let mut out = c.first().map(|c0| format!("    {ty}{p} = {};\n", float(*c0))).unwrap_or_default();
    for ci in c.iter().skip(1) {
        out.push_str(&format!("    {p} = PREFIX_fma({p}, {x}, {});\n", float(*ci)));
    }
    out
}

/// The reduction `x = n ln2 + r` of the runtime's `reduce`, into `r` (from `nf` and `x`).
fn reduce(x: &str) -> String {
    format!("    r = PREFIX_fma(-nf, {}, PREFIX_fma(-nf, {}, {x}));\n", float(poly::LN2_LO), float(poly::LN2_HI))
}

/// The runtime's `reduce_biased` of `x` then its `pow2_of`: declares `r`, with
/// `x = n ln2 + r`, and `s`, whose float is `2^(n + bias - 127)` (`bias` even, as there).
fn reduce_biased(x: &str, bias: u16) -> String {
    debug_assert!(bias.is_multiple_of(2), "an even bias, as the runtime's");
    let shift = float(12_582_912.0 + f32::from(bias));
    format!(
        "    union {{ float f; uint32_t u; }} k, s;
    float nf, r;
    k.f = PREFIX_fma({x}, {log2e}, {shift});
    nf = k.f - {shift};
{reduce}    s.u = k.u << 23;
",
        log2e = float(std::f32::consts::LOG2_E),
        reduce = reduce(x)
    )
}

/// `cellc_runtime::__private::math::ln`, operation for operation (in double, without a
/// fused multiply-add, so its bits are the runtime's on every target).
const LN_DEF: (&str, &str, &str) = (
    "ln x within 1 ULP, straight-line (so loops over lanes vectorise, where logf is a call a value): in \
     double, x = 2^k m with m in [sqrt(1/2), sqrt(2)) from the bits, ln m = 2 atanh((m - 1) / (m + 1)) by \
     its series to the 8th term, plus k ln2.",
    "float x",
    "    union { double d; uint64_t u; } b, kb, mb;
    double s, t, p;
    float r;
    b.d = (double)x;
    b.u += UINT64_C(0x3FF0000000000000) - UINT64_C(0x3FE6A09E667F3BCD);
    kb.u = UINT64_C(0x4330000000000000) | (b.u >> 52 & 0x7FF);
    mb.u = (b.u & UINT64_C(0x000FFFFFFFFFFFFF)) + UINT64_C(0x3FE6A09E667F3BCD);
    s = (mb.d - 1.0) / (mb.d + 1.0);
    t = s * s;
    p = 1.0 / 15.0;
    p = p * t + 1.0 / 13.0;
    p = p * t + 1.0 / 11.0;
    p = p * t + 1.0 / 9.0;
    p = p * t + 1.0 / 7.0;
    p = p * t + 1.0 / 5.0;
    p = p * t + 1.0 / 3.0;
    p = p * t + 1.0;
    r = (float)((kb.d - 4503599627371519.0) * 0.6931471805599453 + 2.0 * s * p);
    r = PREFIX_select(x < HUGE_VALF, r, x);
    return PREFIX_select(x > 0.0f, r, PREFIX_select(x == 0.0f, -HUGE_VALF, NAN));
",
);

const CLIP: (&str, &str, &str) = (
    "Clamps x to [-c, c]: the clip attribute, applied to an activation's input (NaN stays NaN).",
    "float x, float c",
    "    return PREFIX_select(x < -c, -c, PREFIX_select(x > c, c, x));\n",
);

/// `c ? a : b` through the bits. GCC keeps a branch around a conditional expression when it
/// cannot prove the side not taken free of floating-point traps (`-ftrapping-math`, its
/// default), and a loop over lanes with a branch in it stays scalar: tanh's lanes, with
/// random inputs, mispredicted it at 4× the Rust's time.
const SELECT: (&str, &str, &str) = (
    "c ? a : b, chosen through the bits so that a loop over lanes holding it vectorises.",
    "int c, float a, float b",
    "    union { float f; uint32_t u; } x, y;
    const uint32_t m = (uint32_t)0 - (uint32_t)(c != 0);
    x.f = a;
    y.f = b;
    x.u = (x.u & m) | (y.u & ~m);
    return x.f;
",
);

/// The runtime's `Isa::mul_add`: fused where the target makes `fmaf` fast.
const FMA: (&str, &str, &str) = (
    "a * b + c, rounded once where the target has fused multiply-adds (FP_FAST_FMAF), as the \
     runtime computes it at its levels with FMA; rounded twice elsewhere, as at its portable level.",
    "float a, float b, float c",
    "#if defined(FP_FAST_FMAF)
    return fmaf(a, b, c);
#else
    return a * b + c;
#endif
",
);

/// `cellc_runtime::act`'s `exp_reduced_m1`.
fn exp_reduced_m1() -> Definition {
    let [c0, c1, c2, c3, c4] = poly::EXP.map(float);
    (
        "e^r - 1 for |r| <= ln2/2, as e^r rounds it: e^r is 1 plus it, by a polynomial in Estrin's form \
         (a short chain of dependent operations).",
        "float r",
        format!(
            "    const float r2 = r * r;
    const float lo = PREFIX_fma({c3}, r, {c4});
    float hi = PREFIX_fma({c1}, r, {c2});
    hi = PREFIX_fma({c0}, r2, hi);
    return PREFIX_fma(r2, PREFIX_fma(hi, r2, lo), r);
"
        ),
    )
}

/// `cellc_runtime::act::exp`, operation for operation.
fn exp() -> Definition {
    let log2e = float(std::f32::consts::LOG2_E);
    (
        "e^x within 1 ULP, straight-line (so loops over lanes vectorise): x = n ln2 + r, e^r by a \
         polynomial, 2^n from its bits in two halves so that subnormal results round once.",
        "float x",
        format!(
            "    const float shift = 12582912.0f;
    union {{ float f; uint32_t u; }} k, sh, s1, s2;
    float nf, r;
    int32_t n, half;
    x = PREFIX_select(x < -104.0f, -104.0f, PREFIX_select(x > 88.8f, 88.8f, x));
    k.f = PREFIX_fma(x, {log2e}, shift);
    sh.f = shift;
    n = (int32_t)k.u - (int32_t)sh.u;
    nf = k.f - shift;
{reduce}    half = n / 2;
    s1.u = (uint32_t)(half + 127) << 23;
    s2.u = (uint32_t)(n - half + 127) << 23;
    return (1.0f + PREFIX_exp_reduced_m1(r)) * s1.f * s2.f;
",
            reduce = reduce("x")
        ),
    )
}

/// `cellc_runtime::act`'s `expm1_neg`.
fn expm1_neg() -> Definition {
    (
        "e^x - 1 for x <= 0: a polynomial x + x^2 P(x) above -ln2/2 (no cancellation near 0), e^x - 1 \
         below.",
        "float x",
        format!(
            "{}    {{
        const float small = PREFIX_fma(x * x, p, x);
        const float large = PREFIX_exp(x) - 1.0f;
        return PREFIX_select(x > {}, small, large);
    }}
",
            horner("p", "x", &poly::EXPM1_NEG, true),
            float(poly::EXPM1_NEG_ABOVE)
        ),
    )
}

/// `cellc_runtime::act`'s `ln_1p_unit`.
fn ln_1p_unit() -> Definition {
    (
        "ln(1 + e) for e in [0, 1]: u = 1 + e = 2^k m, ln m = 2 atanh((m - 1) / (m + 1)) by a polynomial, \
         plus what rounding u lost.",
        "float e",
        format!(
            "    const float u = 1.0f + e;
    const int big = u > {sqrt2};
    const float m = PREFIX_select(big, 0.5f * u, u), k = PREFIX_select(big, 1.0f, 0.0f);
    const float s = (m - 1.0f) / (m + 1.0f), t = s * s;
{p}    {{
        const float ln_m = PREFIX_fma(s * t, p, 2.0f * s);
        const float lost = (e - (u - 1.0f)) / u;
        return k * {hi} + (ln_m + (k * {lo} + lost));
    }}
",
            sqrt2 = float(std::f32::consts::SQRT_2),
            p = horner("p", "t", &poly::LN_ATANH, true),
            hi = float(poly::LN2_HI),
            lo = float(poly::LN2_LO)
        ),
    )
}

/// `cellc_runtime::act::fast`'s `exp_neg`.
fn fast_exp_neg() -> Definition {
    (
        "e^x for x <= 0, relative error 4e-7 down to e^-87, 0 below.",
        "float x",
        format!(
            "    const float shift = 12582912.0f;
    union {{ float f; uint32_t u; }} k, sh, s;
    float nf, r, p;
    x = PREFIX_select(x < -87.0f, -87.0f, PREFIX_select(x > 0.0f, 0.0f, x));
    k.f = PREFIX_fma(x, {log2e}, shift);
    sh.f = shift;
    nf = k.f - shift;
{reduce}{p}    s.u = (uint32_t)((int32_t)k.u - (int32_t)sh.u + 127) << 23;
    return (1.0f + PREFIX_fma(r * r, p, r)) * s.f;
",
            log2e = float(std::f32::consts::LOG2_E),
            reduce = reduce("x"),
            p = horner("p", "r", &poly::FAST_EXP_NEG, false)
        ),
    )
}

/// `cellc_runtime::act::fast::tanh`.
fn fast_tanh() -> Definition {
    let clamp = float(poly::FAST_TANH_CLAMP);
    (
        "tanh(x), fast: x P(x^2) / Q(x^2) on |x| <= 7.9.",
        "float x",
        format!(
            "    float x2, p, q;
    x = PREFIX_select(x < -{clamp}, -{clamp}, PREFIX_select(x > {clamp}, {clamp}, x));
    x2 = x * x;
{}{}    return x * p / q;
",
            horner("p", "x2", &poly::FAST_TANH_P, false),
            horner("q", "x2", &poly::FAST_TANH_Q, false)
        ),
    )
}

const FAST_SIGMOID: (&str, &str, &str) = (
    "1 / (1 + e^-x), fast: (1 + tanh(x / 2)) / 2.",
    "float x",
    "    return PREFIX_fma(0.5f, PREFIX_fast_tanh(0.5f * x), 0.5f);\n",
);

const FAST_SCALEDTANH: (&str, &str, &str) = (
    "alpha * tanh(beta * x), fast.",
    "float x, float alpha, float beta",
    "    return alpha * PREFIX_fast_tanh(beta * x);\n",
);

const FAST_ELU: (&str, &str, &str) = (
    "x if x >= 0, else alpha * (e^x - 1), fast.",
    "float x, float alpha",
    "    const float m = PREFIX_fast_exp_neg(x) - 1.0f;\n    return PREFIX_select(x >= 0.0f, x, alpha * m);\n",
);

/// `cellc_runtime::act::fast::softplus`.
fn fast_softplus() -> Definition {
    (
        "ln(1 + e^x), fast: max(x, 0) + ln(1 + e^-|x|) with a shorter logarithm.",
        "float x",
        format!(
            "    const float e = PREFIX_fast_exp_neg(-fabsf(x)), u = 1.0f + e;
    const int big = u > {sqrt2};
    const float m = PREFIX_select(big, 0.5f * u, u), k = PREFIX_select(big, {ln2}, 0.0f);
    const float s = (m - 1.0f) / (m + 1.0f), t = s * s;
{p}    return PREFIX_select(x > 0.0f, x, 0.0f) + (k + PREFIX_fma(s * t, p, 2.0f * s));
",
            sqrt2 = float(std::f32::consts::SQRT_2),
            ln2 = float(std::f32::consts::LN_2),
            p = horner("p", "t", &poly::FAST_LN_ATANH, true)
        ),
    )
}

/// Comment, parameters and body of an activation's default helper.
fn activation(a: Activation) -> Definition {
    let (doc, params, body) = match a {
        Activation::Relu => ("max(0, x).", "float x", "    return x > 0.0f ? x : 0.0f;\n"),
        Activation::Sigmoid => return sigmoid(),
        Activation::Tanh => return tanh(),
        Activation::HardSigmoid { .. } => (
            "max(0, min(1, alpha * x + beta)).",
            "float x, float alpha, float beta",
            "    const float y = alpha * x + beta;\n    return y < 0.0f ? 0.0f : (y > 1.0f ? 1.0f : y);\n",
        ),
        Activation::Affine { .. } => {
            ("alpha * x + beta.", "float x, float alpha, float beta", "    return alpha * x + beta;\n")
        }
        Activation::LeakyRelu { .. } => (
            "x if x >= 0, else alpha * x.",
            "float x, float alpha",
            "    return PREFIX_select(x >= 0.0f, x, alpha * x);\n",
        ),
        Activation::ThresholdedRelu { .. } => {
            ("x if x > alpha, else 0.", "float x, float alpha", "    return x > alpha ? x : 0.0f;\n")
        }
        Activation::ScaledTanh { .. } => (
            "alpha * tanh(beta * x).",
            "float x, float alpha, float beta",
            "    return alpha * PREFIX_tanh(beta * x);\n",
        ),
        Activation::Elu { .. } => (
            "x if x >= 0, else alpha * (e^x - 1), within 1 ULP for alpha = 1.",
            "float x, float alpha",
            "    const float m = PREFIX_expm1_neg(x);\n    return PREFIX_select(x >= 0.0f, x, alpha * m);\n",
        ),
        Activation::Softsign => ("x / (1 + |x|).", "float x", "    return x / (1.0f + fabsf(x));\n"),
        Activation::Softplus => (
            "ln(1 + e^x) within 3 ULP, as max(x, 0) + ln(1 + e^-|x|) so it neither overflows nor loses small values.",
            "float x",
            "    return PREFIX_select(x > 0.0f, x, 0.0f) + PREFIX_ln_1p_unit(PREFIX_exp(-fabsf(x)));\n",
        ),
    };
    (doc, params, body.to_owned())
}

/// `cellc_runtime::act::sigmoid`: `e^-|x|` at the scale 2^65.
fn sigmoid() -> Definition {
    let scale = float(2.0f32.powi(65));
    (
        "1 / (1 + e^-x) within 2 ULP, from e^-|x| so it never overflows; e^-|x| is taken at the scale \
         2^65, where it is a normal float built in one shift.",
        "float x",
        format!(
            "    const float y = PREFIX_select(-fabsf(x) < -104.0f, -104.0f, -fabsf(x));
{reduce}    {{
        const float e = PREFIX_fma(PREFIX_exp_reduced_m1(r), s.f, s.f);
        const float num = PREFIX_select(x >= 0.0f, {scale}, e);
        return num / ({scale} + e);
    }}
",
            reduce = reduce_biased("y", 127 + 65)
        ),
    )
}

/// `cellc_runtime::act::tanh`.
fn tanh() -> Definition {
    let below = float(poly::TANH_SMALL_BELOW);
    (
        "Hyperbolic tangent within 1 ULP: an odd polynomial below |x| = 0.55, 1 - 2 / (e^2|x| + 1) above \
         (with e^2|x| / 2 built in one shift).",
        "float x",
        format!(
            "    const float a = fabsf(x), a2 = a * a, b = 2.0f * PREFIX_select(a > 44.0f, 44.0f, a);
{p}{reduce}    {{
        const float small = PREFIX_fma(a * a2, p, a);
        const float large = 1.0f - 1.0f / (PREFIX_fma(PREFIX_exp_reduced_m1(r), s.f, s.f) + 0.5f);
        return copysignf(PREFIX_select(a < {below}, small, large), x);
    }}
",
            p = horner("p", "a2", &poly::TANH_SMALL, true),
            reduce = reduce_biased("b", 127 - 1)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ordered_helper_has_a_definition() {
        for name in order() {
            assert!(definition(name).is_some(), "{name}");
        }
        assert!(definition("swish").is_none());
    }

    #[test]
    fn order_names_each_helper_once() {
        let names: Vec<_> = order().collect();
        let unique: std::collections::BTreeSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{names:?}");
    }

    /// Every activation's loop over lanes vectorises under GCC (`-O3 -mavx2 -mfma` and `-O2`, its
    /// `-fopt-info-vec` report read back): a conditional expression GCC cannot prove free of
    /// floating-point traps keeps a branch and leaves the loop scalar (a GRU's C at 2–4× its
    /// Rust's time). Run with `gcc` (the compiler the README's flags are for), which the
    /// tests need on x86-64; elsewhere the flags do not apply.
    #[test]
    fn every_activation_loop_vectorises_under_gcc() {
        if !cfg!(target_arch = "x86_64") {
            return;
        }
        let gcc = std::process::Command::new("gcc").arg("--version").output();
        let is_gcc = gcc.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("Free Software Foundation"));
        assert!(is_gcc, "this test needs GCC as `gcc` (Debian: apt-get install gcc)");
        let mut c = String::from("#include <math.h>\n#include <stdint.h>\n#include <stddef.h>\n");
        for (name, (_, params, body)) in order().filter_map(|n| Some((n, definition(n)?))) {
            c.push_str(&format!("static inline float t_{name}({params})\n{{\n{}}}\n", body.replace("PREFIX", "t")));
        }
        let mut loops = vec![("clip", c.lines().count() + 1)];
        c.push_str("void loop_clip(const float *restrict x, float *restrict y) { for (size_t l = 0; l < 64; ++l) y[l] = t_clip(x[l], 3.0f); }\n");
        for name in Activation::NAMES {
            let a = Activation::from_name(name, None, None).expect("a name of the list");
            for fast in [false, true] {
                let (h, _) = helper(&a, fast);
                if loops.iter().any(|(l, _)| *l == h) {
                    continue;
                }
                let extra = definition(h).map_or(0, |(_, params, _)| params.matches(',').count());
                let args = std::iter::once("x[l]".to_owned()).chain((0..extra).map(|_| "0.5f".to_owned()));
                let line = c.lines().count() + 1;
                c.push_str(&format!(
                    "void loop_{h}(const float *restrict x, float *restrict y) {{ for (size_t l = 0; l < 64; ++l) y[l] = t_{h}({}); }}\n",
                    args.collect::<Vec<_>>().join(", ")
                ));
                loops.push((h, line));
            }
        }
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::write(dir.path().join("acts.c"), &c).expect("write acts.c");
        // AVX2 with FMA, and the x86-64 baseline at `-O2` (SSE2, no blend: the users' flags).
        for flags in [&["-O3", "-mavx2", "-mfma"][..], &["-O2"][..]] {
            let out = std::process::Command::new("gcc")
                .args(["-std=c99"])
                .args(flags)
                .args(["-fopt-info-vec-optimized", "-c", "acts.c", "-o", "acts.o"])
                .current_dir(dir.path())
                .output()
                .expect("run cc");
            let report = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{report}");
            let scalar: Vec<_> = loops
                .iter()
                .filter(|(_, line)| {
                    !report.lines().any(|l| l.starts_with(&format!("acts.c:{line}:")) && l.contains("loop vectorized"))
                })
                .map(|(h, _)| *h)
                .collect();
            assert!(scalar.is_empty(), "at {flags:?} these loops did not vectorise: {scalar:?}\n{report}");
        }
    }

    /// A helper's listed callees name every helper its body calls (a call not listed would
    /// come out undeclared in a model that needs no other helper).
    #[test]
    fn every_helper_lists_what_it_calls() {
        let mut lists: Vec<(&str, Vec<&str>)> = vec![("exp", EXP.to_vec())];
        for name in Activation::NAMES {
            let a = Activation::from_name(name, None, None).expect("a name of the list");
            for fast in [false, true] {
                let (h, callees) = helper(&a, fast);
                lists.push((h, callees.iter().copied().chain([h]).collect()));
            }
        }
        for (h, called) in lists {
            for &n in &called {
                let (_, _, body) = definition(n).unwrap_or_else(|| panic!("{n} has a definition"));
                for call in body.split("PREFIX_").skip(1) {
                    let callee = call.split('(').next().unwrap_or_default();
                    assert!(called.contains(&callee), "{h}: {n} calls {callee}, not listed");
                }
            }
        }
    }

    #[test]
    fn every_helper_comes_after_its_callees() {
        for name in Activation::NAMES {
            let a = Activation::from_name(name, None, None).expect("a name of the list");
            for fast in [false, true] {
                let (h, callees) = helper(&a, fast);
                let at = |n: &str| order().position(|o| o == n).unwrap_or_else(|| panic!("{n} not ordered"));
                for c in callees {
                    assert!(at(c) < at(h), "{c} must come before {h}");
                }
            }
        }
    }
}
