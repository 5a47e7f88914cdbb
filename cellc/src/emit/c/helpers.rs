//! The static helpers of a `.c` file, each written only if the file uses it: activations
//! and clipping, computed as `cellc_runtime::act` computes them — the same operations in
//! the same order, so `exp`, `sigmoid` and `tanh` are the same straight-line arithmetic
//! (which vectorises) with the same bounds, and `elu` and `softplus` call `<math.h>`'s
//! `expm1f` and `log1pf` — and the packing of weights given at run time, as `cellc_pack`
//! packs them.
use super::text::float;
use crate::ir::Activation;
use std::collections::BTreeSet;

/// The helpers a file needs, by name (`sigmoid`, `clip`…); definitions come out sorted.
#[derive(Default)]
pub(super) struct Helpers {
    used: BTreeSet<&'static str>,
    /// Whether some weight panels are packed at run time.
    pub(super) pack_panels: bool,
    /// Whether some biases are packed at run time.
    pub(super) pack_bias: bool,
    /// Whether some weights are stored as IEEE f16.
    pub(super) f16: bool,
    /// Whether some weights are stored as bfloat16 pairs.
    pub(super) bf16: bool,
}

impl Helpers {
    /// `act(clip(v))` as a C expression, the activation's constants inlined.
    pub(super) fn act(&mut self, prefix: &str, a: &Activation, clip: Option<f32>, v: &str) -> String {
        let v = match clip {
            Some(c) => {
                self.used.insert("clip");
                format!("{prefix}_clip({v}, {})", float(c))
            }
            None => v.to_owned(),
        };
        let name = a.name();
        self.used.insert(name);
        // What the helper calls, defined before it.
        match a {
            Activation::Sigmoid | Activation::Tanh => {
                self.used.insert("exp");
            }
            Activation::ScaledTanh { .. } => {
                self.used.extend(["exp", "tanh"]);
            }
            _ => {}
        }
        match *a {
            Activation::Relu | Activation::Sigmoid | Activation::Tanh | Activation::Softsign | Activation::Softplus => {
                format!("{prefix}_{name}({v})")
            }
            Activation::HardSigmoid { alpha, beta }
            | Activation::Affine { alpha, beta }
            | Activation::ScaledTanh { alpha, beta } => {
                format!("{prefix}_{name}({v}, {}, {})", float(alpha), float(beta))
            }
            Activation::LeakyRelu { alpha } | Activation::ThresholdedRelu { alpha } | Activation::Elu { alpha } => {
                format!("{prefix}_{name}({v}, {})", float(alpha))
            }
        }
    }

    /// The definitions of the helpers used, each after a comment saying what it computes.
    pub(super) fn definitions(&self, prefix: &str) -> String {
        let mut out = String::new();
        if self.pack_panels {
            out.push_str(&PACK_PANELS.replace("PREFIX", prefix));
        }
        if self.pack_bias {
            out.push_str(&PACK_BIAS.replace("PREFIX", prefix));
        }
        if self.f16 {
            out.push_str(&F16.replace("PREFIX", prefix));
        }
        if self.bf16 {
            out.push_str(&BF16.replace("PREFIX", prefix));
        }
        // Callees first: the clip and exp, then tanh (which scaledtanh calls), then the rest.
        let order = ["clip", "exp", "tanh"].into_iter().chain(Activation::NAMES.iter().copied());
        let mut done = BTreeSet::new();
        for name in order.filter(|n| self.used.contains(n)) {
            if !done.insert(name) {
                continue;
            }
            let (doc, params, body) = match (name, Activation::from_name(name, None, None)) {
                ("clip", _) => CLIP,
                (_, Some(a)) => definition(a),
                _ => EXP,
            };
            let mut c = super::text::Code::default();
            c.comment(doc);
            out.push_str(&c.finish());
            let body = body.replace("PREFIX", prefix);
            out.push_str(&format!("static inline float {prefix}_{name}({params})\n{{\n{body}}}\n\n"));
        }
        out
    }
}

/// The packing of runtime weights, as `cellc_pack::panels`.
const PACK_PANELS: &str = "\
/* Packs the rows of the gates `sel` of `m` ([gates * hidden][cols], row-major) into panels
 * [tiles][cols][nsel * tile]: lane l of gate g of tile t holds row t * tile + l of gate sel[g],
 * zero past the last row. */
static void PREFIX_pack_panels(float *dst, const float *m, size_t hidden, size_t cols, const size_t *sel,
                               size_t nsel, size_t tile)
{
    const size_t width = nsel * tile, tiles = (hidden + tile - 1) / tile;
    for (size_t t = 0; t < tiles; ++t) {
        for (size_t k = 0; k < cols; ++k) {
            for (size_t g = 0; g < nsel; ++g) {
                for (size_t l = 0; l < tile; ++l) {
                    const size_t j = t * tile + l;
                    dst[(t * cols + k) * width + g * tile + l] = j < hidden ? m[(sel[g] * hidden + j) * cols + k] : 0.0f;
                }
            }
        }
    }
}

";

/// The packing of runtime biases, as `cellc_pack::bias_panels`.
const PACK_BIAS: &str = "\
/* Packs bias blocks into panels [tiles][nsegs * tile]: segment s of tile t holds rows
 * t * tile .. of segs[s] (each `hidden` long), or zero where segs[s] is NULL. */
static void PREFIX_pack_bias(float *dst, const float *const *segs, size_t nsegs, size_t hidden, size_t tile)
{
    const size_t width = nsegs * tile, tiles = (hidden + tile - 1) / tile;
    for (size_t t = 0; t < tiles; ++t) {
        for (size_t s = 0; s < nsegs; ++s) {
            for (size_t l = 0; l < tile; ++l) {
                const size_t j = t * tile + l;
                dst[t * width + s * tile + l] = segs[s] != NULL && j < hidden ? segs[s][j] : 0.0f;
            }
        }
    }
}

";

/// The f16 weights' conversion, exact: `vcvtph2ps` in the Rust kernels.
const F16: &str = "\
/* An IEEE binary16 value (its bits) as a float, exactly: the exponent and mantissa moved to
 * their places in a float and scaled by 2^112 (which also makes subnormals normal), then
 * the sign; infinities and NaNs keep their payload. */
static inline float PREFIX_f16(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, em = h & 0x7fffu;
    union { uint32_t u; float f; } v;
    if (em >= 0x7c00u) {
        v.u = sign | 0x7f800000u | ((em & 0x3ffu) << 13);
    } else {
        v.u = em << 13;
        v.f *= 0x1p112f;
        v.u |= sign;
    }
    return v.f;
}

";

/// The bfloat16 weights' conversion (see `cellc_pack::panels_bf16`).
const BF16: &str = "\
/* The two bfloat16 lanes of a packed word as floats: the low half is lane j, the high half
 * lane j + ceil(width / 2); a bfloat16 is the high half of a float's bits. */
static inline float PREFIX_bf16_lo(uint32_t w)
{
    union { uint32_t u; float f; } v;
    v.u = w << 16;
    return v.f;
}

static inline float PREFIX_bf16_hi(uint32_t w)
{
    union { uint32_t u; float f; } v;
    v.u = w & 0xffff0000u;
    return v.f;
}

";

/// A helper's comment, parameters and body (`PREFIX` stands for the file's prefix).
type Definition = (&'static str, &'static str, &'static str);

const CLIP: Definition = (
    "Clamps x to [-c, c]: the clip attribute, applied to an activation's input (NaN stays NaN).",
    "float x, float c",
    "    return x < -c ? -c : (x > c ? c : x);\n",
);

/// `cellc_runtime::act::exp`, operation for operation.
const EXP: Definition = (
    "e^x within 1 ULP, straight-line (so loops over lanes vectorise): x = n ln2 + r, e^r by a \
     polynomial, 2^n from its bits in two halves so that subnormal results round once.",
    "float x",
    "    const float shift = 12582912.0f;
    union { float f; uint32_t u; } k, sh, s1, s2;
    float nf, r, p;
    int32_t n, half;
    x = x < -104.0f ? -104.0f : (x > 88.8f ? 88.8f : x);
    k.f = x * 1.442695f + shift;
    sh.f = shift;
    n = (int32_t)k.u - (int32_t)sh.u;
    nf = k.f - shift;
    r = x - nf * 0.69314575f - nf * 1.4286068e-6f;
    p = 0.0013814612f;
    p = p * r + 0.00836871f;
    p = p * r + 0.04166839f;
    p = p * r + 0.16666521f;
    p = p * r + 0.49999994f;
    half = n / 2;
    s1.u = (uint32_t)(half + 127) << 23;
    s2.u = (uint32_t)(n - half + 127) << 23;
    return (1.0f + (r + r * r * p)) * s1.f * s2.f;
",
);

/// Comment, parameters and body of an activation's helper.
fn definition(a: Activation) -> Definition {
    match a {
        Activation::Relu => ("max(0, x).", "float x", "    return x > 0.0f ? x : 0.0f;\n"),
        Activation::Sigmoid => (
            "1 / (1 + e^-x) within 2 ULP, from e^-|x| so it never overflows.",
            "float x",
            "    const float e = PREFIX_exp(-fabsf(x));\n    const float num = x >= 0.0f ? 1.0f : e;\n    \
             return num / (1.0f + e);\n",
        ),
        Activation::Tanh => (
            "Hyperbolic tangent within 1 ULP: an odd polynomial below |x| = 0.55, 1 - 2 / (e^2|x| + 1) above.",
            "float x",
            "    const float a = fabsf(x), a2 = a * a;
    float p = -0.0062742424f;
    p = p * a2 + 0.021071682f;
    p = p * a2 - 0.053852312f;
    p = p * a2 + 0.13332586f;
    p = p * a2 - 0.33333316f;
    {
        const float small = a + a * a2 * p;
        const float large = 1.0f - 2.0f / (PREFIX_exp(2.0f * a) + 1.0f);
        return copysignf(a < 0.55f ? small : large, x);
    }
",
        ),
        Activation::HardSigmoid { .. } => (
            "max(0, min(1, alpha * x + beta)).",
            "float x, float alpha, float beta",
            "    const float y = alpha * x + beta;\n    return y < 0.0f ? 0.0f : (y > 1.0f ? 1.0f : y);\n",
        ),
        Activation::Affine { .. } => {
            ("alpha * x + beta.", "float x, float alpha, float beta", "    return alpha * x + beta;\n")
        }
        Activation::LeakyRelu { .. } => {
            ("x if x >= 0, else alpha * x.", "float x, float alpha", "    return x >= 0.0f ? x : alpha * x;\n")
        }
        Activation::ThresholdedRelu { .. } => {
            ("x if x > alpha, else 0.", "float x, float alpha", "    return x > alpha ? x : 0.0f;\n")
        }
        Activation::ScaledTanh { .. } => (
            "alpha * tanh(beta * x).",
            "float x, float alpha, float beta",
            "    return alpha * PREFIX_tanh(beta * x);\n",
        ),
        Activation::Elu { .. } => (
            "x if x >= 0, else alpha * (e^x - 1).",
            "float x, float alpha",
            "    return x >= 0.0f ? x : alpha * expm1f(x);\n",
        ),
        Activation::Softsign => ("x / (1 + |x|).", "float x", "    return x / (1.0f + fabsf(x));\n"),
        Activation::Softplus => (
            "ln(1 + e^x), as max(x, 0) + ln(1 + e^-|x|) so it neither overflows nor loses small values.",
            "float x",
            "    return fmaxf(x, 0.0f) + log1pf(expf(-fabsf(x)));\n",
        ),
    }
}
