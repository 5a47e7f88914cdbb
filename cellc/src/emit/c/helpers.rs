//! The static helpers of a `.c` file, each written only if the file uses it: activations
//! and clipping (see `acts`), the conversions of 16-bit weights, and the packing of weights
//! given at run time, as `cellc_pack` packs them.
use super::acts;
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
    /// Whether some dense layer or projection takes the vector path (see `dense`, `cell`).
    pub(super) vectors: bool,
    /// Whether some weights are stored as bfloat16 pairs.
    pub(super) bf16: bool,
    /// Whether some weights are stored as int8 rows with their scale.
    pub(super) i8: bool,
    /// Whether activations are the fast ones.
    pub(super) fast: bool,
    /// Whether some product of two run-time operands calls the shared product function.
    pub(super) product: bool,
    /// Whether some copy is a transpose, which calls the shared transpose function.
    pub(super) transpose: bool,
    /// Whether some elementwise square root of a row calls the row function.
    pub(super) sqrt_row: bool,
}

impl Helpers {
    /// No helpers yet; activations the fast ones if `fast`.
    pub(super) fn new(fast: bool) -> Helpers {
        Helpers { fast, ..Helpers::default() }
    }

    /// `act(clip(v))` as a C expression, the activation's constants inlined.
    pub(super) fn act(&mut self, prefix: &str, a: &Activation, clip: Option<f32>, v: &str) -> String {
        let v = match clip {
            Some(c) => {
                self.used.extend(["select", "clip"]);
                format!("{prefix}_clip({v}, {})", float(c))
            }
            None => v.to_owned(),
        };
        let (name, callees) = acts::helper(a, self.fast);
        self.used.insert(name);
        self.used.extend(callees);
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

    /// The `fma` helper: `a * b + c`, rounded once where the target has FMA.
    pub(super) fn fma(&mut self) {
        self.used.insert("fma");
    }

    /// `c ? a : b` as a C expression with both sides evaluated, so that a loop over lanes
    /// holding it vectorises (see `acts`'s `select`): for sides free of side effects.
    pub(super) fn select(&mut self, prefix: &str, c: &str, a: &str, b: &str) -> String {
        self.used.insert("select");
        format!("{prefix}_select({c}, {a}, {b})")
    }

    /// `e^v` as a C expression.
    pub(super) fn exp(&mut self, prefix: &str, v: &str) -> String {
        self.used.extend(acts::EXP);
        format!("{prefix}_exp({v})")
    }

    /// `ln v` as a C expression.
    pub(super) fn ln(&mut self, prefix: &str, v: &str) -> String {
        self.used.extend(acts::LN);
        format!("{prefix}_ln({v})")
    }

    /// The definitions of the helpers used, each after a comment saying what it computes.
    pub(super) fn definitions(&self, prefix: &str) -> String {
        let upper = prefix.to_ascii_uppercase();
        let mut out = String::new();
        if self.pack_panels {
            out.push_str(&PACK_PANELS.replace("PREFIX", prefix));
        }
        if self.pack_bias {
            out.push_str(&PACK_BIAS.replace("PREFIX", prefix));
        }
        if self.f16 {
            out.push_str(&F16.replace("PREFIX", prefix).replace("UPPER", &upper));
        }
        if self.bf16 {
            out.push_str(&BF16.replace("PREFIX", prefix).replace("UPPER", &upper));
        }
        if self.i8 {
            out.push_str(&I8.replace("PREFIX", prefix).replace("UPPER", &upper));
        }
        if self.product {
            out.push_str(&super::product::definition(prefix));
        }
        if self.transpose {
            out.push_str(&super::transpose::definition(prefix));
        }
        if self.sqrt_row {
            out.push_str(&SQRT_ROW.replace("PREFIX", prefix).replace("UPPER", &upper));
        }
        for (name, (doc, params, body)) in
            acts::order().filter(|n| self.used.contains(n)).filter_map(|n| Some((n, acts::definition(n)?)))
        {
            let mut c = super::text::Code::default();
            c.comment(doc);
            out.push_str(&c.finish());
            let body = body.replace("PREFIX", prefix);
            out.push_str(&format!("{upper}_INLINE float {prefix}_{name}({params})\n{{\n{body}}}\n\n"));
        }
        out
    }
}

/// The square roots of a row of values. `sqrtf` sets `errno` below zero, so GCC keeps a
/// call beside each square root (whatever `optimize` attribute the function carries: GCC 12)
/// and the loop stays scalar, 4× the Rust's time (SwiftF0's spectra, AMD Zen 4); where the
/// target has SSE, whole vectors take the instruction, which rounds as `sqrtf` does.
const SQRT_ROW: &str = "\
#if (defined(__GNUC__) || defined(__clang__)) && defined(__SSE2__) && !defined(CELLC_PORTABLE)
#include <immintrin.h>
#define UPPER_SQRT_VECTORS 1
#else
#define UPPER_SQRT_VECTORS 0
#endif

/* dst[i] = sqrtf(src[i]) for i < n (dst may be src): in vectors of the target's width where it has SSE
 * (sqrtf's errno keeps a loop of it scalar), then one by one. */
static void PREFIX_sqrt_row(float *dst, const float *src, size_t n)
{
    size_t i = 0;
#if UPPER_SQRT_VECTORS
    /* The bounds as whole multiples of the width, and the tail's start set again after the
     * vectors: GCC then counts the tail's iterations (otherwise, with n a constant that
     * fills a static array, it warns that the tail would run past the array). */
#if defined(__AVX512F__)
    for (; i < n - n % 16; i += 16) _mm512_storeu_ps(dst + i, _mm512_sqrt_ps(_mm512_loadu_ps(src + i)));
#elif defined(__AVX__)
    for (; i < n - n % 8; i += 8) _mm256_storeu_ps(dst + i, _mm256_sqrt_ps(_mm256_loadu_ps(src + i)));
#endif
    for (; i < n - n % 4; i += 4) _mm_storeu_ps(dst + i, _mm_sqrt_ps(_mm_loadu_ps(src + i)));
    i = n - n % 4;
#endif
    for (; i < n; ++i) dst[i] = sqrtf(src[i]);
}

";

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
/* An IEEE binary16 value (its bits) as a float, exactly, as the processors' conversion
 * (vcvtph2ps) gives it: the exponent and mantissa moved to their places in a float and
 * scaled by 2^112 (which also makes subnormals normal), then the sign; an infinity stays
 * one, a NaN keeps its payload and is quiet. Without branches, so that a loop over lanes
 * converting weights vectorises (a branch kept a GRU's loops scalar: 3.1x the time). */
UPPER_INLINE float PREFIX_f16(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, em = h & 0x7fffu;
    const uint32_t special = 0u - (uint32_t)(em >= 0x7c00u), nan = 0u - (uint32_t)(em > 0x7c00u);
    union { uint32_t u; float f; } v;
    v.u = em << 13;
    v.f *= 0x1p112f;
    v.u = (v.u & ~special) | ((0x7f800000u | (em & 0x3ffu) << 13 | (nan & 0x00400000u)) & special) | sign;
    return v.f;
}

";

/// The int8 weights' scale and lanes (see `cellc_pack::int8`).
const I8: &str = "\
/* A packed int8 row: its column's scale, a float in its first 4 bytes (little-endian), then
 * its lanes, integers; a product takes the row's input times the scale, then each lane times
 * that. */
UPPER_INLINE float PREFIX_i8_scale(const int8_t *row)
{
    union { uint32_t u; float f; } v;
    v.u = (uint32_t)(uint8_t)row[0] | (uint32_t)(uint8_t)row[1] << 8 | (uint32_t)(uint8_t)row[2] << 16
        | (uint32_t)(uint8_t)row[3] << 24;
    return v.f;
}

";

/// The bfloat16 weights' conversion (see `cellc_pack::panels_bf16`).
const BF16: &str = "\
/* The two bfloat16 lanes of a packed word as floats: the low half is lane j, the high half
 * lane j + ceil(width / 2); a bfloat16 is the high half of a float's bits. */
UPPER_INLINE float PREFIX_bf16_lo(uint32_t w)
{
    union { uint32_t u; float f; } v;
    v.u = w << 16;
    return v.f;
}

UPPER_INLINE float PREFIX_bf16_hi(uint32_t w)
{
    union { uint32_t u; float f; } v;
    v.u = w & 0xffff0000u;
    return v.f;
}

";
