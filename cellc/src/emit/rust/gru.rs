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
//! `cellc_runtime::pack`); they differ only in how a product is written (see
//! [`Ctx::matvec`]). Without `linear_before_reset` the candidate needs all of `r ⊙ h`, so
//! it is a second pass over the tiles.
use super::cell::{Ctx, row_binds};
use crate::ir::CellKind;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The body of `step_projected_rows`, which starts from `p`, each row's input projection
/// `x·Wᵀ` plus the input-side biases, one `[z|r|h]` panel per tile.
pub(super) fn kernel(ctx: &Ctx<'_>) -> TokenStream {
    let s = &ctx.cell.spec;
    let (h, t) = (s.hidden, ctx.tile);
    let lbr = matches!(s.kind, CellKind::Gru { linear_before_reset: true });
    let tiles = cellc_pack::tiles(h, t);
    let (f, g) = (&s.activations[0], &s.activations[1]);
    let (w2, t2) = (2 * t, 2 * t);
    let lanes = ctx.lanes();
    let j = ctx.row_index();
    let zpre = ctx.act(f, s.clip, quote! { ax[l] + ah[l] });
    let rpre = ctx.act(f, s.clip, quote! { ax[#t + l] + ah[#t + l] });
    let ah = format_ident!("ah");
    let binds = ctx.binds(&ctx.recurrent);
    if lbr {
        let rh = ctx.products((&ah, 3 * t, Some(quote! { [bh[t]; S] })), "r", h, quote!(h));
        let npre = ctx.act(g, s.clip, quote! { ax[#t2 + l] + rg * ah[#t2 + l] });
        let rows = row_binds(&["ah", "h", "out"]);
        return quote! {
            #binds
            #rh
            for t in 0..#tiles {
                let ah = &ah[t];
                for s in 0..S {
                    let ax = &p[s][t];
                    #rows
                    for l in 0..#lanes {
                        let j = #j;
                        let z = #zpre;
                        let rg = #rpre;
                        let n = #npre;
                        out[j] = (1.0 - z) * n + z * h[j];
                    }
                }
            }
        };
    }
    let rzr = ctx.products((&ah, w2, None), "rzr", h, quote!(h));
    let a = format_ident!("a");
    let rn = ctx.products((&a, t, Some(quote! { ::core::array::from_fn(|s| xn[s][t]) })), "rn", h, quote!(&rh));
    let npre = ctx.act(g, s.clip, quote! { a[l] });
    let second = row_binds(&["a", "h", "z", "out"]);
    quote! {
        #binds
        // First pass: z, r ⊙ h and the input part of the candidate, tile by tile.
        let mut z = [[[0.0f32; #t]; #tiles]; S];
        let mut xn = [[[0.0f32; #t]; #tiles]; S];
        let mut rh = [[0.0f32; #h]; S];
        #rzr
        for t in 0..#tiles {
            let ah = &ah[t];
            for s in 0..S {
                let ax = &p[s][t];
                let (ah, h, z, xn, rh) = (&ah[s], &h[s], &mut z[s], &mut xn[s], &mut rh[s]);
                for l in 0..#lanes {
                    let j = #j;
                    z[t][l] = #zpre;
                    rh[j] = #rpre * h[j];
                    xn[t][l] = ax[#t2 + l];
                }
            }
        }
        // Second pass: the candidate needs all of r ⊙ h.
        #rn
        for t in 0..#tiles {
            let a = &a[t];
            for s in 0..S {
                #second
                for l in 0..#lanes {
                    let j = #j;
                    let n = #npre;
                    out[j] = (1.0 - z[t][l]) * n + z[t][l] * h[j];
                }
            }
        }
    }
}
