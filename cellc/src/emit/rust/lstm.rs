//! LSTMCell kernels. Gate order f, i, c, o as in OpenVINO; `B` is the summed `[4H]` bias.
//!
//! ```text
//! f = f(x·Wfᵀ + h·Rfᵀ + bf)    i = f(x·Wiᵀ + h·Riᵀ + bi)
//! c̃ = g(x·Wcᵀ + h·Rcᵀ + bc)    o = f(x·Woᵀ + h·Roᵀ + bo)
//! c' = f ⊙ c + i ⊙ c̃           h' = o ⊙ h(c')
//! ```
//! with f and g applied to inputs clamped to `[-clip, clip]` when `clip` is set; h takes
//! the new cell state unclipped, as OpenVINO computes it. With peepholes (ONNX's `P`), f
//! and i also add `Pf ⊙ c` and `Pi ⊙ c`, and o adds `Po ⊙ c'`, before their clip.
use super::ctx::{Ctx, Span};
use proc_macro2::TokenStream;
use quote::quote;

/// The body of `step_projected_rows`, which starts from `p`, each row's input projection
/// `x·Wᵀ + B`, one `[f|i|c|o]` panel per tile.
pub(super) fn kernel(ctx: &Ctx<'_>, span: Span) -> TokenStream {
    let s = &ctx.cell.spec;
    let t = ctx.tile;
    let (f, g, hh) = (&s.activations[0], &s.activations[1], &s.activations[2]);
    let (t2, t3) = (2 * t, 3 * t);
    // The peepholes' tile holds f, i, o side by side.
    let [pf, pi, po] = match ctx.peepholes() {
        Some(_) => {
            [quote! { + peep[t][l] * c[j] }, quote! { + peep[t][#t + l] * c[j] }, quote! { + peep[t][#t2 + l] * ct }]
        }
        None => [quote! {}, quote! {}, quote! {}],
    };
    let fg = ctx.act(f, s.clip, quote! { a[l] #pf });
    let ig = ctx.act(f, s.clip, quote! { a[#t + l] #pi });
    let cg = ctx.act(g, s.clip, quote! { a[#t2 + l] });
    let og = ctx.act(f, s.clip, quote! { a[#t3 + l] #po });
    let hc = ctx.act(hh, None, quote! { ct });
    let o = span.out(quote! { j });
    ctx.single_accumulator(span, &["c", "out", "out_c"], quote! {}, |j, _| {
        quote! {
            let j = #j;
            let ct = #fg * c[j] + #ig * #cg;
            out_c[#o] = ct;
            out[#o] = #og * #hc;
        }
    })
}
