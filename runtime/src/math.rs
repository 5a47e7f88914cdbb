//! The elementwise functions of the layers around the cells that [`crate::act`] does not
//! hold, in f32: logarithm, square root, rounding, powers, and the piecewise activations
//! of OpenVINO's opset (`HSigmoid`, `HSwish`, `Swish`, `Mish`, `Sign`). The libm crate
//! (a port of musl's) gives the library functions (`sqrt` on x86-64 is the SSE instruction):
//! `sqrt`, `floor` and `ceil` are exact, `pow` within 1 ULP; [`ln`] is this module's own
//! (within 1 ULP), so that loops of it vectorise.
use crate::act;
use crate::simd::Isa;

/// `ln x` (NaN below zero and at NaN, −∞ at ±0, +∞ at +∞), within 1 ULP of the correctly
/// rounded result (checked for every f32 by `tests/ulp.rs`).
///
/// Computed in f64 without a branch or a table, so a loop of it vectorises (libm's `logf`
/// is a call per value): `x = 2^k·m` with `m` in `[√½, √2)` read from the bits (f32's
/// subnormals are normal in f64), `ln m = 2·atanh(s)`, `s = (m − 1)/(m + 1)`, whose series
/// in `s²` is cut after its 8th term (relative error below 2^-44 for `|s| ≤ 0.172`), and
/// `k·ln 2` added; rounding that to f32 is the only error that shows.
#[inline(always)]
pub fn ln(x: f32) -> f32 {
    /// The bits of √½ (rounded down) in f64.
    const SQRT_HALF: u64 = 0x3FE6_A09E_667F_3BCD;
    /// The bits of 1.0 in f64.
    const ONE: u64 = 0x3FF0_0000_0000_0000;
    /// `2^52 + 1023` as f64, whose mantissa's low bits take an 11-bit exponent field.
    const EXP_BIAS: f64 = 4_503_599_627_371_519.0;
    // The shift by 1 − √½ moves mantissas in [√½, 1) up an exponent, so the field read is
    // `k + 1023` and what remains, shifted back, is `m`. (Negative inputs, NaN and ∞ give
    // nonsense here and are replaced below.)
    let bits = f64::from(x).to_bits().wrapping_add(ONE - SQRT_HALF);
    let k = f64::from_bits(0x4330_0000_0000_0000 | (bits >> 52 & 0x7FF)) - EXP_BIAS;
    let m = f64::from_bits((bits & 0x000F_FFFF_FFFF_FFFF) + SQRT_HALF);
    let s = (m - 1.0) / (m + 1.0);
    let t = s * s;
    // 1 + t/3 + t²/5 + … + t⁷/15: ln m = 2s·(that).
    let mut p = 1.0 / 15.0;
    for c in [1.0 / 13.0, 1.0 / 11.0, 1.0 / 9.0, 1.0 / 7.0, 1.0 / 5.0, 1.0 / 3.0, 1.0] {
        p = p * t + c;
    }
    let r = (k * core::f64::consts::LN_2 + 2.0 * s * p) as f32;
    let r = if x < f32::INFINITY { r } else { x };
    if x > 0.0 {
        r
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else {
        f32::NAN
    }
}

/// `√x`, correctly rounded (NaN below zero).
#[inline]
#[allow(unsafe_code)]
pub fn sqrt(x: f32) -> f32 {
    // On x86-64, the intrinsic rather than libm's `sqrtf`: libm's is an inline `sqrtss`,
    // whose legacy SSE encoding the compiler cannot change, and amid AVX code it stalled
    // (AMD Zen 3: a model with 68% of its 15.0 µs call in 32 L2 norms ran in 3.9 µs with
    // the intrinsic, which compiles to `vsqrtss` where AVX is on). Both round correctly.
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_cvtss_f32, _mm_set_ss, _mm_sqrt_ss};
        // SAFETY: SSE is part of every x86-64 CPU (the target's baseline); no memory is
        // touched.
        unsafe { _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x))) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        libm::sqrtf(x)
    }
}

/// `⌊x⌋`.
#[inline]
pub fn floor(x: f32) -> f32 {
    libm::floorf(x)
}

/// `⌈x⌉`.
#[inline]
pub fn ceil(x: f32) -> f32 {
    libm::ceilf(x)
}

/// Declares a wrapper of libm's f32 function for each name: the functions of
/// `cellc::vocab::MathFn`, which generated code calls by their names.
macro_rules! library {
    ($($(#[$doc:meta])* $name:ident = $f:ident;)*) => {
        $($(#[$doc])* #[inline] pub fn $name(x: f32) -> f32 { libm::$f(x) })*
    };
}

library! {
    /// `sin x`.
    sin = sinf;
    /// `cos x`.
    cos = cosf;
    /// `tan x`.
    tan = tanf;
    /// `asin x` (NaN outside [−1, 1]).
    asin = asinf;
    /// `acos x` (NaN outside [−1, 1]).
    acos = acosf;
    /// `atan x`.
    atan = atanf;
    /// `sinh x`.
    sinh = sinhf;
    /// `cosh x`.
    cosh = coshf;
    /// `asinh x`.
    asinh = asinhf;
    /// `acosh x` (NaN below 1).
    acosh = acoshf;
    /// `atanh x` (NaN outside [−1, 1]).
    atanh = atanhf;
    /// The error function.
    erf = erff;
    /// The nearest whole number, halves to the even one (as C's `rintf` in the default
    /// rounding mode).
    round_even = roundevenf;
    /// The nearest whole number, halves away from zero (C's `roundf`).
    round = roundf;
    /// The whole number towards zero (C's `truncf`).
    trunc = truncf;
}

/// `x/2·(1 + erf(x/√2))` (`Gelu`).
#[inline]
pub fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + libm::erff(x * core::f32::consts::FRAC_1_SQRT_2))
}

/// `x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³)))` (`Gelu` by its tanh approximation).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn gelu_tanh<I: Isa>(isa: I, x: f32) -> f32 {
    const K: f32 = 0.797_884_6; // √(2/π)
    0.5 * x * (1.0 + act::tanh(isa, K * (x + 0.044_715 * x * x * x)))
}

/// The remainder of `a / b` with the quotient truncated, the dividend's sign (C's `fmodf`).
#[inline]
pub fn fmod(a: f32, b: f32) -> f32 {
    libm::fmodf(a, b)
}

/// The remainder of `a / b` with the quotient rounded down, the divisor's sign (Python's
/// `%`): `fmod`, moved by `b` when the signs differ.
#[inline]
pub fn floor_mod(a: f32, b: f32) -> f32 {
    let m = libm::fmodf(a, b);
    if m != 0.0 && (m < 0.0) != (b < 0.0) { m + b } else { m }
}

/// The position along an axis of `len` values (at least 1) that index `i` (a whole number
/// held in f32) reads: counted from the end when negative, and clamped into `[0, len)` when
/// outside it or NaN (an index onnxruntime would refuse), so that it never reads past the
/// axis.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn take_index(i: f32, len: usize) -> usize {
    let n = len as f32;
    let i = if i < 0.0 { i + n } else { i };
    if i >= n {
        len - 1
    } else if i >= 0.0 {
        i as usize
    } else {
        0
    }
}

pub use cellc_pack::top_k_before;

/// `a^b`, as C's `powf`.
#[inline]
pub fn pow(a: f32, b: f32) -> f32 {
    libm::powf(a, b)
}

/// `x` limited to `[lo, hi]` (`Clamp`): `lo` below it, `hi` above it, NaN kept. Unlike
/// `f32::clamp` it never panics, whatever the bounds a model gives (with `lo > hi`, values
/// below `lo` give `lo`, the rest above `hi` give `hi`, as OpenVINO's reference computes).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
#[allow(clippy::manual_clamp)]
pub fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// −1, 0 or 1 by the sign of `x` (0 for ±0; NaN stays NaN).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn sign(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x * 0.0
    }
}

/// `min(max(x + 3, 0), 6) / 6` (`HSigmoid`).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn hsigmoid(x: f32) -> f32 {
    (x + 3.0).clamp(0.0, 6.0) / 6.0
}

/// `x · min(max(x + 3, 0), 6) / 6` (`HSwish`).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn hswish(x: f32) -> f32 {
    x * (x + 3.0).clamp(0.0, 6.0) / 6.0
}

/// `x · sigmoid(β·x)` (`Swish`).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn swish<I: Isa>(isa: I, x: f32, beta: f32) -> f32 {
    x * act::sigmoid(isa, beta * x)
}

/// `x · tanh(softplus(x))` (`Mish`).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn mish<I: Isa>(isa: I, x: f32) -> f32 {
    x * act::tanh(isa, act::softplus(isa, x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::Portable;

    /// Distance in representable f32 values.
    fn ulps(a: f32, b: f64) -> u32 {
        let b = b as f32;
        let key = |v: f32| {
            let i = v.to_bits() as i32;
            if i < 0 { i32::MIN - i } else { i }
        };
        (key(a) as i64 - key(b) as i64).unsigned_abs() as u32
    }

    #[test]
    fn library_functions_are_within_one_ulp() {
        for i in 1..20_000 {
            let x = i as f32 * 0.013 - 1.0;
            if x > 0.0 {
                assert!(ulps(ln(x), (x as f64).ln()) <= 1, "ln {x}");
                assert!(ulps(sqrt(x), (x as f64).sqrt()) == 0, "sqrt {x}");
                let p = pow(x, 1.7);
                assert!(ulps(p, (x as f64).powf(f64::from(1.7f32))) <= 1, "pow {x}: {p:e}");
            }
            assert_eq!(floor(x), (x as f64).floor() as f32);
            assert_eq!(ceil(x), (x as f64).ceil() as f32);
        }
        assert!(ln(-1.0).is_nan() && ln(0.0) == f32::NEG_INFINITY && sqrt(-1.0).is_nan());
    }

    #[test]
    fn math_h_functions_are_within_two_ulps() {
        type F = (fn(f32) -> f32, fn(f64) -> f64, &'static str);
        let fs: [F; 12] = [
            (sin, f64::sin, "sin"),
            (cos, f64::cos, "cos"),
            (tan, f64::tan, "tan"),
            (asin, f64::asin, "asin"),
            (acos, f64::acos, "acos"),
            (atan, f64::atan, "atan"),
            (sinh, f64::sinh, "sinh"),
            (cosh, f64::cosh, "cosh"),
            (asinh, f64::asinh, "asinh"),
            (acosh, f64::acosh, "acosh"),
            (atanh, f64::atanh, "atanh"),
            (erf, libm::erf, "erf"),
        ];
        for i in 0..20_000 {
            let x = i as f32 * 0.0011 - 11.0;
            for (f, exact, name) in fs {
                let (got, want) = (f(x), exact(f64::from(x)));
                if want.is_nan() {
                    assert!(got.is_nan(), "{name} {x}: {got}");
                } else {
                    assert!(ulps(got, want) <= 2, "{name} {x}: {got:e} against {want:e}");
                }
            }
        }
        assert_eq!([round_even(2.5), round_even(-0.5), round_even(3.5), round_even(1.2)], [2.0, -0.0, 4.0, 1.0]);
        assert_eq!([round(2.5), round(-0.5), round(3.5), round(1.2)], [3.0, -1.0, 4.0, 1.0]);
    }

    #[test]
    fn piecewise_functions_follow_their_definitions() {
        assert_eq!([clamp(-3.0, -2.0, 2.0), clamp(0.5, -2.0, 2.0), clamp(9.0, -2.0, 2.0)], [-2.0, 0.5, 2.0]);
        assert!(clamp(f32::NAN, -1.0, 1.0).is_nan());
        assert_eq!(clamp(0.0, 1.0, -1.0), 1.0, "bounds the wrong way round: no panic");
        assert_eq!([sign(-2.5), sign(0.0), sign(3.0)], [-1.0, 0.0, 1.0]);
        assert!(sign(f32::NAN).is_nan());
        assert_eq!([hsigmoid(-4.0), hsigmoid(0.0), hsigmoid(4.0)], [0.0, 0.5, 1.0]);
        assert_eq!([hswish(-4.0), hswish(1.5), hswish(4.0)], [0.0, 1.5 * 4.5 / 6.0, 4.0]);
        for x in [-6.0f32, -1.0, 0.0, 0.5, 3.0] {
            let xd = x as f64;
            let sig = 1.0 / (1.0 + (-xd).exp());
            assert!((swish(Portable, x, 1.0) as f64 - xd * sig).abs() < 1e-6, "swish {x}");
            let sp = xd.max(0.0) + (-xd.abs()).exp().ln_1p();
            assert!((mish(Portable, x) as f64 - xd * sp.tanh()).abs() < 1e-6, "mish {x}");
        }
    }
}
