//! Code emitters. Each takes only a planned model that passed its check ([`crate::ir::verify::Verified`]).
pub mod c;
pub(crate) mod dense;
pub(crate) mod dense_plan;
pub(crate) mod plan;
pub(crate) mod runs;
pub mod rust;
pub(crate) mod winograd;

use crate::diag::{Diag, Diagnostics};
use crate::ir::WeightSrc;
use crate::ir::verify::Verified;
use crate::limits::{MAX_EMBEDDED_WEIGHTS, MAX_MODEL_WEIGHTS};
use crate::options::WeightsMode;
use std::borrow::Cow;

/// The model as `mode` has it emitted: as it is, or with every constant weight turned into
/// a Parameter (see [`crate::ir::Model::with_runtime_weights`]); refused when its weights are more than
/// generated code holds (embedded as tables, or in the types that hold runtime weights).
pub(crate) fn in_weights_mode(m: &Verified, mode: WeightsMode) -> Result<Cow<'_, Verified>, Diagnostics> {
    let (mut embedded, mut all) = (0u64, 0u64);
    for c in &m.cells {
        let (s, dirs) = (&c.spec, c.seq.as_ref().map_or(1, |q| q.direction.count()) as u64);
        let (g, h, i) = (s.kind.gates() as u64, s.hidden as u64, s.input as u64);
        // Within `limits`, these products are far from overflowing.
        all += dirs * (g * h * (i + h) + s.kind.bias_blocks() as u64 * h + if c.p.is_some() { 3 * h } else { 0 });
        for w in [Some(&c.w), Some(&c.r), c.b.as_ref(), c.p.as_ref()].into_iter().flatten() {
            if let WeightSrc::Embedded { values, .. } = w {
                embedded += values.len() as u64;
            }
        }
    }
    // Dense layers keep their weights embedded in either mode.
    let dense: u64 = m.denses.iter().map(|d| d.w.len() as u64).sum();
    embedded += dense;
    let refuse = |msg: crate::diag::Message| Err(Diag::new(crate::diag::Code::Limit, &m.file, None, msg).into());
    if all > MAX_MODEL_WEIGHTS {
        return refuse(
            format!("the model's cells hold {all} weight values; cellc generates cells of at most {MAX_MODEL_WEIGHTS} in all")
                .into(),
        );
    }
    match mode {
        WeightsMode::Runtime if dense > MAX_EMBEDDED_WEIGHTS => refuse(
            format!(
                "the model's dense layers embed {dense} weight values; cellc generates tables of at most {MAX_EMBEDDED_WEIGHTS}"
            )
            .into(),
        ),
        WeightsMode::Embedded if embedded > MAX_EMBEDDED_WEIGHTS => refuse(
            crate::diag::Message::new(format!(
                "the model embeds {embedded} weight values; cellc generates tables of at most {MAX_EMBEDDED_WEIGHTS}"
            ))
            .fix(crate::diag::Fix::new("use", crate::diag::Setting::new("weights_mode", "runtime")).then(" to give them at run time")),
        ),
        WeightsMode::Embedded => Ok(Cow::Borrowed(m)),
        // The same steps over more Parameters: checked again all the same.
        WeightsMode::Runtime => Verified::new(m.with_runtime_weights().0, &[]).map(Cow::Owned).map_err(|faults| {
            let faults: Vec<String> = faults.iter().map(ToString::to_string).collect();
            let msg = format!(
                "internal error: the model with its weights given at run time fails its own check ({}); please report it",
                faults.join("; ")
            );
            Diag::new(crate::diag::Code::Internal, &m.file, None, msg).into()
        }),
    }
}

/// The bytes of the model value generated code keeps between the steps of a run: its
/// scratch (its steps' buffers and work area) and the variables; what the caller places on
/// the stack, in a `static` or on the heap. `None` when a layer's plan cannot be made (the
/// emitter says why).
pub fn value_bytes(m: &crate::ir::Model, weight_type: crate::options::WeightType) -> Option<usize> {
    let states = m.states.iter().map(|s| s.len).fold(0usize, usize::saturating_add);
    Some(scratch_bytes(m, weight_type).ok()?.saturating_add(states.saturating_mul(4)))
}

/// The bytes of the scratch the model value holds: the steps' buffers, and the one work area
/// of the layers run by F(2×2, 3×3) (the largest they take).
pub(crate) fn scratch_bytes(
    m: &crate::ir::Model,
    weight_type: crate::options::WeightType,
) -> Result<usize, plan::StoreError> {
    let mut work = 0;
    for d in &m.denses {
        work = work.max(dense_plan::DensePlan::of(d, weight_type)?.work(d).unwrap_or(0));
    }
    Ok(m.slots.iter().sum::<usize>().saturating_add(work).saturating_mul(4))
}

/// From how many bytes a model value is said to be large (its header says how to build it
/// off the stack): 1 MiB, past the 512 KiB to 8 MiB of the main thread's stack on common
/// systems and far past a spawned thread's default 2 MiB once other frames are counted.
pub const LARGE_VALUE: usize = 1 << 20;

/// What the generated file's header says of a large model value (`ty`: the model's type in
/// Rust; empty for C).
pub(crate) fn large_value_note(
    m: &crate::ir::Model,
    weight_type: crate::options::WeightType,
    ty: &str,
) -> Option<String> {
    let bytes = value_bytes(m, weight_type).filter(|&b| b >= LARGE_VALUE)?;
    let mib = bytes as f64 / (1u64 << 20) as f64;
    Some(if ty.is_empty() {
        format!(
            "The model struct is {bytes} bytes ({mib:.1} MiB): give it static storage or allocate it (malloc), not a local variable on the stack."
        )
    } else {
        format!(
            "The model value is {bytes} bytes ({mib:.1} MiB): build it off the stack, with `cellc_runtime::boxed::<{ty}>()` (std) or in a `static`, not as a local variable."
        )
    })
}
