//! Activation functions and clipping, in f32: OpenVINO's four (relu, sigmoid, tanh,
//! hardsigmoid) and the rest of the ONNX set. Each is exact up to the accuracy of `libm`'s
//! `expf`, `expm1f`, `log1pf` and `tanhf` (a few ULP).

/// `max(0, x)`.
#[inline(always)]
pub fn relu(x: f32) -> f32 {
    if x > 0.0 { x } else { 0.0 }
}

/// `1 / (1 + e^-x)`, computed without overflow for large `|x|`.
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    if x >= 0.0 {
        1.0 / (1.0 + libm::expf(-x))
    } else {
        let e = libm::expf(x);
        e / (1.0 + e)
    }
}

/// Hyperbolic tangent.
#[inline(always)]
pub fn tanh(x: f32) -> f32 {
    libm::tanhf(x)
}

/// `max(0, min(1, alpha * x + beta))`; OpenVINO's defaults are `alpha = 0.2`, `beta = 0.5`.
#[inline(always)]
pub fn hardsigmoid(x: f32, alpha: f32, beta: f32) -> f32 {
    (alpha * x + beta).clamp(0.0, 1.0)
}

/// `alpha·x + beta` (ONNX defaults `alpha = 1`, `beta = 0`).
#[inline(always)]
pub fn affine(x: f32, alpha: f32, beta: f32) -> f32 {
    alpha * x + beta
}

/// `x` if `x ≥ 0`, else `alpha·x` (ONNX default `alpha = 0.01`).
#[inline(always)]
pub fn leakyrelu(x: f32, alpha: f32) -> f32 {
    if x >= 0.0 { x } else { alpha * x }
}

/// `x` if `x > alpha`, else 0 (ONNX default `alpha = 1`; strict, as ONNX's operator and
/// ONNX Runtime define it).
#[inline(always)]
pub fn thresholdedrelu(x: f32, alpha: f32) -> f32 {
    if x > alpha { x } else { 0.0 }
}

/// `alpha·tanh(beta·x)` (ONNX defaults `alpha = 1`, `beta = 1`).
#[inline(always)]
pub fn scaledtanh(x: f32, alpha: f32, beta: f32) -> f32 {
    alpha * libm::tanhf(beta * x)
}

/// `x` if `x ≥ 0`, else `alpha·(e^x − 1)` (ONNX default `alpha = 1`).
#[inline(always)]
pub fn elu(x: f32, alpha: f32) -> f32 {
    if x >= 0.0 { x } else { alpha * libm::expm1f(x) }
}

/// `x / (1 + |x|)`.
#[inline(always)]
pub fn softsign(x: f32) -> f32 {
    x / (1.0 + x.abs())
}

/// `ln(1 + e^x)`, computed as `max(x, 0) + ln(1 + e^−|x|)` so it neither overflows nor
/// loses the small values.
#[inline(always)]
pub fn softplus(x: f32) -> f32 {
    x.max(0.0) + libm::log1pf(libm::expf(-x.abs()))
}

/// Clamps `x` to `[-c, c]`: the `clip` attribute, applied to an activation's input.
#[inline(always)]
pub fn clip(x: f32, c: f32) -> f32 {
    x.clamp(-c, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigmoid_matches_formula_and_saturates() {
        for i in -2000..=2000 {
            let x = i as f32 * 0.05;
            let want = 1.0 / (1.0 + (-(x as f64)).exp());
            assert!((sigmoid(x) as f64 - want).abs() < 2e-7, "x = {x}");
        }
        assert_eq!(sigmoid(-200.0), 0.0);
        assert_eq!(sigmoid(200.0), 1.0);
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
        assert!(worst(|x| scaledtanh(x, 1.5, 0.5), |x| 1.5 * (0.5 * x).tanh()) < e);
        assert!(worst(|x| elu(x, 0.7), |x| if x >= 0.0 { x } else { 0.7f32 as f64 * x.exp_m1() }) < e);
        assert!(worst(softsign, |x| x / (1.0 + x.abs())) < e);
        assert!(worst(softplus, |x| x.exp().ln_1p()) < e);
        // Far tails: no overflow, no lost values.
        assert_eq!(softplus(200.0), 200.0);
        assert!(softplus(-90.0) > 0.0);
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
