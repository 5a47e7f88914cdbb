//! Conformance machinery shared by the `cellc-conformance` runner and the integration
//! tests: loading cases, and building generated Rust for real in a scratch crate under
//! `target/` (and generated C with the system's compiler) and running it on inputs from files.
pub mod case;
pub mod cscratch;
pub mod scratch;

/// `model` and its `inputs` with the `W` and `R` of every cell (embedded, or given as
/// Parameters) rounded to `weight_type` with `half` (independently of cellc's packing),
/// when it is a 16-bit type: what the generated code computes with. `None` for f32 and
/// `auto` (random or OpenVINO f32 weights are not 16-bit values, so `auto` keeps f32).
pub fn stored_as(
    model: &cellc::ir::Model,
    inputs: &[Vec<f64>],
    weight_type: cellc::WeightType,
) -> Option<(cellc::ir::Model, Vec<Vec<f64>>)> {
    let round: fn(f32) -> f32 = match weight_type {
        cellc::WeightType::F16 => |v| half::f16::from_f32(v).to_f32(),
        cellc::WeightType::Bf16 => |v| half::bf16::from_f32(v).to_f32(),
        cellc::WeightType::Auto | cellc::WeightType::F32 => return None,
    };
    let (mut m, mut inputs) = (model.clone(), inputs.to_vec());
    for cell in &mut m.cells {
        for w in [&mut cell.w, &mut cell.r] {
            match w {
                cellc::ir::WeightSrc::Embedded { values, .. } => values.iter_mut().for_each(|v| *v = round(*v)),
                cellc::ir::WeightSrc::Runtime(p) => {
                    inputs[*p].iter_mut().for_each(|v| *v = f64::from(round(*v as f32)));
                }
            }
        }
    }
    Some((m, inputs))
}

/// Largest absolute difference between two equally long sequences (infinite if their
/// lengths differ, NaN-aware: a NaN on either side counts as infinite).
pub fn max_abs_err(got: &[f32], want: &[f64]) -> f64 {
    if got.len() != want.len() {
        return f64::INFINITY;
    }
    got.iter()
        .zip(want)
        .map(|(&g, &w)| {
            let d = (g as f64 - w).abs();
            if d.is_nan() { f64::INFINITY } else { d }
        })
        .fold(0.0, f64::max)
}
