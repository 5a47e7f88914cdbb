//! Activation functions and clipping, in f32, as OpenVINO defines them for its recurrent
//! cells. Each is exact up to the accuracy of `libm`'s `expf`/`tanhf` (a few ULP).

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

    #[test]
    fn relu_and_clip() {
        assert_eq!(relu(-1.5), 0.0);
        assert_eq!(relu(2.5), 2.5);
        assert_eq!(clip(5.0, 3.0), 3.0);
        assert_eq!(clip(-5.0, 3.0), -3.0);
        assert_eq!(clip(1.0, 3.0), 1.0);
    }
}
