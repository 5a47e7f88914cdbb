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
use super::cell::{Ctx, Pack, Slot, Tensor};
use super::exprs::{act, destructure, row_terms, sum, weight};
use super::names::ident;
use crate::ir::CellKind;
use crate::options::Strategy;
use proc_macro2::TokenStream;
use quote::quote;

/// The arrays the kernel reads, and its `step` body.
pub(super) fn kernel(ctx: &Ctx<'_>) -> (Vec<Slot>, TokenStream) {
    match ctx.strategy {
        Strategy::Tiled => tiled(ctx),
        Strategy::Unrolled | Strategy::Auto => unrolled(ctx),
    }
}

fn lbr(ctx: &Ctx<'_>) -> bool {
    matches!(ctx.cell.spec.kind, CellKind::Gru { linear_before_reset: true })
}

fn unrolled(ctx: &Ctx<'_>) -> (Vec<Slot>, TokenStream) {
    let s = &ctx.cell.spec;
    let (h, i) = (s.hidden, s.input);
    let (f, g) = (&s.activations[0], &s.activations[1]);
    let slots: Vec<Slot> = [Tensor::W, Tensor::R, Tensor::B]
        .into_iter()
        .filter(|&t| ctx.is_runtime(t))
        .map(|t| Slot { field: field(t), tensor: t, pack: Pack::Raw })
        .collect();
    let binds: Vec<TokenStream> = slots.iter().map(|sl| ctx.bind(sl)).collect();
    let mut body = quote! {
        #(#binds)*
    };
    body.extend(destructure("x", i, quote!(x)));
    body.extend(destructure("h", h, quote!(h)));
    // z and r.
    for (gate, name) in [(0usize, "z"), (1, "r")] {
        for j in 0..h {
            let row = gate * h + j;
            let mut terms: Vec<TokenStream> = weight(ctx, Tensor::B, row).into_iter().collect();
            terms.extend(row_terms(ctx, Tensor::W, row, i, "x"));
            terms.extend(row_terms(ctx, Tensor::R, row, h, "h"));
            let v = ident(&format!("{name}{j}"));
            let e = act(f, s.clip, sum(terms));
            body.extend(quote! { let #v = #e; });
        }
    }
    if !lbr(ctx) {
        for k in 0..h {
            let (rh, r, hk) = (ident(&format!("rh{k}")), ident(&format!("r{k}")), ident(&format!("h{k}")));
            body.extend(quote! { let #rh = #r * #hk; });
        }
    }
    for j in 0..h {
        let row = 2 * h + j;
        let pre = if lbr(ctx) {
            let mut xs: Vec<TokenStream> = weight(ctx, Tensor::B, row).into_iter().collect();
            xs.extend(row_terms(ctx, Tensor::W, row, i, "x"));
            let mut hs: Vec<TokenStream> = weight(ctx, Tensor::B, 3 * h + j).into_iter().collect();
            hs.extend(row_terms(ctx, Tensor::R, row, h, "h"));
            let (xs, hs) = (sum(xs), sum(hs));
            let r = ident(&format!("r{j}"));
            quote! { #xs + #r * (#hs) }
        } else {
            let mut terms: Vec<TokenStream> = weight(ctx, Tensor::B, row).into_iter().collect();
            terms.extend(row_terms(ctx, Tensor::W, row, i, "x"));
            terms.extend(row_terms(ctx, Tensor::R, row, h, "rh"));
            sum(terms)
        };
        let e = act(g, s.clip, pre);
        let (z, hj) = (ident(&format!("z{j}")), ident(&format!("h{j}")));
        body.extend(quote! {
            let n = #e;
            out[#j] = (1.0 - #z) * n + #z * #hj;
        });
    }
    (slots, body)
}

fn field(t: Tensor) -> &'static str {
    match t {
        Tensor::W => "w",
        Tensor::R => "r",
        Tensor::B => "b",
    }
}

/// Lanes of the last tile that hold real rows: a loop bound for the element-wise part.
fn lanes(ctx: &Ctx<'_>) -> TokenStream {
    let (h, t) = (ctx.cell.spec.hidden, ctx.tile);
    if h % t == 0 {
        quote! { #t }
    } else {
        quote! { #t.min(#h - t * #t) }
    }
}

fn tiled(ctx: &Ctx<'_>) -> (Vec<Slot>, TokenStream) {
    let s = &ctx.cell.spec;
    let (h, i, t) = (s.hidden, s.input, ctx.tile);
    let tiles = cellc_runtime::pack::tiles(h, t);
    let (f, g) = (&s.activations[0], &s.activations[1]);
    let (w3, w2) = (3 * t, 2 * t);
    let lanes = lanes(ctx);
    let (t2, t3) = (t, 2 * t);
    let zpre = act(f, s.clip, quote! { ax[l] + ah[l] });
    let rpre = act(f, s.clip, quote! { ax[#t2 + l] + ah[#t2 + l] });
    if lbr(ctx) {
        let slots = vec![
            Slot { field: "w", tensor: Tensor::W, pack: Pack::Panels { sel: vec![0, 1, 2], cols: i } },
            Slot { field: "r", tensor: Tensor::R, pack: Pack::Panels { sel: vec![0, 1, 2], cols: h } },
            Slot { field: "bx", tensor: Tensor::B, pack: Pack::Bias { segs: vec![Some(0), Some(1), Some(2)] } },
            Slot { field: "bh", tensor: Tensor::B, pack: Pack::Bias { segs: vec![None, None, Some(3)] } },
        ];
        let binds: Vec<TokenStream> = slots.iter().map(|sl| ctx.bind(sl)).collect();
        let npre = act(g, s.clip, quote! { ax[#t3 + l] + rg * ah[#t3 + l] });
        let body = quote! {
            #(#binds)*
            let w = w.as_chunks::<#w3>().0.as_chunks::<#i>().0;
            let r = r.as_chunks::<#w3>().0.as_chunks::<#h>().0;
            let bx = bx.as_chunks::<#w3>().0;
            let bh = bh.as_chunks::<#w3>().0;
            for t in 0..#tiles {
                let mut ax = bx[t];
                ::cellc_runtime::kernel::panel_acc(&mut ax, &w[t], x);
                let mut ah = bh[t];
                ::cellc_runtime::kernel::panel_acc(&mut ah, &r[t], h);
                for l in 0..#lanes {
                    let j = t * #t + l;
                    let z = #zpre;
                    let rg = #rpre;
                    let n = #npre;
                    out[j] = (1.0 - z) * n + z * h[j];
                }
            }
        };
        return (slots, body);
    }
    let slots = vec![
        Slot { field: "w", tensor: Tensor::W, pack: Pack::Panels { sel: vec![0, 1, 2], cols: i } },
        Slot { field: "rzr", tensor: Tensor::R, pack: Pack::Panels { sel: vec![0, 1], cols: h } },
        Slot { field: "rn", tensor: Tensor::R, pack: Pack::Panels { sel: vec![2], cols: h } },
        Slot { field: "bx", tensor: Tensor::B, pack: Pack::Bias { segs: vec![Some(0), Some(1), Some(2)] } },
    ];
    let binds: Vec<TokenStream> = slots.iter().map(|sl| ctx.bind(sl)).collect();
    let npre = act(g, s.clip, quote! { a[l] });
    let body = quote! {
        #(#binds)*
        let w = w.as_chunks::<#w3>().0.as_chunks::<#i>().0;
        let rzr = rzr.as_chunks::<#w2>().0.as_chunks::<#h>().0;
        let rn = rn.as_chunks::<#t>().0.as_chunks::<#h>().0;
        let bx = bx.as_chunks::<#w3>().0;
        // First pass: z, r ⊙ h and the input part of the candidate, tile by tile.
        let mut z = [[0.0f32; #t]; #tiles];
        let mut xn = [[0.0f32; #t]; #tiles];
        let mut rh = [0.0f32; #h];
        for t in 0..#tiles {
            let mut ax = bx[t];
            ::cellc_runtime::kernel::panel_acc(&mut ax, &w[t], x);
            let mut ah = [0.0f32; #w2];
            ::cellc_runtime::kernel::panel_acc(&mut ah, &rzr[t], h);
            for l in 0..#lanes {
                let j = t * #t + l;
                z[t][l] = #zpre;
                rh[j] = #rpre * h[j];
                xn[t][l] = ax[#t3 + l];
            }
        }
        // Second pass: the candidate needs all of r ⊙ h.
        for t in 0..#tiles {
            let mut a = xn[t];
            ::cellc_runtime::kernel::panel_acc(&mut a, &rn[t], &rh);
            for l in 0..#lanes {
                let j = t * #t + l;
                let n = #npre;
                out[j] = (1.0 - z[t][l]) * n + z[t][l] * h[j];
            }
        }
    };
    (slots, body)
}
