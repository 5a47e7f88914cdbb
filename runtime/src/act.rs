//! Activation functions and clipping, in f32: OpenVINO's four (relu, sigmoid, tanh,
//! hardsigmoid) and the rest of the ONNX set.
//!
//! Every function here is straight-line f32 arithmetic — no calls, no branches, no tables
//! — so a loop applying it to the lanes of a tile compiles to vector instructions. The
//! error bounds of the transcendental ones, against the correctly rounded result, are
//! checked over every f32 input by `tests/ulp.rs`: [`exp`] ≤ 1 ULP, [`sigmoid`] ≤ 2 ULP,
//! [`tanh`] ≤ 1 ULP, [`elu`] ≤ 2 ULP (1 at the portable level), [`softplus`] ≤ 3 ULP. The
//! rest are one or two correctly rounded operations. [`fast`] holds cheaper
//! approximations, chosen with the `fast_activations` option; their measured errors are
//! stated there.
//!
//! The polynomial and rational coefficients come from `scripts/fit_activations.py`, by
//! way of `cellc_pack::poly`, the table the C emitter writes them out from.
//!
//! The functions with a polynomial take the level token of the kernel that calls them
//! ([`Isa`]): at a level with FMA each multiply–add of the polynomial rounds once, which
//! shortens the chain of dependent operations (a multiply then an add wait for two
//! roundings); at the portable level they round the product and the sum. The bounds above
//! hold at both (checked for both). The generated C computes the same operations and
//! fuses the same multiply–adds where its target has FMA (`FP_FAST_FMAF`), so it has the
//! bits of one level or the other.
use crate::simd::Isa;
use cellc_pack::poly::{self, LN2_HI, LN2_LO};

/// `a·b + c`, fused at levels with FMA.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn fma<I: Isa>(isa: I, a: f32, b: f32, c: f32) -> f32 {
    isa.mul_add(c, a, b)
}

/// `max(0, x)`.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn relu(x: f32) -> f32 {
    if x > 0.0 { x } else { 0.0 }
}

/// `c₀·xⁿ + … + cₙ` by Horner's rule, each step one multiply–add.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn horner<const N: usize, I: Isa>(isa: I, c: &[f32; N], x: f32) -> f32 {
    const { assert!(N > 0, "a polynomial has a coefficient") };
    c[1..].iter().fold(c[0], |p, &c| fma(isa, p, x, c))
}

/// `1.5·2^23`: added to a value below 2^22 in magnitude, the sum keeps the nearest integer
/// to that value in the low bits of its mantissa.
const SHIFT: f32 = 12_582_912.0;

/// `x = n·ln 2 + r` with `n` the nearest integer to `x / ln 2` and `|r| ≤ ln 2 / 2`:
/// `(n, r)`, for `|x|` below 2^22 (Cody–Waite: `n·ln 2` in two parts, the first exact).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn reduce<I: Isa>(isa: I, x: f32) -> (i32, f32) {
    let (k, r) = reduce_biased::<0, _>(isa, x);
    (k.to_bits() as i32 - SHIFT.to_bits() as i32, r)
}

/// [`reduce`] with `n` kept as `k = 1.5·2^23 + bias + n`, whose low mantissa bits hold
/// `n + bias` (`BIAS`): with `bias = 127 + m`, [`pow2_of`] turns `k` into `2^(n + m)` in one shift.
/// An even `bias` keeps the parity of `n + bias` that of `n`, so a product `x / ln 2` half
/// way between two integers (which the portable level's rounded product makes possible)
/// rounds to the `n` it rounds to without the bias, and the bits stay [`reduce`]'s.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn reduce_biased<const BIAS: u16, I: Isa>(isa: I, x: f32) -> (f32, f32) {
    const { assert!(BIAS.is_multiple_of(2), "an even bias") };
    let shift = SHIFT + BIAS as f32;
    let k = fma(isa, x, core::f32::consts::LOG2_E, shift);
    let nf = k - shift;
    let r = fma(isa, -nf, LN2_HI, x);
    (k, fma(isa, -nf, LN2_LO, r))
}

/// `2^(n + m)` from the `k` of [`reduce_biased`] with `bias = 127 + m`, for `n + m + 127`
/// in `[1, 254]`: the shift moves `n + m + 127` into the exponent field and drops the rest.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn pow2_of(k: f32) -> f32 {
    f32::from_bits(k.to_bits() << 23)
}

/// `e^r − 1` for `|r| ≤ ln 2 / 2`, as `e^r` rounds it: `1 + q` is `e^r` by a degree-6
/// polynomial fitted for relative error (3e-9 on its own), its inner part in Estrin's form
/// (pairs of coefficients joined by `r²`): 3 dependent multiply–adds instead of Horner's 5.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn exp_reduced_m1<I: Isa>(isa: I, r: f32) -> f32 {
    let r2 = r * r;
    let [c0, c1, c2, c3, c4] = poly::EXP;
    let lo = fma(isa, c3, r, c4);
    let hi = fma(isa, c1, r, c2);
    let hi = fma(isa, c0, r2, hi);
    let p = fma(isa, hi, r2, lo);
    fma(isa, r2, p, r)
}

/// `e^r · s` for a power of two `s` where the product is a normal float: `(1 + q)·s` in one
/// multiply–add, `q·s + s`. Scaling by `s` is exact there, so this is `1 + q` rounded, times
/// `s`, the bits of the two operations at the cost of one (at the portable level, `q·s` is
/// exact too, and the sum rounds as `1 + q` does).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn exp_scaled<I: Isa>(isa: I, r: f32, s: f32) -> f32 {
    fma(isa, exp_reduced_m1(isa, r), s, s)
}

/// `e^x`, within 1 ULP of the correctly rounded result (checked for every f32), with
/// overflow to infinity, gradual underflow to zero, and NaN kept.
///
/// `x = n·ln 2 + r` with `|r| ≤ ln 2 / 2` (Cody–Waite: `n·ln 2` in two parts, the first
/// exact), `e^r` by a degree-6 polynomial fitted for relative error (3e-9 on its own), and
/// `2^n` built from its bits in two halves, so results in the subnormal range round once.
///
/// The polynomial's inner part is evaluated in Estrin's form (pairs of coefficients joined
/// by `r²`) rather than Horner's: 3 dependent multiply–adds instead of 5, which shortens
/// every activation built on `exp` (measured on AMD Zen 4, a chain of dependent calls on 16
/// lanes: sigmoid 18.9 → 18.4 ns, tanh 21.1 → 20.5 ns a call).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn exp<I: Isa>(isa: I, x: f32) -> f32 {
    // Past these, e^x is infinite or rounds to zero; the clamp keeps 2^n buildable.
    let (n, r) = reduce(isa, x.clamp(-104.0, 88.8));
    let er = 1.0 + exp_reduced_m1(isa, r);
    // 2^n as 2^(n/2) · 2^(n - n/2): each half is a normal float for n in [-150, 128].
    let half = n >> 1;
    let s1 = f32::from_bits(((half + 127) as u32) << 23);
    let s2 = f32::from_bits(((n - half + 127) as u32) << 23);
    er * s1 * s2
}

/// 2^65, the scale [`sigmoid`] computes `e^-|x|` at.
const SIGMOID_SCALE: f32 = 36_893_488_147_419_103_232.0;

/// `1 / (1 + e^-x)`, within 2 ULP of the correctly rounded result (checked for every f32);
/// computed from `e^-|x|`, so it never overflows.
///
/// `e^-|x|` is the product of [`exp`] taken at the scale 2^65, where every value it takes
/// (down to 2^-150, where it is clamped) is a normal float: `2^n` comes from `k` in one
/// shift (no halves), and the product `e^r · 2^(n+65)` is exact (one multiply–add scales
/// `e^r`). The quotient of the two scaled values is the quotient of the unscaled ones,
/// rounded once, so the bits are those of `exp` (subnormal results included: `2^65 + e` is
/// then `2^65`), checked equal over every f32 at both levels, for fewer operations
/// (measured on AMD Zen 3, 128 independent lanes: 17.2 → 13.6 cycles a vector of 8; a
/// dependent chain of calls, 20.2 → 18.6 ns a call).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn sigmoid<I: Isa>(isa: I, x: f32) -> f32 {
    let y = -x.abs();
    // Below, e^y rounds to zero at any scale; the clamp keeps 2^(n+65) a normal float.
    let y = if y < -104.0 { -104.0 } else { y };
    let (k, r) = reduce_biased::<{ 127 + 65 }, _>(isa, y);
    let e = exp_scaled(isa, r, pow2_of(k));
    // For x < 0, e^x / (1 + e^x): one division either way (a product with 1 / (1 + e^x)
    // would round twice, measured 3 ULP).
    let num = if x >= 0.0 { SIGMOID_SCALE } else { e };
    num / (SIGMOID_SCALE + e)
}

/// Hyperbolic tangent, within 1 ULP of the correctly rounded result (checked for every
/// f32). Below |x| = 0.55 an odd polynomial fitted for relative error (1e-9 on its own);
/// above, `1 − 2 / (e^2|x| + 1)`, which has no cancellation there. Both are computed and
/// one is selected, so lanes vectorise. `e^2|x|` is [`exp`]'s, its argument first limited
/// to 88 (where tanh has long rounded to ±1), taken at half scale so that `2^(n-1)` is
/// one normal float built in one shift (with an even bias): `1 − 1 / (e^2|x|/2 + 1/2)`,
/// the same bits (checked over every f32 at both levels) for fewer operations (AMD Zen 3,
/// 128 independent lanes: 24.5 → 21.3 cycles a vector of 8; a dependent chain of calls,
/// 23.0 → 21.3 ns a call).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn tanh<I: Isa>(isa: I, x: f32) -> f32 {
    let a = x.abs();
    let a2 = a * a;
    let p = horner(isa, &poly::TANH_SMALL, a2);
    let small = fma(isa, a * a2, p, a);
    let b = if a > 44.0 { 44.0 } else { a };
    let (k, r) = reduce_biased::<{ 127 - 1 }, _>(isa, 2.0 * b);
    let large = 1.0 - 1.0 / (exp_scaled(isa, r, pow2_of(k)) + 0.5);
    let t = if a < poly::TANH_SMALL_BELOW { small } else { large };
    t.copysign(x)
}

/// `max(0, min(1, alpha * x + beta))`; OpenVINO's defaults are `alpha = 0.2`, `beta = 0.5`.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn hardsigmoid(x: f32, alpha: f32, beta: f32) -> f32 {
    (alpha * x + beta).clamp(0.0, 1.0)
}

/// `alpha·x + beta` (ONNX defaults `alpha = 1`, `beta = 0`).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn affine(x: f32, alpha: f32, beta: f32) -> f32 {
    alpha * x + beta
}

/// `x` if `x ≥ 0`, else `alpha·x` (ONNX default `alpha = 0.01`). Computed as `x` times 1 or
/// `alpha` (exact: `x·1 = x`): a choice between `x` and `alpha·x` mapped in place becomes a
/// store of the negative values alone, which LLVM vectorises as masked stores, slow on AMD.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn leakyrelu(x: f32, alpha: f32) -> f32 {
    x * if x >= 0.0 { 1.0 } else { alpha }
}

/// `x` if `x > alpha`, else 0 (ONNX default `alpha = 1`; strict, as ONNX's operator and
/// ONNX Runtime define it).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn thresholdedrelu(x: f32, alpha: f32) -> f32 {
    if x > alpha { x } else { 0.0 }
}

/// `alpha·tanh(beta·x)` (ONNX defaults `alpha = 1`, `beta = 1`), with [`tanh`].
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn scaledtanh<I: Isa>(isa: I, x: f32, alpha: f32, beta: f32) -> f32 {
    alpha * tanh(isa, beta * x)
}

/// `x` if `x ≥ 0`, else `alpha·(e^x − 1)` (ONNX default `alpha = 1`); with `alpha = 1`,
/// within 2 ULP (1 at the portable level) of the correctly rounded result (checked for
/// every f32).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn elu<I: Isa>(isa: I, x: f32, alpha: f32) -> f32 {
    let m = expm1_neg(isa, x);
    if x >= 0.0 { x } else { alpha * m }
}

/// `e^x − 1` for `x ≤ 0`: above −ln 2 / 2 a polynomial `x + x²·P(x)` fitted for relative
/// error (no cancellation near 0), below it `e^x − 1`, where the subtraction is exact or
/// nearly so. Both are computed and one is selected, so lanes vectorise.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn expm1_neg<I: Isa>(isa: I, x: f32) -> f32 {
    let p = horner(isa, &poly::EXPM1_NEG, x);
    let small = fma(isa, x * x, p, x);
    let large = exp(isa, x) - 1.0;
    if x > poly::EXPM1_NEG_ABOVE { small } else { large }
}

/// `x / (1 + |x|)`.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn softsign(x: f32) -> f32 {
    x / (1.0 + x.abs())
}

/// `ln(1 + e^x)`, computed as `max(x, 0) + ln(1 + e^−|x|)` so it neither overflows nor
/// loses the small values; within 3 ULP of the correctly rounded result (checked for every
/// f32).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn softplus<I: Isa>(isa: I, x: f32) -> f32 {
    x.max(0.0) + ln_1p_unit(isa, exp(isa, -x.abs()))
}

/// `ln(1 + e)` for `e` in `[0, 1]`. With `u = 1 + e` rounded, `ln u` comes from
/// `u = 2^k·m` (`m` in `[√½, √2)`, `k` 0 or 1) and `ln m = 2·atanh(s)`, `s = (m − 1)/(m + 1)`,
/// a polynomial in `s²`; `(e − (u − 1)) / u` puts back what rounding `u` lost, which is
/// all of `e` when `e` is tiny.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
fn ln_1p_unit<I: Isa>(isa: I, e: f32) -> f32 {
    let u = 1.0 + e;
    let big = u > core::f32::consts::SQRT_2;
    let m = if big { 0.5 * u } else { u };
    let k = if big { 1.0 } else { 0.0 };
    let s = (m - 1.0) / (m + 1.0);
    let t = s * s;
    let p = horner(isa, &poly::LN_ATANH, t);
    let ln_m = fma(isa, s * t, p, 2.0 * s);
    let lost = (e - (u - 1.0)) / u;
    k * LN2_HI + (ln_m + (k * LN2_LO + lost))
}

/// Clamps `x` to `[-c, c]`: the `clip` attribute, applied to an activation's input.
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub fn clip(x: f32, c: f32) -> f32 {
    x.clamp(-c, c)
}

/// Cheaper approximations of the transcendental activations, chosen with the
/// `fast_activations` option (`--fast-activations`); the others are re-exported unchanged,
/// so generated code names every activation through one module. Errors measured over every
/// f32 input by `tests/ulp.rs`, as absolute error where the exact value is below 1 in
/// magnitude and relative error above (the gates they feed are in `[0, 1]` or `[-1, 1]`):
///
/// | function | max error | in ULP | the default version |
/// |---|---|---|---|
/// | [`fast::tanh`] | 4.6e-7 (also relative, everywhere) | 8 | [`tanh`], 1 ULP |
/// | [`fast::sigmoid`] | 2.6e-7 | — (absolute only: far below 0 it is 0 or a few 1e-8) | [`sigmoid`], 2 ULP |
/// | [`fast::elu`] (α = 1) | 1.3e-7 | — (absolute only, near 0) | [`elu`], 2 ULP |
/// | [`fast::softplus`] | 1.9e-7 | — (absolute only, far below 0) | [`softplus`], 3 ULP |
///
/// Over 1000 steps of a GRU or an LSTM (H = 64) the hidden states of the two drift apart by
/// at most 6e-7, and the drift does not grow (`tests/tests/it/drift.rs`).
pub mod fast {
    pub use super::{affine, clip, hardsigmoid, leakyrelu, relu, softsign, thresholdedrelu};
    use super::{fma, horner};
    use crate::simd::Isa;
    use cellc_pack::poly;

    /// `tanh(x)` as a rational function `x·P(x²)/Q(x²)` on `|x| ≤ 7.9` (beyond, tanh is
    /// within 3e-7 of ±1), fitted for relative error: 4 and 5 multiply–adds that run side by
    /// side, and one division.
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    pub fn tanh<I: Isa>(isa: I, x: f32) -> f32 {
        let x = x.clamp(-poly::FAST_TANH_CLAMP, poly::FAST_TANH_CLAMP);
        let x2 = x * x;
        let p = horner(isa, &poly::FAST_TANH_P, x2);
        let q = horner(isa, &poly::FAST_TANH_Q, x2);
        x * p / q
    }

    /// `1 / (1 + e^-x)` as `(1 + tanh(x / 2)) / 2` with [`tanh`] above.
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    pub fn sigmoid<I: Isa>(isa: I, x: f32) -> f32 {
        fma(isa, 0.5, tanh(isa, 0.5 * x), 0.5)
    }

    /// `alpha·tanh(beta·x)` with [`tanh`] above.
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    pub fn scaledtanh<I: Isa>(isa: I, x: f32, alpha: f32, beta: f32) -> f32 {
        alpha * tanh(isa, beta * x)
    }

    /// `x` if `x ≥ 0`, else `alpha·(e^x − 1)` with `exp_neg` (below).
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    pub fn elu<I: Isa>(isa: I, x: f32, alpha: f32) -> f32 {
        let m = exp_neg(isa, x) - 1.0;
        if x >= 0.0 { x } else { alpha * m }
    }

    /// `ln(1 + e^x)` as `max(x, 0) + ln(1 + e^−|x|)` with `exp_neg` (below) and a shorter
    /// logarithm than the exact version's, without its correction for rounding `1 + e`.
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    pub fn softplus<I: Isa>(isa: I, x: f32) -> f32 {
        let e = exp_neg(isa, -x.abs());
        let u = 1.0 + e;
        let big = u > core::f32::consts::SQRT_2;
        let m = if big { 0.5 * u } else { u };
        let k = if big { core::f32::consts::LN_2 } else { 0.0 };
        let s = (m - 1.0) / (m + 1.0);
        let t = s * s;
        let p = horner(isa, &poly::FAST_LN_ATANH, t);
        x.max(0.0) + (k + fma(isa, s * t, p, 2.0 * s))
    }

    /// `e^x` for `x ≤ 0` (relative error 4e-7 down to e^-87, then 0 below): the range
    /// reduction of [`super::exp`], a degree-5 polynomial and one power of two.
    #[cfg_attr(not(cellc_unoptimised), inline(always))]
    fn exp_neg<I: Isa>(isa: I, x: f32) -> f32 {
        let (n, r) = super::reduce(isa, x.clamp(-87.0, 0.0));
        let p = horner(isa, &poly::FAST_EXP_NEG, r);
        let er = 1.0 + fma(isa, r * r, p, r);
        er * f32::from_bits(((n + 127) as u32) << 23)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::Portable;

    #[test]
    fn sigmoid_matches_formula_and_saturates() {
        for i in -2000..=2000 {
            let x = i as f32 * 0.05;
            let want = 1.0 / (1.0 + (-(x as f64)).exp());
            assert!((sigmoid(Portable, x) as f64 - want).abs() < 2e-7, "x = {x}");
        }
        assert_eq!(sigmoid(Portable, -200.0), 0.0);
        assert_eq!(sigmoid(Portable, 200.0), 1.0);
    }

    #[test]
    fn hardsigmoid_is_clamped_line() {
        assert_eq!(hardsigmoid(-10.0, 0.2, 0.5), 0.0);
        assert_eq!(hardsigmoid(10.0, 0.2, 0.5), 1.0);
        assert!((hardsigmoid(1.0, 0.2, 0.5) - 0.7).abs() < 1e-7);
    }

    /// Largest difference from an f64 formula over [-20, 20], relative to max(1, |y|).
    fn worst(f: impl Fn(f32) -> f32, want: impl Fn(f64) -> f64) -> f64 {
        (-4000..=4000)
            .map(|i| {
                let x = i as f32 * 0.005;
                let w = want(x as f64);
                (f(x) as f64 - w).abs() / w.abs().max(1.0)
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn onnx_activations_match_their_formulas() {
        let e = 4.0 * f32::EPSILON as f64;
        assert!(worst(|x| affine(x, 0.5, -0.25), |x| 0.5 * x - 0.25) < e);
        assert!(worst(|x| leakyrelu(x, 0.01), |x| if x >= 0.0 { x } else { 0.01f32 as f64 * x }) < e);
        assert!(worst(|x| thresholdedrelu(x, 1.0), |x| if x > 1.0 { x } else { 0.0 }) < e);
        assert!(worst(|x| scaledtanh(Portable, x, 1.5, 0.5), |x| 1.5 * (0.5 * x).tanh()) < e);
        assert!(worst(|x| elu(Portable, x, 0.7), |x| if x >= 0.0 { x } else { 0.7f32 as f64 * x.exp_m1() }) < e);
        assert!(worst(softsign, |x| x / (1.0 + x.abs())) < e);
        assert!(worst(|x| softplus(Portable, x), |x| x.exp().ln_1p()) < e);
        // Far tails: no overflow, no lost values.
        assert_eq!(softplus(Portable, 200.0), 200.0);
        assert!(softplus(Portable, -90.0) > 0.0);
        assert_eq!(thresholdedrelu(1.0, 1.0), 0.0);
    }

    #[test]
    fn relu_and_clip() {
        assert_eq!(relu(-1.5), 0.0);
        assert_eq!(relu(2.5), 2.5);
        assert_eq!(clip(5.0, 3.0), 3.0);
        assert_eq!(clip(-5.0, 3.0), -3.0);
        assert_eq!(clip(1.0, 3.0), 1.0);
    }
}
