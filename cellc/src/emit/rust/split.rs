//! Steps split across threads (`--threads N`): `step`, `step_projected` and each block of
//! steps a `feed` or a sequence runs are jobs of `cellc_runtime::__private::team`, each part computing
//! the state rows of its own tiles from its own panels, so that each core reads its share
//! of the weights from its own cache. Parts project their own tiles' inputs too (all but
//! `step_projected`, which is given the projection), so no core waits for another's. RNN,
//! LSTM and GRU with `linear_before_reset` take one stage a step; GRU takes two, since its
//! candidate needs all of `r ⊙ h`, which the parts of the first stage write a chunk each. A
//! block of steps is one job, a stage boundary between steps, rather than a job a step.
use super::ctx::{Ctx, Span};
use super::{gru, lstm, rnn};
use crate::ir::CellKind;
use crate::options::Strategy;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// Bytes of recurrent weights per stage below which even a block of steps (`feed`,
/// sequences) stays on one thread: split, each stage costs a barrier, a few cache-line
/// transfers between cores. Measured on AMD Zen 4, two threads against one, `feed` over 64
/// steps, one program, medians of 21 interleaved rounds: an RNN with H = 128 (64 KiB, one
/// stage) 1.02–1.17× over four runs; GRUs with H = 128 and 16-bit weights, the two-stage
/// one (48 KiB a stage) 0.88–0.97×, the one-stage one (`linear_before_reset`, 96 KiB)
/// 1.20–1.34× over two runs.
const MIN_SPLIT_BYTES: usize = 64 << 10;

/// Bytes of recurrent weights per stage below which a lone step (`step`, `step_projected`)
/// stays on one thread: a job of one step also costs its posting and the helpers' start.
/// Measured on AMD Zen 4, two threads against one, in one run of `bench/run.sh` (medians):
/// RNN H = 128 (64 KiB a stage) 0.89×, GRU H = 128 (two stages of 96 KiB) 1.03×, the same
/// with `linear_before_reset` (one of 192 KiB) 1.52×, LSTM H = 128 (256 KiB) 1.30×.
const MIN_STEP_BYTES_PER_STAGE: usize = 128 << 10;

/// Bytes of the cell's recurrent weights.
fn recurrent_bytes(ctx: &Ctx<'_>) -> usize {
    let (h, gates) = (ctx.cell.spec.hidden, ctx.cell.spec.kind.gates());
    h.saturating_mul(h).saturating_mul(gates).saturating_mul(ctx.store.bytes())
}

/// Whether the cell's step takes two stages (GRU without `linear_before_reset`).
fn two_pass(ctx: &Ctx<'_>) -> bool {
    matches!(ctx.cell.spec.kind, CellKind::Gru { .. }) && !gru::one_pass(ctx)
}

/// Bytes of the cell's recurrent weights a stage of its step reads, on average.
fn bytes_per_stage(ctx: &Ctx<'_>) -> usize {
    let stages = if two_pass(ctx) { 2 } else { 1 };
    recurrent_bytes(ctx) / stages
}

/// Whether a lone step of a split cell is split too, or only its blocks of steps are.
pub(super) fn splits_lone_step(ctx: &Ctx<'_>) -> bool {
    bytes_per_stage(ctx) >= MIN_STEP_BYTES_PER_STAGE
}

/// The parts of a step split across `threads` threads: none when the cell is unrolled, has
/// one tile, or reads too few weights a step to gain.
pub(super) fn spans(ctx: &Ctx<'_>, threads: usize) -> Vec<Span> {
    let tiles = ctx.tiles();
    if threads < 2 || tiles < 2 || ctx.strategy == Strategy::Unrolled || bytes_per_stage(ctx) < MIN_SPLIT_BYTES {
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
fn method(ctx: &Ctx<'_>, name: &Ident, args: TokenStream, views: TokenStream, body: TokenStream) -> TokenStream {
    // A part reads its tiles in one order whatever the step (see `Plan::snake`).
    let order = ctx.snake().then(|| quote! { let back = false; });
    quote! {
        #[inline(always)]
        fn #name<I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, #args) {
            const S: usize = 1;
            const V: usize = 8;
            #order
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

/// Where a part's step finds its projection.
#[derive(Clone, Copy)]
enum Source {
    /// The caller's `p`, every tile's (`step_projected`).
    Given,
    /// `x`, which the part projects for its own tiles first (`step`).
    Input,
    /// The part's local block of projections, row `i` (`feed_block`), computed at the
    /// block's first step.
    Block,
}

/// A split cell's parts: their methods, and how the closure of a job calls them.
struct Parts<'a> {
    ctx: &'a Ctx<'a>,
    spans: &'a [Span],
    /// Most tiles of one part.
    most: usize,
    two_pass: bool,
}

impl Parts<'_> {
    fn name(stage: &str, k: usize) -> Ident {
        format_ident!("{stage}_part{k}")
    }

    /// Every part's methods: its step (two for GRU without `linear_before_reset`) and its
    /// projection.
    fn methods(&self) -> TokenStream {
        let ctx = self.ctx;
        let (h, width, i) = (ctx.cell.spec.hidden, ctx.width, ctx.cell.spec.input);
        let (out, out_c, rh) = (format_ident!("out"), format_ident!("out_c"), format_ident!("rh"));
        let most = self.most;
        let mut methods = TokenStream::new();
        for (k, span) in self.spans.iter().enumerate() {
            let (n, tk) = (rows(ctx, *span).1, span.len());
            let p = quote! {
                let Some(p) = p.first_chunk::<#tk>() else { return };
                let (p, h) = (::core::array::from_ref(p), ::core::array::from_ref(h));
            };
            let (o, oc) = (chunk(&out, n, true), chunk(&out_c, n, true));
            let (project, project_rows) = (Self::name("project", k), Self::name("project_rows", k));
            let body = ctx.project_span(*span);
            // A shorter block: in one pass over the part's weights in a long block (see
            // `Plan::long_block`), else row by row.
            let short = if ctx.long_block(None).is_some() {
                let first = ctx.project_first(*span);
                quote! {
                    let m = xs.len().min(B);
                    #first
                }
            } else {
                quote! {
                    for (x, p) in xs.iter().zip(p.iter_mut()) {
                        self.#project_rows::<1, I>(isa, ::core::array::from_ref(x), ::core::array::from_mut(p));
                    }
                }
            };
            methods.extend(quote! {
                #[inline(always)]
                fn #project_rows<const S: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, x: &[[f32; #i]; S], p: &mut [[[f32; #width]; #most]; S]) {
                    #body
                }
                /// This part's tiles of the projections of `xs` (at most `B` rows).
                #[inline(always)]
                fn #project<const B: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, xs: &[[f32; #i]], p: &mut [[[f32; #width]; #most]; B]) {
                    match xs.first_chunk::<B>() {
                        Some(x) => self.#project_rows::<B, I>(isa, x, p),
                        None => {
                            #short
                        }
                    }
                }
            });
            if self.two_pass {
                let t = ctx.tile;
                let tiles = ctx.tiles();
                let (r, all) = (chunk(&rh, n, true), chunk(&rh, h, false));
                methods.extend(method(
                    ctx,
                    &Self::name("first", k),
                    quote! { p: &[[f32; #width]], h: &[f32; #h], z: &mut [[f32; #t]; #tiles], xn: &mut [[f32; #t]; #tiles], rh: &mut [f32] },
                    quote! {
                        #p
                        let (z, xn) = (::core::array::from_mut(z), ::core::array::from_mut(xn));
                        #r
                    },
                    gru::first(ctx, *span),
                ));
                methods.extend(method(
                    ctx,
                    &Self::name("second", k),
                    quote! { h: &[f32; #h], z: &[[f32; #t]; #tiles], xn: &[[f32; #t]; #tiles], rh: &[f32], out: &mut [f32] },
                    quote! {
                        let (h, z, xn) = (::core::array::from_ref(h), ::core::array::from_ref(z), ::core::array::from_ref(xn));
                        #all
                        #o
                    },
                    gru::second(ctx, *span, quote!(rh)),
                ));
                continue;
            }
            let (args, views, body) = match ctx.cell.spec.kind {
                CellKind::Lstm => (
                    quote! { p: &[[f32; #width]], h: &[f32; #h], c: &[f32; #h], out: &mut [f32], out_c: &mut [f32] },
                    quote! {
                        #p
                        let c = ::core::array::from_ref(c);
                        #o
                        #oc
                    },
                    lstm::kernel(ctx, *span),
                ),
                CellKind::Rnn | CellKind::Gru { .. } => (
                    quote! { p: &[[f32; #width]], h: &[f32; #h], out: &mut [f32] },
                    quote! { #p #o },
                    match ctx.cell.spec.kind {
                        CellKind::Rnn => rnn::kernel(ctx, *span),
                        _ => gru::lbr(ctx, *span),
                    },
                ),
            };
            methods.extend(method(ctx, &Self::name("step", k), args, views, body));
        }
        methods
    }

    /// The `match` over the part (and, with two stages, over `half`, the stage of the step)
    /// that a job's closure runs, its step's projection coming from `source`.
    fn dispatch(&self, source: Source) -> TokenStream {
        let width = self.ctx.width;
        let most = self.most;
        // Part k's projection, and what computes it first.
        let input = |k: usize| -> (TokenStream, TokenStream) {
            let lo = self.spans[k].lo;
            match source {
                Source::Given => (quote! { &p[#lo..] }, quote! {}),
                Source::Input => {
                    let m = Self::name("project", k);
                    (
                        quote! { &p[0] },
                        quote! {
                            let mut p = [[[0.0f32; #width]; #most]; 1];
                            self.#m::<1, I>(isa, ::core::slice::from_ref(x), &mut p);
                        },
                    )
                }
                Source::Block => {
                    let m = Self::name("project", k);
                    (
                        quote! { &p[i] },
                        quote! {
                            if first {
                                self.#m::<B, I>(isa, xs, p);
                            }
                        },
                    )
                }
            }
        };
        let n = self.spans.len();
        if !self.two_pass {
            let call = if self.ctx.cell.spec.kind.has_cell_state() {
                quote! { (isa, p, h, c, out, out_c) }
            } else {
                quote! { (isa, p, h, out) }
            };
            let arms = arms(
                n,
                |p| p,
                |k| {
                    let (m, (p, before)) = (Self::name("step", k), input(k));
                    quote! {{
                        #before
                        let p = #p;
                        self.#m #call
                    }}
                },
            );
            return quote! { match s.part { #arms } };
        }
        let first = arms(
            n,
            |p| quote! { (0, #p) },
            |k| {
                let (m, (p, before)) = (Self::name("first", k), input(k));
                quote! {{
                    #before
                    let p = #p;
                    self.#m(isa, p, h, z, xn, rh)
                }}
            },
        );
        let second = arms(
            n,
            |p| quote! { (_, #p) },
            |k| {
                let m = Self::name("second", k);
                quote! { self.#m(isa, h, z, xn, all, out) }
            },
        );
        quote! { match (half, s.part) { #first #second } }
    }
}

/// A split cell's `step_projected`, `step_at` and `feed_block` bodies, and its parts'
/// methods.
pub(super) struct Split {
    pub(super) projected: TokenStream,
    pub(super) step: TokenStream,
    pub(super) feed: TokenStream,
    pub(super) methods: TokenStream,
}

/// The bodies and methods of a cell split into `spans`.
pub(super) fn split(ctx: &Ctx<'_>, spans: &[Span]) -> Split {
    let (h, tiles, t, width) = (ctx.cell.spec.hidden, ctx.tiles(), ctx.tile, ctx.width);
    let n = spans.len();
    let bounds = bounds(ctx, spans);
    let most = spans.iter().map(Span::len).max().unwrap_or(0);
    let two_pass = two_pass(ctx);
    let parts = Parts { ctx, spans, most, two_pass };
    let methods = parts.methods();
    let lstm = ctx.cell.spec.kind.has_cell_state();
    let within = |source| {
        let d = parts.dispatch(source);
        quote! { isa.within(#[inline(always)] || #d) }
    };
    let block = quote! { [[[0.0f32; #width]; #most]; B] };
    if two_pass {
        // Each part's z and input part of the candidate, from a step's first stage to its second.
        let zx = quote! { ([[0.0f32; #t]; #tiles], [[0.0f32; #t]; #tiles]) };
        let one = |source| {
            let within = within(source);
            quote! {
                use ::cellc_runtime::__private::team::Shared;
                let mut locals = [#zx; #n];
                let mut rh = [0.0f32; #h];
                let mut shared = [Shared::new(&mut rh, 1, 0), Shared::new(out, 1, 1)];
                ::cellc_runtime::__private::team::run(#bounds, 2, &mut locals, &mut shared, move |s| {
                    let (z, xn) = (&mut s.local.0, &mut s.local.1);
                    let [rh, out, ..] = s.mine;
                    let [all, ..] = s.done;
                    let half = s.index;
                    #within
                });
            }
        };
        let within = within(Source::Block);
        let feed = feed(
            ctx,
            quote! {
                let mut locals = [(#block, [[0.0f32; #t]; #tiles], [[0.0f32; #t]; #tiles]); #n];
                let mut rhs = [[0.0f32; #h]; B];
                let mut shared = [Shared::rows(rhs[..m].as_flattened_mut(), 1, 0, 2), Shared::rows(rows.as_flattened_mut(), 1, 1, 2)];
                ::cellc_runtime::__private::team::run(#bounds, 2 * m, &mut locals, &mut shared, move |s| {
                    let (p, z, xn) = (&mut s.local.0, &mut s.local.1, &mut s.local.2);
                    let [rh, out, ..] = s.mine;
                    let [rhs, hs, ..] = s.done;
                    // Step `s.index / 2`: the state is the last row written, the second
                    // stage's `r ⊙ h` the row its first stage wrote.
                    let (half, first) = (s.index % 2, s.index == 0);
                    let h = hs.last_chunk::<#h>().unwrap_or(h0);
                    let all = rhs.last_chunk::<#h>().map_or(&[][..], |r| &r[..]);
                    let i = if rev { m - 1 - s.index / 2 } else { s.index / 2 };
                    #within
                });
            },
        );
        return Split { projected: one(Source::Given), step: one(Source::Input), feed, methods };
    }
    let (shared, bind) = if lstm {
        (quote! { [Shared::new(out, 1, 0), Shared::new(out_c, 1, 0)] }, quote! { let [out, out_c, ..] = s.mine; })
    } else {
        (quote! { [Shared::new(out, 1, 0)] }, quote! { let [out, ..] = s.mine; })
    };
    let one = |source| {
        let within = within(source);
        quote! {
            use ::cellc_runtime::__private::team::Shared;
            ::cellc_runtime::__private::team::run(#bounds, 1, &mut [(); #n], &mut #shared, move |s| {
                #bind
                #within
            });
        }
    };
    let (shared, states) = if lstm {
        (
            quote! { [Shared::rows(rows.as_flattened_mut(), 1, 0, 1), Shared::rows(cs[..m].as_flattened_mut(), 1, 0, 1)] },
            quote! {
                let [hs, cs, ..] = s.done;
                let (h, c) = (hs.last_chunk::<#h>().unwrap_or(h0), cs.last_chunk::<#h>().unwrap_or(c0));
            },
        )
    } else {
        (
            quote! { [Shared::rows(rows.as_flattened_mut(), 1, 0, 1)] },
            quote! {
                let [hs, ..] = s.done;
                let h = hs.last_chunk::<#h>().unwrap_or(h0);
            },
        )
    };
    let within = within(Source::Block);
    let feed = feed(
        ctx,
        quote! {
            let mut locals = [#block; #n];
            ::cellc_runtime::__private::team::run(#bounds, m, &mut locals, &mut #shared, move |s| {
                let p = &mut *s.local;
                #bind
                // Step `s.index`, from the last state written.
                #states
                let first = s.index == 0;
                let i = if rev { m - 1 - s.index } else { s.index };
                #within
            });
        },
    );
    Split { projected: one(Source::Given), step: one(Source::Input), feed, methods }
}

/// `feed_block`'s body around `job`, which runs the `m` steps of `xs` as one job, writing
/// step `i`'s state to `rows[i]` (and an LSTM's cell state to `cs[i]`) from `h0` (and `c0`).
/// The parts project their own tiles of the inputs, so `p` is not used.
fn feed(ctx: &Ctx<'_>, job: TokenStream) -> TokenStream {
    let h = ctx.cell.spec.hidden;
    let (cell_in, cell_out) = if ctx.cell.spec.kind.has_cell_state() {
        (
            quote! {
                let c0 = *c;
                let c0 = &c0;
                let mut cs = [[0.0f32; #h]; B];
            },
            quote! { *c = cs[m - 1]; },
        )
    } else {
        (quote! {}, quote! {})
    };
    quote! {
        use ::cellc_runtime::__private::team::Shared;
        let _ = p;
        let m = xs.len().min(ys.len()).min(B);
        if m == 0 {
            return;
        }
        let xs = &xs[..m];
        let h0 = *h;
        let h0 = &h0;
        #cell_in
        // Steps in the job's order: backwards in time when `rev`, so through a buffer.
        let mut back = [[0.0f32; #h]; B];
        let rows = if rev { &mut back[..m] } else { &mut ys[..m] };
        #job
        *h = rows[m - 1];
        #cell_out
        if rev {
            for (y, r) in ys[..m].iter_mut().rev().zip(&back[..m]) {
                *y = *r;
            }
        }
    }
}
