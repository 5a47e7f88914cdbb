//! RNNCell kernels: `h' = f(x·Wᵀ + h·Rᵀ + B)`, with f applied to its input clamped to
//! `[-clip, clip]` when `clip` is set.
use super::cell::Ctx;
use proc_macro2::TokenStream;
use quote::quote;

/// The body of `step_projected_rows`, which starts from `p`, each row's input projection
/// `x·Wᵀ + B`, one panel per tile.
pub(super) fn kernel(ctx: &Ctx<'_>) -> TokenStream {
    let s = &ctx.cell.spec;
    let e = ctx.act(&s.activations[0], s.clip, quote! { a[l] });
    ctx.single_accumulator(&["out"], |j| quote! { out[#j] = #e; })
}
