//! A step split across threads (`--threads N`): `step_projected` runs as a job of
//! `cellc_runtime::team`, each part computing the state rows of its own tiles from its own
//! panels, so that each core reads its share of the weights from its own cache. RNN, LSTM
//! and GRU with `linear_before_reset` take one stage; GRU takes two, since its candidate
//! needs all of `r ⊙ h`, which the parts of the first stage write a chunk each.
use super::cell::{Ctx, Span};
use super::{gru, lstm, rnn};
use crate::ir::CellKind;
use crate::options::Strategy;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// Bytes of recurrent weights below which a step stays on one thread: a split step costs
/// a few cache-line transfers between cores, more than it saves on a step this small.
const MIN_SPLIT_BYTES: usize = 32 << 10;

/// The parts of a step split across `threads` threads: none when the cell is unrolled, has
/// one tile, or reads too few weights a step to gain.
pub(super) fn spans(ctx: &Ctx<'_>, threads: usize) -> Vec<Span> {
    let (h, tiles) = (ctx.cell.spec.hidden, ctx.tiles());
    let gates = ctx.cell.spec.kind.gates();
    let bytes = h.saturating_mul(h).saturating_mul(gates).saturating_mul(ctx.store.bytes());
    if threads < 2 || tiles < 2 || ctx.strategy == Strategy::Unrolled || bytes < MIN_SPLIT_BYTES {
        return Vec::new();
    }
    let parts = threads.min(tiles);
    (0..parts).map(|k| Span { lo: k * tiles / parts, hi: (k + 1) * tiles / parts, tile: ctx.tile }).collect()
}

/// The first state row of `span`, and how many it has.
fn rows(ctx: &Ctx<'_>, span: Span) -> (usize, usize) {
    let h = ctx.cell.spec.hidden;
    let (first, end) = ((span.lo * span.tile).min(h), (span.hi * span.tile).min(h));
    (first, end - first)
}

/// `let Some(name) = name.first_chunk_mut::<n>() else { return };` and its view as one row.
/// The chunk's length is fixed by the job's bounds, so the `else` is never taken.
fn chunk(name: &Ident, n: usize, mutable: bool) -> TokenStream {
    if mutable {
        quote! {
            let Some(#name) = #name.first_chunk_mut::<#n>() else { return };
            let #name = ::core::array::from_mut(#name);
        }
    } else {
        quote! {
            let Some(#name) = #name.first_chunk::<#n>() else { return };
            let #name = ::core::array::from_ref(#name);
        }
    }
}

/// A part's method: `name(isa, args…)` binding `S = 1`, `V = 8` for the body, which sees
/// each argument as one row.
fn method(name: &Ident, args: TokenStream, views: TokenStream, body: TokenStream) -> TokenStream {
    quote! {
        #[inline(always)]
        fn #name<I: ::cellc_runtime::simd::Isa>(&self, isa: I, #args) {
            const S: usize = 1;
            const V: usize = 8;
            #views
            #body
        }
    }
}

/// `match` arms calling `call(k)` for each part `k`, the last as `_`.
fn arms(parts: usize, pat: impl Fn(TokenStream) -> TokenStream, call: impl Fn(usize) -> TokenStream) -> TokenStream {
    (0..parts)
        .map(|k| {
            let p = if k + 1 == parts {
                quote! { _ }
            } else {
                quote! { #k }
            };
            let (p, c) = (pat(p), call(k));
            quote! { #p => #c, }
        })
        .collect()
}

/// The job's bounds: the first state row of each part, then `H`.
fn bounds(ctx: &Ctx<'_>, spans: &[Span]) -> TokenStream {
    let b = spans.iter().map(|s| rows(ctx, *s).0).chain([ctx.cell.spec.hidden]);
    quote! { &[#(#b),*] }
}

/// `step_projected`'s body and the parts' methods, for a cell split into `spans`.
pub(super) fn step(ctx: &Ctx<'_>, spans: &[Span]) -> (TokenStream, TokenStream) {
    let (h, width, tiles) = (ctx.cell.spec.hidden, ctx.width, ctx.tiles());
    let parts = spans.len();
    let bounds = bounds(ctx, spans);
    let (out, out_c) = (format_ident!("out"), format_ident!("out_c"));
    let lstm = ctx.cell.spec.kind.has_cell_state();
    let two_pass = matches!(ctx.cell.spec.kind, CellKind::Gru { .. }) && !gru::one_pass(ctx);
    let name = |stage: &str, k: usize| format_ident!("{stage}_part{k}");
    let mut methods = TokenStream::new();
    if !two_pass {
        for (k, span) in spans.iter().enumerate() {
            let n = rows(ctx, *span).1;
            let (o, oc) = (chunk(&out, n, true), chunk(&out_c, n, true));
            let (args, views, body) = match ctx.cell.spec.kind {
                CellKind::Lstm => (
                    quote! { p: &[[f32; #width]; #tiles], h: &[f32; #h], c: &[f32; #h], out: &mut [f32], out_c: &mut [f32] },
                    quote! {
                        let (p, h, c) = (::core::array::from_ref(p), ::core::array::from_ref(h), ::core::array::from_ref(c));
                        #o
                        #oc
                    },
                    lstm::kernel(ctx, *span),
                ),
                CellKind::Rnn | CellKind::Gru { .. } => (
                    quote! { p: &[[f32; #width]; #tiles], h: &[f32; #h], out: &mut [f32] },
                    quote! {
                        let (p, h) = (::core::array::from_ref(p), ::core::array::from_ref(h));
                        #o
                    },
                    match ctx.cell.spec.kind {
                        CellKind::Rnn => rnn::kernel(ctx, *span),
                        _ => gru::lbr(ctx, *span),
                    },
                ),
            };
            methods.extend(method(&name("step", k), args, views, body));
        }
        let (shared, bind, call) = if lstm {
            (
                quote! { [Shared::new(out, 1, 0), Shared::new(out_c, 1, 0)] },
                quote! { let [out, out_c, ..] = s.mine; },
                quote! { (isa, p, h, c, out, out_c) },
            )
        } else {
            (quote! { [Shared::new(out, 1, 0)] }, quote! { let [out, ..] = s.mine; }, quote! { (isa, p, h, out) })
        };
        let arms = arms(
            parts,
            |p| p,
            |k| {
                let m = name("step", k);
                quote! { self.#m #call }
            },
        );
        let body = quote! {
            use ::cellc_runtime::team::Shared;
            ::cellc_runtime::team::run(#bounds, 1, &mut [(); #parts], &mut #shared, |s| {
                #bind
                isa.within(#[inline(always)] || match s.part { #arms })
            });
        };
        return (body, methods);
    }
    let t = ctx.tile;
    let rh = format_ident!("rh");
    for (k, span) in spans.iter().enumerate() {
        let n = rows(ctx, *span).1;
        let (r, o, all) = (chunk(&rh, n, true), chunk(&out, n, true), chunk(&rh, h, false));
        methods.extend(method(
            &name("first", k),
            quote! { p: &[[f32; #width]; #tiles], h: &[f32; #h], z: &mut [[f32; #t]; #tiles], xn: &mut [[f32; #t]; #tiles], rh: &mut [f32] },
            quote! {
                let (p, h) = (::core::array::from_ref(p), ::core::array::from_ref(h));
                let (z, xn) = (::core::array::from_mut(z), ::core::array::from_mut(xn));
                #r
            },
            gru::first(ctx, *span),
        ));
        methods.extend(method(
            &name("second", k),
            quote! { h: &[f32; #h], z: &[[f32; #t]; #tiles], xn: &[[f32; #t]; #tiles], rh: &[f32], out: &mut [f32] },
            quote! {
                let (h, z, xn) = (::core::array::from_ref(h), ::core::array::from_ref(z), ::core::array::from_ref(xn));
                #all
                #o
            },
            gru::second(ctx, *span, quote!(rh)),
        ));
    }
    let first = arms(
        parts,
        |p| quote! { (0, #p) },
        |k| {
            let m = name("first", k);
            quote! { self.#m(isa, p, h, z, xn, rh) }
        },
    );
    let second = arms(
        parts,
        |p| quote! { (_, #p) },
        |k| {
            let m = name("second", k);
            quote! { self.#m(isa, h, z, xn, all, out) }
        },
    );
    let body = quote! {
        use ::cellc_runtime::team::Shared;
        // Each part's z and input part of the candidate, from the first stage to the second.
        let mut locals = [([[0.0f32; #t]; #tiles], [[0.0f32; #t]; #tiles]); #parts];
        let mut rh = [0.0f32; #h];
        let mut shared = [Shared::new(&mut rh, 1, 0), Shared::new(out, 1, 1)];
        ::cellc_runtime::team::run(#bounds, 2, &mut locals, &mut shared, |s| {
            let (z, xn) = (&mut s.local.0, &mut s.local.1);
            let [rh, out, ..] = s.mine;
            let [all, ..] = s.done;
            isa.within(#[inline(always)] || match (s.index, s.part) { #first #second })
        });
    };
    (body, methods)
}
