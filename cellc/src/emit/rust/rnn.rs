//! RNNCell kernels: `h' = f(x·Wᵀ + h·Rᵀ + B)`, with f applied to its input clamped to
//! `[-clip, clip]` when `clip` is set.
use super::cell::{Ctx, Pack, Slot, Tensor};
use super::exprs::{act, destructure, row_terms, sum, weight};
use crate::options::Strategy;
use proc_macro2::TokenStream;
use quote::quote;

/// The arrays the kernel reads, and its `step` body.
pub(super) fn kernel(ctx: &Ctx<'_>) -> (Vec<Slot>, TokenStream) {
    let s = &ctx.cell.spec;
    let (h, i) = (s.hidden, s.input);
    let f = &s.activations[0];
    match ctx.strategy {
        Strategy::Tiled => {
            let t = ctx.tile;
            let tiles = cellc_runtime::pack::tiles(h, t);
            let slots = vec![
                Slot { field: "w", tensor: Tensor::W, pack: Pack::Panels { sel: vec![0], cols: i } },
                Slot { field: "r", tensor: Tensor::R, pack: Pack::Panels { sel: vec![0], cols: h } },
                Slot { field: "b", tensor: Tensor::B, pack: Pack::Bias { segs: vec![Some(0)] } },
            ];
            let binds: Vec<TokenStream> = slots.iter().map(|sl| ctx.bind(sl)).collect();
            let lanes = if h % t == 0 {
                quote! { #t }
            } else {
                quote! { #t.min(#h - t * #t) }
            };
            let e = act(f, s.clip, quote! { a[l] });
            let body = quote! {
                #(#binds)*
                let w = w.as_chunks::<#t>().0.as_chunks::<#i>().0;
                let r = r.as_chunks::<#t>().0.as_chunks::<#h>().0;
                let b = b.as_chunks::<#t>().0;
                for t in 0..#tiles {
                    let mut a = b[t];
                    ::cellc_runtime::kernel::panel_acc(&mut a, &w[t], x);
                    ::cellc_runtime::kernel::panel_acc(&mut a, &r[t], h);
                    for l in 0..#lanes {
                        out[t * #t + l] = #e;
                    }
                }
            };
            (slots, body)
        }
        Strategy::Unrolled | Strategy::Auto => {
            let slots: Vec<Slot> = [(Tensor::W, "w"), (Tensor::R, "r"), (Tensor::B, "b")]
                .into_iter()
                .filter(|&(t, _)| ctx.is_runtime(t))
                .map(|(t, field)| Slot { field, tensor: t, pack: Pack::Raw })
                .collect();
            let binds: Vec<TokenStream> = slots.iter().map(|sl| ctx.bind(sl)).collect();
            let mut body = quote! { #(#binds)* };
            body.extend(destructure("x", i, quote!(x)));
            body.extend(destructure("h", h, quote!(h)));
            for j in 0..h {
                let mut terms: Vec<TokenStream> = weight(ctx, Tensor::B, j).into_iter().collect();
                terms.extend(row_terms(ctx, Tensor::W, j, i, "x"));
                terms.extend(row_terms(ctx, Tensor::R, j, h, "h"));
                let e = act(f, s.clip, sum(terms));
                body.extend(quote! { out[#j] = #e; });
            }
            (slots, body)
        }
    }
}
