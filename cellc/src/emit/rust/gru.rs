//! GRUCell kernels. Gate order z, r, h as in OpenVINO; `B` is `[bz, br, bh]` (sums of the
//! input and recurrent biases) or, with `linear_before_reset`, `[bz, br, Wbh, Rbh]`.
//!
//! ```text
//! z = f(x·Wzᵀ + h·Rzᵀ + bz)      r = f(x·Wrᵀ + h·Rrᵀ + br)
//! n = g(x·Whᵀ + (r ⊙ h)·Rhᵀ + bh)              (linear_before_reset = false)
//! n = g(x·Whᵀ + Wbh + r ⊙ (h·Rhᵀ + Rbh))       (linear_before_reset = true)
//! h' = (1 − z) ⊙ n + z ⊙ h
//! ```
//! with f and g applied to inputs clamped to `[-clip, clip]` when `clip` is set.
//!
//! Both strategies read the same packed panels (gates of a tile side by side, see
//! `cellc_runtime::__private::pack`); they differ only in how a product is written (see
//! [`Ctx::matvec`]). Without `linear_before_reset` the candidate needs all of `r ⊙ h`, so
//! it is a second pass over the tiles.
use super::ctx::{Ctx, Span, row_binds};
use crate::ir::CellKind;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// Whether the cell applies its reset gate after the recurrent product, so that every gate
/// reads `h` directly and the step is one pass over the tiles.
pub(super) fn one_pass(ctx: &Ctx<'_>) -> bool {
    matches!(ctx.cell.spec.kind, CellKind::Gru { linear_before_reset: true })
}

/// The body of `step_projected_rows`, which starts from `p`, each row's input projection
/// `x·Wᵀ` plus the input-side biases, one `[z|r|h]` panel per tile.
pub(super) fn kernel(ctx: &Ctx<'_>) -> TokenStream {
    let span = ctx.whole();
    if one_pass(ctx) {
        return lbr(ctx, span);
    }
    let (h, t, tiles) = (ctx.cell.spec.hidden, ctx.tile, ctx.tiles());
    let (first, second) = (first(ctx, span), second(ctx, span, quote!(&rh)));
    quote! {
        // First pass: z, r ⊙ h and the input part of the candidate, tile by tile.
        let mut z = [[[0.0f32; #t]; #tiles]; S];
        let mut xn = [[[0.0f32; #t]; #tiles]; S];
        let mut rh = [[0.0f32; #h]; S];
        #first
        // Second pass: the candidate needs all of r ⊙ h.
        #second
    }
}

/// With `linear_before_reset`: the whole step over the tiles of `span`.
pub(super) fn lbr(ctx: &Ctx<'_>, span: Span) -> TokenStream {
    let s = &ctx.cell.spec;
    let (h, t) = (s.hidden, ctx.tile);
    let (f, g) = (&s.activations[0], &s.activations[1]);
    let t2 = 2 * t;
    let (lanes, j, range, at) = (ctx.lanes(), ctx.row_index(), span.range(), span.at());
    let zpre = ctx.act(f, s.clip, quote! { ax[l] + ah[l] });
    let rpre = ctx.act(f, s.clip, quote! { ax[#t + l] + ah[#t + l] });
    let binds = ctx.binds(&ctx.recurrent);
    let rh = ctx.products(span, (&format_ident!("ah"), 3 * t, Some(quote! { [bh[t]; S] })), "r", h, quote!(h));
    let npre = ctx.act(g, s.clip, quote! { ax[#t2 + l] + rg * ah[#t2 + l] });
    let rows = row_binds(&["ah", "h", "out"]);
    let o = span.out(quote! { j });
    quote! {
        #binds
        #rh
        for t in #range {
            let ah = &ah[#at];
            for s in 0..S {
                let ax = &p[s][#at];
                #rows
                for l in 0..#lanes {
                    let j = #j;
                    let z = #zpre;
                    let rg = #rpre;
                    let n = #npre;
                    out[#o] = (1.0 - z) * n + z * h[j];
                }
            }
        }
    }
}

/// Binds the recurrent slots named `fields`.
fn binds(ctx: &Ctx<'_>, fields: &[&str]) -> TokenStream {
    let slots: Vec<_> = ctx.recurrent.iter().filter(|s| fields.contains(&s.field)).cloned().collect();
    ctx.binds(&slots)
}

/// Without `linear_before_reset`, the first pass over the tiles of `span`: `z` and the
/// input part of the candidate `xn` (both `[S][tiles][tile]`, by state tile) and `r ⊙ h`
/// (`rh`, `[S][rows of the span]`).
pub(super) fn first(ctx: &Ctx<'_>, span: Span) -> TokenStream {
    let s = &ctx.cell.spec;
    let (h, t) = (s.hidden, ctx.tile);
    let f = &s.activations[0];
    let t2 = 2 * t;
    let (lanes, j, range, at) = (ctx.lanes(), ctx.row_index(), span.range(), span.at());
    let zpre = ctx.act(f, s.clip, quote! { ax[l] + ah[l] });
    let rpre = ctx.act(f, s.clip, quote! { ax[#t + l] + ah[#t + l] });
    let binds = binds(ctx, &["rzr"]);
    let rzr = ctx.products(span, (&format_ident!("ah"), t2, None), "rzr", h, quote!(h));
    let o = span.out(quote! { j });
    quote! {
        #binds
        #rzr
        for t in #range {
            let ah = &ah[#at];
            for s in 0..S {
                let ax = &p[s][#at];
                let (ah, h, z, xn, rh) = (&ah[s], &h[s], &mut z[s], &mut xn[s], &mut rh[s]);
                for l in 0..#lanes {
                    let j = #j;
                    z[t][l] = #zpre;
                    rh[#o] = #rpre * h[j];
                    xn[t][l] = ax[#t2 + l];
                }
            }
        }
    }
}

/// Without `linear_before_reset`, the second pass over the tiles of `span`, from `z`, `xn`
/// and all of `r ⊙ h` (the expression `rh`, `&[S][H]`).
pub(super) fn second(ctx: &Ctx<'_>, span: Span, rh: TokenStream) -> TokenStream {
    let s = &ctx.cell.spec;
    let (h, t) = (s.hidden, ctx.tile);
    let (lanes, j, range, at) = (ctx.lanes(), ctx.row_index(), span.range(), span.at());
    let a = format_ident!("a");
    let binds = binds(ctx, &["rn"]);
    let init = quote! { ::core::array::from_fn(|s| xn[s][t]) };
    let rn = ctx.products(span, (&a, t, Some(init)), "rn", h, rh);
    let npre = ctx.act(&s.activations[1], s.clip, quote! { a[l] });
    let rows = row_binds(&["a", "h", "z", "out"]);
    let o = span.out(quote! { j });
    quote! {
        #binds
        #rn
        for t in #range {
            let a = &a[#at];
            for s in 0..S {
                #rows
                for l in 0..#lanes {
                    let j = #j;
                    let n = #npre;
                    out[#o] = (1.0 - z[t][l]) * n + z[t][l] * h[j];
                }
            }
        }
    }
}
