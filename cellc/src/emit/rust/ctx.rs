//! A cell being emitted ([`Ctx`]: its plan and its Rust names) and what the kernels of
//! every kind build their bodies from: bindings of the packed arrays, the products over
//! tiles, activations, the tiles a body covers ([`Span`]) and the weight tables.
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
pub(super) fn elem_type(store: Store) -> TokenStream {
    match store {
        Store::F32 => quote! { f32 },
        Store::F16 => quote! { u16 },
        Store::Bf16 => quote! { u32 },
        Store::I8 => quote! { i8 },
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
/// the best vector level (see `cellc_runtime::__private::simd`), with the level's token bound to
/// `isa`; `level` is the constant expression of that level, for sizes that depend on it.
/// With [`Simd::Build`], one copy for the build's target.
pub(super) fn entry(simd: Simd, call: impl Fn(TokenStream) -> TokenStream) -> TokenStream {
    match simd {
        Simd::Dispatch => {
            let call = call(quote! { L });
            quote! { ::cellc_runtime::__private::dispatch!(|L, isa| #call) }
        }
        Simd::Build => {
            let call = call(quote! { ::cellc_runtime::__private::simd::Level::COMPILED });
            quote! {
                let isa = ::cellc_runtime::__private::simd::compiled();
                #call
            }
        }
    }
}

/// The block of steps (`B`) of a `feed` or a sequence's `run` at the vector level `level`:
/// the plan's long block (see `Plan::long_block`), else `Level::feed_block`'s.
pub(super) fn feed_block(long: Option<usize>, level: &TokenStream) -> TokenStream {
    match long {
        Some(n) => {
            let n = proc_macro2::Literal::usize_unsuffixed(n);
            quote! { #n }
        }
        None => {
            let block = proc_macro2::Literal::usize_unsuffixed(crate::emit::plan::FEED_BLOCK);
            quote! { { #level.feed_block(#block) } }
        }
    }
}

/// Loops (`body`, which names no vector level) compiled at the level the code runs at:
/// dispatched at run time with [`Simd::Dispatch`], as they are for the build's target with
/// [`Simd::Build`].
pub(super) fn at_level(simd: Simd, body: TokenStream) -> TokenStream {
    match simd {
        Simd::Dispatch => quote! { ::cellc_runtime::__private::dispatch!(|_L, _isa| #body) },
        Simd::Build => body,
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
    pub(super) fn fold_bias(&self) -> TokenStream {
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
            ::cellc_runtime::__private::pack::fold_blocks(&mut kb, b, #h, &[#(#terms),*]);
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
                quote! { ::cellc_runtime::__private::kernel::panel_acc(&mut #acc, &#slot[t], #v_ref, isa); }
            }
            Strategy::Unrolled => (0..cols)
                .map(|k| quote! { ::cellc_runtime::__private::kernel::axpy(&mut #acc, #v[#k], &#slot[t][#k], isa); })
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
        let product = match self.strategy {
            // A part of a step takes the whole product's schedule, so it sums alike.
            Strategy::Tiled | Strategy::Auto => {
                let schedule = schedule(self.schedule(width, cols));
                if self.snake() {
                    // `back`: the order of this step's tiles (see `Plan::snake`).
                    quote! {
                        ::cellc_runtime::__private::kernel::tiles_acc_rows_in_order(&mut #acc, #panels, #v, ::cellc_runtime::__private::kernel::Block::<S, V>, #schedule, back, isa);
                    }
                } else {
                    quote! {
                        ::cellc_runtime::__private::kernel::tiles_acc_rows(&mut #acc, #panels, #v, ::cellc_runtime::__private::kernel::Block::<S, V>, #schedule, isa);
                    }
                }
            }
            // The whole state is one tile, summed in a local (which stays in registers).
            Strategy::Unrolled => {
                let columns = (0..cols).map(
                    |k| quote! { ::cellc_runtime::__private::kernel::axpy_rows(&mut a0, #k, #v, &#slot[0][#k], isa); },
                );
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
                    Store::I8 => " (int8: each row its column's f32 scale in 4 bytes, then its lanes)",
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

    /// Statements projecting the first `m` rows of `xs` into `p` (`[_; B]`) in one pass over
    /// the input matrix, for the tiles of `span` only, as [`Self::project_span`]: a block of
    /// steps of any length (see `Plan::long_block`).
    pub(super) fn project_first(&self, span: Span) -> TokenStream {
        self.project_tiles(span, quote!(B), quote!(a[..m]), quote!(&xs[..m]))
    }

    /// The body of a projection of `S` rows `x` into `p`, for the tiles of `span` only,
    /// `p[s]` holding them from the span's first.
    pub(super) fn project_span(&self, span: Span) -> TokenStream {
        self.project_tiles(span, quote!(S), quote!(a), quote!(x))
    }

    /// The loop over the tiles of `span` both projections share: `rows` sums a tile, of
    /// which `acc` (a place) takes the rows `x`.
    fn project_tiles(&self, span: Span, rows: TokenStream, acc: TokenStream, x: TokenStream) -> TokenStream {
        let input_binds = self.binds(&self.input);
        let (bx, w) = (ident(self.input[1].field), ident(self.input[0].field));
        let (range, at) = (span.range(), span.at());
        quote! {
            #input_binds
            for t in #range {
                let mut a = [#bx[t]; #rows];
                ::cellc_runtime::__private::kernel::panel_acc_rows(&mut #acc, &#w[t], #x, isa);
                for (ps, a) in p.iter_mut().zip(&#acc) {
                    ps[#at] = *a;
                }
            }
        }
    }
}

/// The runtime's value for `s` (`cellc_runtime::__private::kernel::Schedule<Q, G>`).
pub(super) fn schedule(s: crate::emit::plan::Schedule) -> TokenStream {
    let (q, g) = (s.split, s.interleave);
    quote! { ::cellc_runtime::__private::kernel::Schedule::<#q, #g> }
}
