//! The static helpers of a `.c` file, each written only if the file uses it: activations
//! and clipping, computed as `cellc_runtime::act` computes them (the same formulas, the same
//! handling of NaN and of large inputs) over `<math.h>`'s `expf`, `tanhf`, `expm1f` and
//! `log1pf`; and the packing of weights given at run time, as `cellc_pack` packs them.
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
        for name in &self.used {
            let (doc, params, body) = definition(Activation::from_name(name, None, None));
            out.push_str(&format!("/* {doc} */\nstatic inline float {prefix}_{name}({params})\n{{\n{body}}}\n\n"));
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

/// Comment, parameters and body of a helper: the clip for `None`.
fn definition(a: Option<Activation>) -> (&'static str, &'static str, &'static str) {
    let Some(a) = a else {
        return (
            "Clamps x to [-c, c]: the clip attribute, applied to an activation's input (NaN stays NaN).",
            "float x, float c",
            "    return x < -c ? -c : (x > c ? c : x);\n",
        );
    };
    match a {
        Activation::Relu => ("max(0, x).", "float x", "    return x > 0.0f ? x : 0.0f;\n"),
        Activation::Sigmoid => (
            "1 / (1 + e^-x), computed without overflow for large |x|.",
            "float x",
            "    if (x >= 0.0f) {\n        return 1.0f / (1.0f + expf(-x));\n    } else {\n        \
             const float e = expf(x);\n        return e / (1.0f + e);\n    }\n",
        ),
        Activation::Tanh => ("Hyperbolic tangent.", "float x", "    return tanhf(x);\n"),
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
        Activation::ScaledTanh { .. } => {
            ("alpha * tanh(beta * x).", "float x, float alpha, float beta", "    return alpha * tanhf(beta * x);\n")
        }
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
