//! Conformance machinery shared by the `cellc-conformance` runner and the integration
//! tests: loading cases, and building generated Rust for real in a scratch crate under
//! `target/` (and generated C with the system's compiler) and running it on inputs from files.
pub mod args;
pub mod case;
pub mod cscratch;
pub mod graphs;
pub mod scratch;

/// `model` and its `inputs` with the `W` and `R` of every cell (embedded, or given as
/// Parameters) and the weights of every dense layer rounded to `weight_type` (independently
/// of cellc's packing: with `half` for the 16-bit types; for int8, each column of each
/// matrix to the nearest multiple of `max |column| / 127`, as `WeightType::I8` defines it),
/// when it is a narrow type: what the generated code computes with. `None` for f32 and
/// `auto` (random or OpenVINO f32 weights are not 16-bit values, so `auto` keeps f32).
pub fn stored_as(
    model: &cellc::ir::Model,
    inputs: &[Vec<f64>],
    weight_type: cellc::WeightType,
) -> Option<(cellc::ir::Model, Vec<Vec<f64>>)> {
    let round: fn(&mut [f32], usize) = match weight_type {
        cellc::WeightType::F16 => |m, _| m.iter_mut().for_each(|v| *v = half::f16::from_f32(*v).to_f32()),
        cellc::WeightType::Bf16 => |m, _| m.iter_mut().for_each(|v| *v = half::bf16::from_f32(*v).to_f32()),
        cellc::WeightType::I8 => int8_columns,
        cellc::WeightType::Auto | cellc::WeightType::F32 => return None,
    };
    let (mut m, mut inputs) = (model.clone(), inputs.to_vec());
    for cell in &mut m.cells {
        // A sequence's directions are matrices of their own.
        let dirs = cell.seq.as_ref().map_or(1, |q| q.direction.count());
        let (i, h) = (cell.spec.input, cell.spec.hidden);
        let each = |v: &mut [f32], cols: usize| {
            let len = v.len() / dirs;
            v.chunks_mut(len.max(1)).for_each(|d| round(d, cols));
        };
        for (w, cols) in [(&mut cell.w, i), (&mut cell.r, h)] {
            match w {
                cellc::ir::WeightSrc::Embedded { values, .. } => each(values, cols),
                cellc::ir::WeightSrc::Runtime(p) => {
                    let mut v: Vec<f32> = inputs[*p].iter().map(|&x| x as f32).collect();
                    each(&mut v, cols);
                    inputs[*p] = v.into_iter().map(f64::from).collect();
                }
            }
        }
    }
    for d in &mut m.denses {
        round(&mut d.w, d.k);
    }
    Some((m, inputs))
}

/// Each column of the row-major matrix `m` (`cols` columns) to the nearest multiple of its
/// scale `max |column| / 127` (ties to even, at most 127 of it).
fn int8_columns(m: &mut [f32], cols: usize) {
    for k in 0..cols {
        let scale = m.iter().skip(k).step_by(cols).fold(0.0f32, |a, v| a.max(v.abs())) / 127.0;
        for v in m.iter_mut().skip(k).step_by(cols) {
            let q = if scale == 0.0 { 0.0 } else { (*v / scale).clamp(-127.0, 127.0).round_ties_even() };
            *v = q * scale;
        }
    }
}

/// Largest absolute difference between two equally long sequences (infinite if their
/// lengths differ). NaN-aware as [`tolerance_used`] is: a NaN on both sides is no error, a
/// NaN on one side only counts as infinite.
pub fn max_abs_err(got: &[f32], want: &[f64]) -> f64 {
    if got.len() != want.len() {
        return f64::INFINITY;
    }
    got.iter()
        .zip(want)
        .map(|(&g, &w)| {
            // Equal values (infinities of one sign too, and NaN against NaN) are no error.
            if (g.is_nan() && w.is_nan()) || f64::from(g) == w {
                return 0.0;
            }
            let d = (g as f64 - w).abs();
            if d.is_nan() { f64::INFINITY } else { d }
        })
        .fold(0.0, f64::max)
}

/// The spacing of f32 values at `v` (one ULP there).
pub fn ulp(v: f64) -> f64 {
    let a = (v as f32).abs();
    if !a.is_finite() {
        return f64::INFINITY;
    }
    f64::from(f32::from_bits(a.to_bits() + 1)) - f64::from(a)
}

/// How much of its tolerance the worst value of `got` uses: the largest
/// `|got − want| / max(abs, ulps · ulp(want))` (at most 1 passes; infinite if the lengths
/// differ or a value is NaN on one side only). `ulps` lets deep graphs, whose large outputs
/// carry a rounding error relative to their size, be checked in ULPs as well.
pub fn tolerance_used(got: &[f32], want: &[f64], abs: f64, ulps: f64) -> f64 {
    if got.len() != want.len() {
        return f64::INFINITY;
    }
    got.iter()
        .zip(want)
        .map(|(&g, &w)| {
            if (g.is_nan() && w.is_nan()) || f64::from(g) == w {
                return 0.0;
            }
            let d = (g as f64 - w).abs();
            let allowed = abs.max(ulps * ulp(w));
            if !d.is_finite() {
                f64::INFINITY
            } else if d == 0.0 {
                0.0
            } else {
                d / allowed
            }
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_infinities_are_no_error_and_others_are_infinite() {
        let inf = f64::INFINITY;
        assert_eq!(max_abs_err(&[f32::INFINITY, f32::NEG_INFINITY], &[inf, -inf]), 0.0);
        assert_eq!(tolerance_used(&[f32::INFINITY], &[inf], 1e-5, 8.0), 0.0);
        assert_eq!(max_abs_err(&[f32::INFINITY], &[-inf]), inf);
        assert_eq!(tolerance_used(&[f32::MAX], &[inf], 1e-5, 8.0), inf);
    }

    #[test]
    fn the_printed_error_and_the_pass_rule_agree_on_nan() {
        // NaN on both sides (an average over a window of padding alone): no error, and a pass.
        assert_eq!(max_abs_err(&[f32::NAN, 1.0], &[f64::NAN, 1.0]), 0.0);
        assert_eq!(tolerance_used(&[f32::NAN, 1.0], &[f64::NAN, 1.0], 1e-5, 8.0), 0.0);
        // NaN on one side only: infinite, and a failure, either way round.
        for (g, w) in [(f32::NAN, 0.0), (0.0, f64::NAN)] {
            assert_eq!(max_abs_err(&[g], &[w]), f64::INFINITY);
            assert_eq!(tolerance_used(&[g], &[w], 1e-5, 8.0), f64::INFINITY);
        }
    }

    #[test]
    fn the_tolerance_is_absolute_or_in_ulps_whichever_is_larger() {
        assert_eq!(ulp(1.0), f64::from(f32::EPSILON));
        assert_eq!(ulp(-1.0), ulp(1.0));
        let want = [1000.0, 0.5];
        // 1000 ± 3 ULP (ULP 6.1e-5 there): beyond 1e-5 absolute, within 4 ULP.
        let got = [1000.0 + 3.0 * ulp(1000.0) as f32, 0.5];
        assert!(tolerance_used(&got, &want, 1e-5, 0.0) > 1.0);
        assert!(tolerance_used(&got, &want, 1e-5, 4.0) <= 1.0);
        assert!(tolerance_used(&got, &want, 1e-5, 2.0) > 1.0);
        assert_eq!(tolerance_used(&[f32::NAN], &[0.0], 1.0, 1.0), f64::INFINITY);
        assert_eq!(tolerance_used(&[0.0], &[0.0, 1.0], 1.0, 1.0), f64::INFINITY);
    }
}
