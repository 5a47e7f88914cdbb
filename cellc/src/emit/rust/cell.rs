//! What every generated cell shares, whatever its kind: its type and constants, where its
//! weights live (embedded tables or fields filled at run time), the batched step, and the
//! weight setter that packs runtime weights with the same code the compiler uses.
use super::lit::table;
use super::names::ident;
use crate::emit::plan::{Pack, Plan, Slot, Store, Tensor};
use crate::options::{Simd, Strategy};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// A cell being emitted: its [`Plan`] (reachable through `Deref`) and its Rust names.
pub(super) struct Ctx<'a> {
    pub(super) plan: Plan<'a>,
    pub(super) ty: Ident,
    pub(super) prefix: String,
    pub(super) simd: Simd,
    /// Whether activations come from `cellc_runtime::act::fast`.
    pub(super) fast: bool,
    /// The parts of a step split across threads (see `split`); empty for one thread.
    pub(super) spans: Vec<Span>,
}

/// The tiles a kernel body covers: all of the state's, or one part's of a step split across
/// threads (see `split`), whose arrays of tiles and of output rows start at its first tile.
#[derive(Clone, Copy, Debug)]
pub(super) struct Span {
    pub(super) lo: usize,
    pub(super) hi: usize,
    /// Lanes of a tile.
    pub(super) tile: usize,
}

impl Span {
    /// Tiles covered.
    pub(super) fn len(&self) -> usize {
        self.hi - self.lo
    }

    /// The loop over the span's tiles.
    pub(super) fn range(&self) -> TokenStream {
        let (lo, hi) = (self.lo, self.hi);
        quote! { #lo..#hi }
    }

    /// Tile `t` as an index into the span's arrays of tiles.
    pub(super) fn at(&self) -> TokenStream {
        match self.lo {
            0 => quote! { t },
            lo => quote! { t - #lo },
        }
    }

    /// State row `j` (an expression) as an index into the span's output rows.
    pub(super) fn out(&self, j: TokenStream) -> TokenStream {
        match self.lo * self.tile {
            0 => j,
            off => quote! { #j - #off },
        }
    }
}

/// The element type of an array stored as `store`.
fn elem_type(store: Store) -> TokenStream {
    match store {
        Store::F32 => quote! { f32 },
        Store::F16 => quote! { u16 },
        Store::Bf16 => quote! { u32 },
    }
}

/// `let (a, b, …) = (&a[s], &b[s], …);` for names of per-row arrays, the mutable ones
/// (`out…`) borrowed mutably: the rows of a batched kernel seen one at a time.
pub(super) fn row_binds(names: &[&str]) -> TokenStream {
    let (lhs, rhs): (Vec<Ident>, Vec<TokenStream>) = names
        .iter()
        .map(|n| {
            let i = ident(n);
            let r = if n.starts_with("out") {
                quote! { &mut #i[s] }
            } else {
                quote! { &#i[s] }
            };
            (i, r)
        })
        .unzip();
    quote! { let (#(#lhs),*) = (#(#rhs),*); }
}

/// The body of a public entry point, which runs the expression `call(level)` compiled for
/// the best vector level (see `cellc_runtime::simd`), with the level's token bound to
/// `isa`; `level` is the constant expression of that level, for sizes that depend on it.
/// With [`Simd::Build`], one copy for the build's target.
pub(super) fn entry(simd: Simd, call: impl Fn(TokenStream) -> TokenStream) -> TokenStream {
    match simd {
        Simd::Dispatch => {
            let call = call(quote! { L });
            quote! { ::cellc_runtime::dispatch!(|L, isa| #call) }
        }
        Simd::Build => {
            let call = call(quote! { ::cellc_runtime::simd::Level::COMPILED });
            quote! {
                let isa = ::cellc_runtime::simd::compiled();
                #call
            }
        }
    }
}

impl<'a> std::ops::Deref for Ctx<'a> {
    type Target = Plan<'a>;
    fn deref(&self) -> &Plan<'a> {
        &self.plan
    }
}

impl Ctx<'_> {
    /// The span of every tile.
    pub(super) fn whole(&self) -> Span {
        Span { lo: 0, hi: self.tiles(), tile: self.tile }
    }

    /// `act(clip(v))` from the activations this cell was compiled with.
    pub(super) fn act(&self, a: &crate::ir::Activation, clip: Option<f32>, v: TokenStream) -> TokenStream {
        super::exprs::act(a, clip, self.fast, v)
    }

    /// The statement folding a runtime bias `b` in the declared layout into `kb`, in the
    /// kernel's convention, which the bias slots then pack from.
    fn fold_bias(&self) -> TokenStream {
        let s = &self.cell.spec;
        let (h, n) = (s.hidden, self.raw_len(Tensor::B));
        let terms = self.bias_terms().into_iter().map(|sum| {
            let sum = sum.into_iter().map(|(g, coef)| {
                let coef = proc_macro2::Literal::f32_unsuffixed(coef);
                quote! { (#g, #coef) }
            });
            quote! { &[#(#sum),*] }
        });
        quote! {
            let mut kb = [0.0f32; #n];
            ::cellc_runtime::pack::fold_blocks(&mut kb, b, #h, &[#(#terms),*]);
        }
    }

    fn static_name(&self, slot: &Slot) -> Ident {
        format_ident!("{}_{}", self.prefix, slot.field.to_ascii_uppercase())
    }

    /// Binds each slot to a local of its name, viewed as tiles: `[tiles][cols][width]` for
    /// panels, `[tiles][width]` for biases, wherever the array lives.
    pub(super) fn binds(&self, slots: &[Slot]) -> TokenStream {
        slots
            .iter()
            .map(|slot| {
                let f = ident(slot.field);
                let array = if self.is_runtime(slot.tensor) {
                    quote! { self.#f.0 }
                } else {
                    let s = self.static_name(slot);
                    quote! { #s.0 }
                };
                match &slot.pack {
                    Pack::Panels { cols, .. } => {
                        let row = self.row_len(slot);
                        quote! { let #f = #array.as_chunks::<#row>().0.as_chunks::<#cols>().0; }
                    }
                    Pack::Bias { segs } => {
                        let width = segs.len() * self.tile;
                        quote! { let #f = #array.as_chunks::<#width>().0; }
                    }
                }
            })
            .collect()
    }

    /// Statements adding the product of tile `t` of panel `slot` (with `cols` columns) and
    /// the vector `v` to the accumulator `acc`. Tiled: one call looping over the columns.
    /// Unrolled: one statement per column, each adding a scaled column.
    pub(super) fn matvec(&self, acc: &Ident, slot: &str, cols: usize, v_ref: TokenStream, v: &Ident) -> TokenStream {
        let slot = ident(slot);
        match self.strategy {
            Strategy::Tiled | Strategy::Auto => {
                quote! { ::cellc_runtime::kernel::panel_acc(&mut #acc, &#slot[t], #v_ref, isa); }
            }
            Strategy::Unrolled => (0..cols)
                .map(|k| quote! { ::cellc_runtime::kernel::axpy(&mut #acc, #v[#k], &#slot[t][#k], isa); })
                .collect(),
        }
    }

    /// Statements declaring `acc`, `[tiles of span][S][width]` accumulators, tile `t` starting
    /// at `init` (an expression of `t`, `[[f32; width]; S]`; zero when `None`), and adding to
    /// `acc[t][s]` the product of tile `t` of panel `slot` (with `cols` columns) and the
    /// vector `v[s]`. Tiled: one call over the span's tiles (in register blocks of `S` rows ×
    /// `V` lanes, or tiles interleaved for one row; for a part, with the kernel the whole
    /// product takes). Unrolled (never split): one statement per column.
    pub(super) fn products(
        &self,
        span: Span,
        (acc, width, init): (&Ident, usize, Option<TokenStream>),
        slot: &str,
        cols: usize,
        v: TokenStream,
    ) -> TokenStream {
        let (slot, tiles) = (ident(slot), span.len());
        let init = match (init, span.lo) {
            (Some(init), 0) => Some(init),
            (Some(init), lo) => Some(quote! { { let t = t + #lo; #init } }),
            (None, _) => None,
        };
        let decl = match init {
            Some(init) => quote! { let mut #acc: [[[f32; #width]; S]; #tiles] = ::core::array::from_fn(|t| #init); },
            None => quote! { let mut #acc = [[[0.0f32; #width]; S]; #tiles]; },
        };
        let panels = if span.len() == self.tiles() {
            quote! { #slot }
        } else {
            let range = span.range();
            quote! { &#slot[#range] }
        };
        let all = self.tiles();
        let product = match self.strategy {
            Strategy::Tiled | Strategy::Auto if span.len() == all => quote! {
                ::cellc_runtime::kernel::tiles_acc_rows(&mut #acc, #panels, #v, ::cellc_runtime::kernel::Block::<S, V>, isa);
            },
            Strategy::Tiled | Strategy::Auto => quote! {
                ::cellc_runtime::kernel::tiles_acc_part(&mut #acc, #panels, #v, ::cellc_runtime::kernel::Block::<S, V>, ::cellc_runtime::kernel::Whole::<#all>, isa);
            },
            // The whole state is one tile, summed in a local (which stays in registers).
            Strategy::Unrolled => {
                let columns = (0..cols)
                    .map(|k| quote! { ::cellc_runtime::kernel::axpy_rows(&mut a0, #k, #v, &#slot[0][#k], isa); });
                quote! {
                    let mut a0 = #acc[0];
                    #(#columns)*
                    #acc[0] = a0;
                }
            }
        };
        quote! {
            #decl
            #product
        }
    }

    /// `t * tile + l`, the state row of lane `l` of tile `t` (just `t + l` for tiles of one,
    /// which clippy would otherwise flag in the user's crate).
    pub(super) fn row_index(&self) -> TokenStream {
        let t = self.tile;
        if t == 1 {
            quote! { t + l }
        } else {
            quote! { t * #t + l }
        }
    }

    /// The kernel of the cells whose gates all read `h` directly (RNN, LSTM), over `S` rows:
    /// one accumulator `a` per tile and row, the projection `p[s]` (the span's tiles, from
    /// its first) plus `R·h[s]` over the panel `r` (every gate), then `prepass` (statements
    /// on all of `a`), then, in each row `s` (whose `rows` are bound to their row `s`),
    /// `lane(j, o)` for each lane `l`, given the expression of its state row `j` and of its
    /// index `o` into the output rows. Over the tiles of `span`.
    pub(super) fn single_accumulator(
        &self,
        span: Span,
        rows: &[&str],
        prepass: TokenStream,
        lane: impl FnOnce(TokenStream, TokenStream) -> TokenStream,
    ) -> TokenStream {
        let h = self.cell.spec.hidden;
        let binds = self.binds(&self.recurrent);
        let (range, at, lanes) = (span.range(), span.at(), self.lanes());
        // `p` holds the span's tiles, from its first.
        let init = quote! { ::core::array::from_fn(|s| p[s][#at]) };
        let rh = self.products(span, (&format_ident!("a"), self.width, Some(init)), "r", h, quote!(h));
        let j = self.row_index();
        let lane = lane(j.clone(), span.out(j));
        let rows = row_binds(&["a"].into_iter().chain(rows.iter().copied()).collect::<Vec<_>>());
        quote! {
            #binds
            #rh
            #prepass
            for t in #range {
                let a = &a[#at];
                for s in 0..S {
                    #rows
                    for l in 0..#lanes {
                        #lane
                    }
                }
            }
        }
    }

    /// Lanes of tile `t` that hold real rows: a loop bound for the element-wise part.
    pub(super) fn lanes(&self) -> TokenStream {
        let (h, t) = (self.cell.spec.hidden, self.tile);
        if self.full_tiles() {
            quote! { #t }
        } else {
            quote! { #t.min(#h - t * #t) }
        }
    }

    /// Tables for the embedded slots.
    pub(super) fn tables(&self) -> Vec<super::lit::Table> {
        self.slots()
            .filter(|s| !self.is_runtime(s.tensor))
            .map(|s| {
                let form = match self.slot_store(s) {
                    Store::F32 => "",
                    Store::F16 => " (IEEE f16 bits)",
                    Store::Bf16 => " (bfloat16 pairs: lane j low, lane j + ceil(width / 2) high)",
                };
                let doc = format!(
                    "`{}` of cell `{}`, packed for the {} kernel{form}.",
                    s.describe(),
                    self.ty,
                    self.strategy.name()
                );
                table(&self.static_name(s).to_string(), &doc, self.pack_now(s))
            })
            .collect()
    }

    /// The body of a projection of `S` rows `x` into `p`, for the tiles of `span` only,
    /// `p[s]` holding them from the span's first.
    pub(super) fn project_span(&self, span: Span) -> TokenStream {
        let input_binds = self.binds(&self.input);
        let (bx, w) = (ident(self.input[1].field), ident(self.input[0].field));
        let (range, at) = (span.range(), span.at());
        quote! {
            #input_binds
            for t in #range {
                let mut a = [#bx[t]; S];
                ::cellc_runtime::kernel::panel_acc_rows(&mut a, &#w[t], x, isa);
                for (ps, a) in p.iter_mut().zip(&a) {
                    ps[#at] = *a;
                }
            }
        }
    }

    /// The struct, its constants and constructors, `step_batch`, and `set_weights` when
    /// some weights come at run time. `step` is the kernel body from the cell-kind emitter.
    pub(super) fn items(&self, step_body: &TokenStream, doc: &str) -> TokenStream {
        let slots: Vec<&Slot> = self.slots().collect();
        let ty = &self.ty;
        let (i, h) = (self.cell.spec.input, self.cell.spec.hidden);
        let (width, tiles) = (self.width, self.tiles());
        let input_binds = self.binds(&self.input);
        let bx = ident(self.input[1].field);
        let a = format_ident!("a");
        let wx = self.matvec(&a, self.input[0].field, i, quote!(x), &format_ident!("x"));
        let project_rows = self.project_span(self.whole());
        // The body of `feed_at` around `inner`, which runs steps `t0..t0 + m`, B at a time
        // (`Level::feed_block`), each block's projections computed together in `p`.
        let feed = |inner: TokenStream| {
            quote! {
                let n = xs.len().min(ys.len());
                let mut p = [[[0.0f32; #width]; #tiles]; B];
                let mut t0 = 0;
                while t0 < n {
                    let m = (n - t0).min(B);
                    #inner
                    t0 += m;
                }
            }
        };
        let lstm_feed = feed(quote! {
            self.feed_block::<B, I>(isa, &xs[t0..t0 + m], &mut p, false, h, c, &mut ys[t0..t0 + m]);
        });
        let plain_feed = feed(quote! {
            self.feed_block::<B, I>(isa, &xs[t0..t0 + m], &mut p, false, h, &mut ys[t0..t0 + m]);
        });
        let projection = quote! {
            /// The input projection of one row: `x·Wᵀ` plus the input-side biases, one panel
            /// of gates per tile. It does not depend on the state, so a sequence computes it
            /// for several steps at once ([`Self::project_rows`]). Like every kernel function,
            /// it takes the token of the vector level it runs at (`isa`): the one
            /// `cellc_runtime::dispatch!` binds, or `cellc_runtime::simd::compiled()`.
            #[inline(always)]
            pub fn project<I: ::cellc_runtime::simd::Isa>(&self, isa: I, x: &[f32; #i], p: &mut [[f32; #width]; #tiles]) {
                #input_binds
                for t in 0..#tiles {
                    let mut a = #bx[t];
                    #wx
                    p[t] = a;
                }
            }
            /// [`Self::project`] for `S` rows, reading each weight panel once for all of them.
            #[inline(always)]
            pub fn project_rows<const S: usize, I: ::cellc_runtime::simd::Isa>(&self, isa: I, x: &[[f32; #i]; S], p: &mut [[[f32; #width]; #tiles]; S]) {
                #project_rows
            }
        };
        let rt: Vec<&Slot> = slots.iter().copied().filter(|s| self.is_runtime(s.tensor)).collect();
        let names: Vec<Ident> = rt.iter().map(|s| ident(s.field)).collect();
        let fields = rt.iter().map(|s| {
            let f = ident(s.field);
            let n = self.slot_len(s);
            let ty = elem_type(self.slot_store(s));
            quote! { #f: ::cellc_runtime::Aligned<[#ty; #n]> }
        });
        let zero_fields = rt.iter().map(|s| {
            let f = ident(s.field);
            let n = self.slot_len(s);
            let zero = match self.slot_store(s) {
                Store::F32 => quote! { 0.0 },
                Store::F16 | Store::Bf16 => quote! { 0 },
            };
            quote! { #f: ::cellc_runtime::Aligned([#zero; #n]) }
        });
        let lstm = self.cell.spec.kind.has_cell_state();
        let step_entry = entry(self.simd, |_| {
            if lstm {
                quote! { self.step_at(isa, x, h, c, out, out_c) }
            } else {
                quote! { self.step_at(isa, x, h, out) }
            }
        });
        let feed_entry = entry(self.simd, |l| {
            if lstm {
                quote! { self.feed_at::<{ #l.feed_block() }, _>(isa, h, c, xs, ys) }
            } else {
                quote! { self.feed_at::<{ #l.feed_block() }, _>(isa, h, xs, ys) }
            }
        });
        let batch_entry = entry(self.simd, |l| {
            let call = if lstm {
                quote! { (isa, x, h, c, out, out_c) }
            } else {
                quote! { (isa, x, h, out) }
            };
            quote! { self.step_batch_at::<{ #l.batch_rows() }, { #l.batch_lanes() }, _>#call }
        });
        // Values in `n` rows of the state.
        let single = {
            let body = if lstm {
                quote! { self.step_projected_rows::<1, 8, I>(isa, from_ref(p), from_ref(h), from_ref(c), from_mut(out), from_mut(out_c)); }
            } else {
                quote! { self.step_projected_rows::<1, 8, I>(isa, from_ref(p), from_ref(h), from_mut(out)); }
            };
            let (step, one) = if lstm {
                (
                    quote! { self.step_projected(isa, &p, h, c, out, out_c); },
                    quote! {
                        let (mut next, mut next_c) = ([0.0f32; #h], [0.0f32; #h]);
                        self.step_projected(isa, &p[s], h, c, &mut next, &mut next_c);
                        ys[s] = next;
                        (*h, *c) = (next, next_c);
                    },
                )
            } else {
                (
                    quote! { self.step_projected(isa, &p, h, out); },
                    quote! {
                        let mut next = [0.0f32; #h];
                        self.step_projected(isa, &p[s], h, &mut next);
                        ys[s] = next;
                        *h = next;
                    },
                )
            };
            super::split::Split {
                projected: quote! { use ::core::array::{from_mut, from_ref}; #body },
                step: quote! {
                    let mut p = [[0.0f32; #width]; #tiles];
                    self.project(isa, x, &mut p);
                    #step
                },
                // The state goes through `*h` every step. Kept in a local across the block
                // instead (in registers for small cells), it measured no faster (AMD Zen 4,
                // both forms in one program: GRU H=16 75.7 against 75.2 ns a step, H=128 2.16
                // against 2.18 µs).
                feed: quote! {
                    let m = xs.len().min(ys.len()).min(B);
                    match xs.first_chunk::<B>() {
                        Some(rows) if m == B => self.project_rows(isa, rows, p),
                        _ => {
                            for s in 0..m {
                                self.project(isa, &xs[s], &mut p[s]);
                            }
                        }
                    }
                    for i in 0..m {
                        let s = if rev { m - 1 - i } else { i };
                        #one
                    }
                },
                methods: quote! {},
            }
        };
        let split = if self.spans.is_empty() {
            single
        } else if super::split::splits_lone_step(self) {
            super::split::split(self, &self.spans)
        } else {
            // Only blocks of steps gain from the split: a lone step runs on the caller.
            super::split::Split {
                projected: single.projected,
                step: single.step,
                ..super::split::split(self, &self.spans)
            }
        };
        let super::split::Split { projected, step: stepped, feed: fed, methods: parts } = split;
        let fed_doc = quote! {
            /// The steps of `xs` (at most `B`), carrying the state, writing step `s`'s state
            /// to `ys[s]`, backwards (from the last) when `rev`; `p` holds the steps'
            /// projections meanwhile.
            #[inline(always)]
        };
        let (step_batch, step) = if lstm {
            (
                quote! {
                    /// [`Self::step`] over a batch of rows, as `feed` takes its steps: a row of
                    /// `x` for each batch row, and a row of `h`, `c`, `out` and `out_c` for each
                    /// row of `x` (another count is an error, before computing).
                    pub fn step_batch(&self, x: &[[f32; #i]], h: &[[f32; #h]], c: &[[f32; #h]], out: &mut [[f32; #h]], out_c: &mut [[f32; #h]]) -> ::core::result::Result<(), ::cellc_runtime::Error> {
                        ::cellc_runtime::check_len("h", x.len(), h.len())?;
                        ::cellc_runtime::check_len("c", x.len(), c.len())?;
                        ::cellc_runtime::check_len("out", x.len(), out.len())?;
                        ::cellc_runtime::check_len("out_c", x.len(), out_c.len())?;
                        #batch_entry;
                        Ok(())
                    }
                    #[inline(always)]
                    fn step_batch_at<const S: usize, const V: usize, I: ::cellc_runtime::simd::Isa>(&self, isa: I, x: &[[f32; #i]], h: &[[f32; #h]], c: &[[f32; #h]], out: &mut [[f32; #h]], out_c: &mut [[f32; #h]]) {
                        let (x, xr) = x.as_chunks::<S>();
                        let (h, hr) = h.as_chunks::<S>();
                        let (c, cr) = c.as_chunks::<S>();
                        let (out, or) = out.as_chunks_mut::<S>();
                        let (out_c, ocr) = out_c.as_chunks_mut::<S>();
                        for ((((x, h), c), out), out_c) in x.iter().zip(h).zip(c).zip(out).zip(out_c) {
                            self.step_rows::<S, V, I>(isa, x, h, c, out, out_c);
                        }
                        for ((((x, h), c), out), out_c) in xr.iter().zip(hr).zip(cr).zip(or).zip(ocr) {
                            self.step_at(isa, x, h, c, out, out_c);
                        }
                    }
                },
                quote! {
                    /// One step for one row: the next hidden state `out` and cell state `out_c`
                    /// from the input `x` and the previous states `h` and `c`.
                    pub fn step(&self, x: &[f32; #i], h: &[f32; #h], c: &[f32; #h], out: &mut [f32; #h], out_c: &mut [f32; #h]) {
                        #step_entry
                    }
                    #[inline(always)]
                    fn step_at<I: ::cellc_runtime::simd::Isa>(&self, isa: I, x: &[f32; #i], h: &[f32; #h], c: &[f32; #h], out: &mut [f32; #h], out_c: &mut [f32; #h]) {
                        #stepped
                    }
                    /// [`Self::step`] from the input's projection `p` (see [`Self::project`]).
                    #[inline(always)]
                    pub fn step_projected<I: ::cellc_runtime::simd::Isa>(&self, isa: I, p: &[[f32; #width]; #tiles], h: &[f32; #h], c: &[f32; #h], out: &mut [f32; #h], out_c: &mut [f32; #h]) {
                        #projected
                    }
                    #parts
                    #fed_doc
                    // Both states and the block's inputs, buffer and outputs: more than clippy's
                    // default, which would flag it in the user's crate.
                    #[allow(clippy::too_many_arguments)]
                    fn feed_block<const B: usize, I: ::cellc_runtime::simd::Isa>(&self, isa: I, xs: &[[f32; #i]], p: &mut [[[f32; #width]; #tiles]; B], rev: bool, h: &mut [f32; #h], c: &mut [f32; #h], ys: &mut [[f32; #h]]) {
                        #fed
                    }
                    /// [`Self::step_rows`] from the inputs' projections `p` (see [`Self::project_rows`]).
                    #[inline(always)]
                    pub fn step_projected_rows<const S: usize, const V: usize, I: ::cellc_runtime::simd::Isa>(&self, isa: I, p: &[[[f32; #width]; #tiles]; S], h: &[[f32; #h]; S], c: &[[f32; #h]; S], out: &mut [[f32; #h]; S], out_c: &mut [[f32; #h]; S]) {
                        #step_body
                    }
                    /// [`Self::step`] for `S` rows at once, in register blocks of `S` rows × `V` lanes,
                    /// so that each weight is loaded once for all the rows.
                    #[inline(always)]
                    pub fn step_rows<const S: usize, const V: usize, I: ::cellc_runtime::simd::Isa>(&self, isa: I, x: &[[f32; #i]; S], h: &[[f32; #h]; S], c: &[[f32; #h]; S], out: &mut [[f32; #h]; S], out_c: &mut [[f32; #h]; S]) {
                        let mut p = [[[0.0f32; #width]; #tiles]; S];
                        self.project_rows(isa, x, &mut p);
                        self.step_projected_rows::<S, V, I>(isa, &p, h, c, out, out_c);
                    }
                    /// Runs the cell over `xs` (any number of steps: an audio block, a sensor window),
                    /// carrying the states in `h` and `c` from call to call and writing each step's
                    /// hidden state to `ys`, one row per row of `xs` (another count is an error). Feeding a
                    /// sequence in pieces gives the same states as feeding it whole. The inputs'
                    /// projections are computed several steps at a time.
                    pub fn feed(&self, h: &mut [f32; #h], c: &mut [f32; #h], xs: &[[f32; #i]], ys: &mut [[f32; #h]]) -> ::core::result::Result<(), ::cellc_runtime::Error> {
                        if xs.len() != ys.len() {
                            return Err(::cellc_runtime::Error::Length { name: "ys", expected: xs.len(), got: ys.len() });
                        }
                        #feed_entry;
                        Ok(())
                    }
                    #[inline(always)]
                    fn feed_at<const B: usize, I: ::cellc_runtime::simd::Isa>(&self, isa: I, h: &mut [f32; #h], c: &mut [f32; #h], xs: &[[f32; #i]], ys: &mut [[f32; #h]]) {
                        #lstm_feed
                    }
                    #projection
                },
            )
        } else {
            (
                quote! {
                    /// [`Self::step`] over a batch of rows, as `feed` takes its steps: a row of
                    /// `x` for each batch row, and a row of `h` and `out` for each row of `x`
                    /// (another count is an error, before computing).
                    pub fn step_batch(&self, x: &[[f32; #i]], h: &[[f32; #h]], out: &mut [[f32; #h]]) -> ::core::result::Result<(), ::cellc_runtime::Error> {
                        ::cellc_runtime::check_len("h", x.len(), h.len())?;
                        ::cellc_runtime::check_len("out", x.len(), out.len())?;
                        #batch_entry;
                        Ok(())
                    }
                    #[inline(always)]
                    fn step_batch_at<const S: usize, const V: usize, I: ::cellc_runtime::simd::Isa>(&self, isa: I, x: &[[f32; #i]], h: &[[f32; #h]], out: &mut [[f32; #h]]) {
                        let (x, xr) = x.as_chunks::<S>();
                        let (h, hr) = h.as_chunks::<S>();
                        let (out, or) = out.as_chunks_mut::<S>();
                        for ((x, h), out) in x.iter().zip(h).zip(out) {
                            self.step_rows::<S, V, I>(isa, x, h, out);
                        }
                        for ((x, h), out) in xr.iter().zip(hr).zip(or) {
                            self.step_at(isa, x, h, out);
                        }
                    }
                },
                quote! {
                    /// One step for one row: the next hidden state from the input `x` and the
                    /// previous state `h`, written to `out`.
                    pub fn step(&self, x: &[f32; #i], h: &[f32; #h], out: &mut [f32; #h]) {
                        #step_entry
                    }
                    #[inline(always)]
                    fn step_at<I: ::cellc_runtime::simd::Isa>(&self, isa: I, x: &[f32; #i], h: &[f32; #h], out: &mut [f32; #h]) {
                        #stepped
                    }
                    /// [`Self::step`] from the input's projection `p` (see [`Self::project`]).
                    #[inline(always)]
                    pub fn step_projected<I: ::cellc_runtime::simd::Isa>(&self, isa: I, p: &[[f32; #width]; #tiles], h: &[f32; #h], out: &mut [f32; #h]) {
                        #projected
                    }
                    #parts
                    #fed_doc
                    fn feed_block<const B: usize, I: ::cellc_runtime::simd::Isa>(&self, isa: I, xs: &[[f32; #i]], p: &mut [[[f32; #width]; #tiles]; B], rev: bool, h: &mut [f32; #h], ys: &mut [[f32; #h]]) {
                        #fed
                    }
                    /// [`Self::step_rows`] from the inputs' projections `p` (see [`Self::project_rows`]).
                    #[inline(always)]
                    pub fn step_projected_rows<const S: usize, const V: usize, I: ::cellc_runtime::simd::Isa>(&self, isa: I, p: &[[[f32; #width]; #tiles]; S], h: &[[f32; #h]; S], out: &mut [[f32; #h]; S]) {
                        #step_body
                    }
                    /// [`Self::step`] for `S` rows at once, in register blocks of `S` rows × `V` lanes,
                    /// so that each weight is loaded once for all the rows.
                    #[inline(always)]
                    pub fn step_rows<const S: usize, const V: usize, I: ::cellc_runtime::simd::Isa>(&self, isa: I, x: &[[f32; #i]; S], h: &[[f32; #h]; S], out: &mut [[f32; #h]; S]) {
                        let mut p = [[[0.0f32; #width]; #tiles]; S];
                        self.project_rows(isa, x, &mut p);
                        self.step_projected_rows::<S, V, I>(isa, &p, h, out);
                    }
                    /// Runs the cell over `xs` (any number of steps: an audio block, a sensor window),
                    /// carrying the state in `h` from call to call and writing each step's hidden
                    /// state to `ys`, one row per row of `xs` (another count is an error). Feeding a sequence in
                    /// pieces gives the same states as feeding it whole. The inputs' projections
                    /// are computed several steps at a time.
                    pub fn feed(&self, h: &mut [f32; #h], xs: &[[f32; #i]], ys: &mut [[f32; #h]]) -> ::core::result::Result<(), ::cellc_runtime::Error> {
                        if xs.len() != ys.len() {
                            return Err(::cellc_runtime::Error::Length { name: "ys", expected: xs.len(), got: ys.len() });
                        }
                        #feed_entry;
                        Ok(())
                    }
                    #[inline(always)]
                    fn feed_at<const B: usize, I: ::cellc_runtime::simd::Isa>(&self, isa: I, h: &mut [f32; #h], xs: &[[f32; #i]], ys: &mut [[f32; #h]]) {
                        #plain_feed
                    }
                    #projection
                },
            )
        };
        let consts = quote! {
            /// Input size `I`.
            pub const INPUT_SIZE: usize = #i;
            /// Hidden size `H`.
            pub const HIDDEN_SIZE: usize = #h;
            /// Tiles of the state the kernel works in.
            pub const TILES: usize = #tiles;
            /// Lanes of one tile's input projection (gates × tile width).
            pub const PROJECTION_WIDTH: usize = #width;
        };
        if rt.is_empty() {
            return quote! {
                #[doc = #doc]
                #[derive(Clone, Copy, Debug, Default)]
                pub struct #ty;
                ::cellc_runtime::impl_zeroed!(#ty {});
                impl #ty {
                    #consts
                    /// The cell; its weights are embedded.
                    pub const fn new() -> Self { #ty }
                    #step
                    #step_batch
                }
            };
        }
        let tensors = self.runtime_tensors();
        let args: Vec<Ident> = tensors.iter().map(|t| ident(t.arg())).collect();
        let arg_docs =
            tensors.iter().map(|t| format!("`{}`: {} values", t.arg().to_ascii_uppercase(), self.declared_len(*t)));
        let arg_doc = arg_docs.collect::<Vec<_>>().join("; ");
        let checks = tensors.iter().map(|t| {
            let a = ident(t.arg());
            let name = t.arg().to_ascii_uppercase();
            let n = self.declared_len(*t);
            let half = match (t, self.store) {
                (Tensor::B, _) | (_, Store::F32) => None,
                (_, Store::F16) => Some(quote! { F16 }),
                (_, Store::Bf16) => Some(quote! { Bf16 }),
            };
            let range = half.map(|k| quote! { ::cellc_runtime::check_range(#name, ::cellc_runtime::Half::#k, #a)?; });
            quote! {
                ::cellc_runtime::check_len(#name, #n, #a.len())?;
                #range
            }
        });
        let fold = self.folds_bias().then(|| self.fold_bias());
        let packs = rt.iter().map(|s| self.pack_at_runtime(s));
        let layout = self.cell.layout;
        let set_doc = format!(
            " Replaces the weights given at run time ({arg_doc}, in the {layout} layout), packing them for the kernel."
        );
        let new_doc = format!(
            " The cell with weights given at run time ({arg_doc}, in the {layout} layout). Errs on a wrong length. It is built on the stack: a large cell is built in place on the heap by `cellc_runtime::boxed::<Self>()` and `set_weights`."
        );
        quote! {
            #[doc = #doc]
            #[derive(Clone, Debug)]
            pub struct #ty { #(#fields,)* }
            ::cellc_runtime::impl_zeroed!(#ty { #(#names),* });
            impl #ty {
                #consts
                #[doc = #new_doc]
                pub fn new(#(#args: &[f32]),*) -> ::core::result::Result<Self, ::cellc_runtime::Error> {
                    let mut cell = Self::zeroed();
                    cell.set_weights(#(#args),*)?;
                    Ok(cell)
                }
                /// The cell with all runtime weights zero, to be filled by `set_weights`.
                pub const fn zeroed() -> Self {
                    #ty { #(#zero_fields,)* }
                }
                #[doc = #set_doc]
                pub fn set_weights(&mut self, #(#args: &[f32]),*) -> ::core::result::Result<(), ::cellc_runtime::Error> {
                    #(#checks)*
                    #fold
                    #(#packs)*
                    Ok(())
                }
                #step
                #step_batch
            }
        }
    }

    fn pack_at_runtime(&self, s: &Slot) -> TokenStream {
        let f = ident(s.field);
        let a = if s.tensor == Tensor::B && self.folds_bias() { format_ident!("kb") } else { ident(s.tensor.arg()) };
        let (h, tile) = (self.cell.spec.hidden, self.tile);
        match &s.pack {
            Pack::Panels { sel, cols } => {
                // The kernel's gates are OpenVINO's; the declared layout may stack them otherwise.
                let sel = self.runtime_sel(sel);
                let pack = match self.store {
                    Store::F32 => quote! { panels },
                    Store::F16 => quote! { panels_f16 },
                    Store::Bf16 => quote! { panels_bf16 },
                };
                quote! { ::cellc_runtime::pack::#pack(&mut self.#f.0, #a, #h, #cols, &[#(#sel),*], #tile); }
            }
            Pack::Bias { segs } => {
                let segs = segs.iter().map(|s| match s {
                    Some(k) => {
                        let (lo, hi) = (k * h, (k + 1) * h);
                        quote! { Some(&#a[#lo..#hi]) }
                    }
                    None => quote! { None },
                });
                quote! { ::cellc_runtime::pack::bias_panels(&mut self.#f.0, &[#(#segs),*], #h, #tile); }
            }
        }
    }
}
