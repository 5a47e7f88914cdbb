//! RNNCell kernels: `h' = f(x·Wᵀ + h·Rᵀ + B)`, with f applied to its input clamped to
//! `[-clip, clip]` when `clip` is set.
use super::cell::{Ctx, Kernel, Pack, Slot, Tensor};
use super::exprs::act;
use quote::quote;

/// The arrays the kernel reads and its `step_projected` body, which starts from `p`, the
/// input projection `x·Wᵀ + B`, one panel per tile.
pub(super) fn kernel(ctx: &Ctx<'_>) -> Kernel {
    let s = &ctx.cell.spec;
    let input = [
        Slot { field: "w", tensor: Tensor::W, pack: Pack::Panels { sel: vec![0], cols: s.input } },
        Slot { field: "b", tensor: Tensor::B, pack: Pack::Bias { segs: vec![Some(0)] } },
    ];
    let e = act(&s.activations[0], s.clip, quote! { a[l] });
    let (recurrent, body) = ctx.single_accumulator(1, |j| quote! { out[#j] = #e; });
    Kernel { input, recurrent, width: ctx.tile, body }
}
