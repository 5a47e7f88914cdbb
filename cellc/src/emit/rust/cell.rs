//! What every generated cell shares, whatever its kind: its type and constants, where its
//! weights live (embedded tables or fields filled at run time), the batched step, and the
//! weight setter that packs runtime weights with the same code the compiler uses.
use super::ctx::{Ctx, elem_type, entry};
use super::names::ident;
use crate::emit::plan::{Pack, Slot, Store, Tensor};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

impl Ctx<'_> {
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
            /// `cellc_runtime::__private::dispatch!` binds, or `cellc_runtime::__private::simd::compiled()`.
            #[inline(always)]
            pub fn project<I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, x: &[f32; #i], p: &mut [[f32; #width]; #tiles]) {
                #input_binds
                for t in 0..#tiles {
                    let mut a = #bx[t];
                    #wx
                    p[t] = a;
                }
            }
            /// [`Self::project`] for `S` rows, reading each weight panel once for all of them.
            #[inline(always)]
            pub fn project_rows<const S: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, x: &[[f32; #i]; S], p: &mut [[[f32; #width]; #tiles]; S]) {
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
                Store::F16 | Store::Bf16 | Store::I8 => quote! { 0 },
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
        let long = self.long_block(None);
        let feed_entry = entry(self.simd, |l| {
            let block = super::ctx::feed_block(long, &l);
            if lstm {
                quote! { self.feed_at::<#block, _>(isa, h, c, xs, ys) }
            } else {
                quote! { self.feed_at::<#block, _>(isa, h, xs, ys) }
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
        // With the tiles' order alternating (`Plan::snake`), a block's steps take it from
        // their parity, through `step_projected_rows_in`.
        let (snake_lstm, snake_plain) = if self.snake() {
            (
                quote! { self.step_projected_rows_in::<1, 8, I>(isa, ::core::array::from_ref(&p[s]), ::core::array::from_ref(h), ::core::array::from_ref(c), ::core::array::from_mut(&mut next), ::core::array::from_mut(&mut next_c), i % 2 == 1); },
                quote! { self.step_projected_rows_in::<1, 8, I>(isa, ::core::array::from_ref(&p[s]), ::core::array::from_ref(h), ::core::array::from_mut(&mut next), i % 2 == 1); },
            )
        } else {
            (
                quote! { self.step_projected(isa, &p[s], h, c, &mut next, &mut next_c); },
                quote! { self.step_projected(isa, &p[s], h, &mut next); },
            )
        };
        let (lstm_rows_in, plain_rows_in) = if self.snake() {
            let doc = quote! {
                /// [`Self::step_projected_rows`] reading the recurrent tiles from the last when
                /// `back` (the same sums, to the bit): a block of steps alternates the order,
                /// so that each step starts on the weights the step before read last.
                #[inline(always)]
            };
            (
                (
                    quote! { self.step_projected_rows_in::<S, V, I>(isa, p, h, c, out, out_c, false); },
                    quote! {
                        #doc
                        #[allow(clippy::too_many_arguments)]
                        fn step_projected_rows_in<const S: usize, const V: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, p: &[[[f32; #width]; #tiles]; S], h: &[[f32; #h]; S], c: &[[f32; #h]; S], out: &mut [[f32; #h]; S], out_c: &mut [[f32; #h]; S], back: bool) {
                            #step_body
                        }
                    },
                ),
                (
                    quote! { self.step_projected_rows_in::<S, V, I>(isa, p, h, out, false); },
                    quote! {
                        #doc
                        fn step_projected_rows_in<const S: usize, const V: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, p: &[[[f32; #width]; #tiles]; S], h: &[[f32; #h]; S], out: &mut [[f32; #h]; S], back: bool) {
                            #step_body
                        }
                    },
                ),
            )
        } else {
            ((step_body.clone(), quote! {}), (step_body.clone(), quote! {}))
        };
        let ((lstm_rows_body, lstm_rows_in), (plain_rows_body, plain_rows_in)) = (lstm_rows_in, plain_rows_in);
        // Values in `n` rows of the state.
        // A shorter block (a sequence's last, a `feed` of fewer steps): in one pass over the
        // weights in a long block, else in blocks of 4 and 2 rows, so that it reads them once
        // or twice rather than once a row.
        let short = if long.is_some() {
            self.project_first(self.whole())
        } else {
            quote! {
                let mut s = 0;
                while let (Some(x), Some(q)) = (xs[s..m].first_chunk::<4>(), p[s..].first_chunk_mut::<4>()) {
                    self.project_rows(isa, x, q);
                    s += 4;
                }
                if let (Some(x), Some(q)) = (xs[s..m].first_chunk::<2>(), p[s..].first_chunk_mut::<2>()) {
                    self.project_rows(isa, x, q);
                    s += 2;
                }
                for s in s..m {
                    self.project(isa, &xs[s], &mut p[s]);
                }
            }
        };
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
                        #snake_lstm
                        ys[s] = next;
                        (*h, *c) = (next, next_c);
                    },
                )
            } else {
                (
                    quote! { self.step_projected(isa, &p, h, out); },
                    quote! {
                        let mut next = [0.0f32; #h];
                        #snake_plain
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
                        _ => { #short }
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
                        ::cellc_runtime::__private::check_len("h", x.len(), h.len())?;
                        ::cellc_runtime::__private::check_len("c", x.len(), c.len())?;
                        ::cellc_runtime::__private::check_len("out", x.len(), out.len())?;
                        ::cellc_runtime::__private::check_len("out_c", x.len(), out_c.len())?;
                        #batch_entry;
                        Ok(())
                    }
                    #[inline(always)]
                    fn step_batch_at<const S: usize, const V: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, x: &[[f32; #i]], h: &[[f32; #h]], c: &[[f32; #h]], out: &mut [[f32; #h]], out_c: &mut [[f32; #h]]) {
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
                    fn step_at<I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, x: &[f32; #i], h: &[f32; #h], c: &[f32; #h], out: &mut [f32; #h], out_c: &mut [f32; #h]) {
                        #stepped
                    }
                    /// [`Self::step`] from the input's projection `p` (see [`Self::project`]).
                    #[inline(always)]
                    pub fn step_projected<I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, p: &[[f32; #width]; #tiles], h: &[f32; #h], c: &[f32; #h], out: &mut [f32; #h], out_c: &mut [f32; #h]) {
                        #projected
                    }
                    #parts
                    #fed_doc
                    // Both states and the block's inputs, buffer and outputs: more than clippy's
                    // default, which would flag it in the user's crate.
                    #[allow(clippy::too_many_arguments)]
                    fn feed_block<const B: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, xs: &[[f32; #i]], p: &mut [[[f32; #width]; #tiles]; B], rev: bool, h: &mut [f32; #h], c: &mut [f32; #h], ys: &mut [[f32; #h]]) {
                        #fed
                    }
                    /// [`Self::step_rows`] from the inputs' projections `p` (see [`Self::project_rows`]).
                    #[inline(always)]
                    pub fn step_projected_rows<const S: usize, const V: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, p: &[[[f32; #width]; #tiles]; S], h: &[[f32; #h]; S], c: &[[f32; #h]; S], out: &mut [[f32; #h]; S], out_c: &mut [[f32; #h]; S]) {
                        #lstm_rows_body
                    }
                    #lstm_rows_in
                    /// [`Self::step`] for `S` rows at once, in register blocks of `S` rows × `V` lanes,
                    /// so that each weight is loaded once for all the rows.
                    #[inline(always)]
                    pub fn step_rows<const S: usize, const V: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, x: &[[f32; #i]; S], h: &[[f32; #h]; S], c: &[[f32; #h]; S], out: &mut [[f32; #h]; S], out_c: &mut [[f32; #h]; S]) {
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
                    fn feed_at<const B: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, h: &mut [f32; #h], c: &mut [f32; #h], xs: &[[f32; #i]], ys: &mut [[f32; #h]]) {
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
                        ::cellc_runtime::__private::check_len("h", x.len(), h.len())?;
                        ::cellc_runtime::__private::check_len("out", x.len(), out.len())?;
                        #batch_entry;
                        Ok(())
                    }
                    #[inline(always)]
                    fn step_batch_at<const S: usize, const V: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, x: &[[f32; #i]], h: &[[f32; #h]], out: &mut [[f32; #h]]) {
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
                    fn step_at<I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, x: &[f32; #i], h: &[f32; #h], out: &mut [f32; #h]) {
                        #stepped
                    }
                    /// [`Self::step`] from the input's projection `p` (see [`Self::project`]).
                    #[inline(always)]
                    pub fn step_projected<I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, p: &[[f32; #width]; #tiles], h: &[f32; #h], out: &mut [f32; #h]) {
                        #projected
                    }
                    #parts
                    #fed_doc
                    fn feed_block<const B: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, xs: &[[f32; #i]], p: &mut [[[f32; #width]; #tiles]; B], rev: bool, h: &mut [f32; #h], ys: &mut [[f32; #h]]) {
                        #fed
                    }
                    /// [`Self::step_rows`] from the inputs' projections `p` (see [`Self::project_rows`]).
                    #[inline(always)]
                    pub fn step_projected_rows<const S: usize, const V: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, p: &[[[f32; #width]; #tiles]; S], h: &[[f32; #h]; S], out: &mut [[f32; #h]; S]) {
                        #plain_rows_body
                    }
                    #plain_rows_in
                    /// [`Self::step`] for `S` rows at once, in register blocks of `S` rows × `V` lanes,
                    /// so that each weight is loaded once for all the rows.
                    #[inline(always)]
                    pub fn step_rows<const S: usize, const V: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, x: &[[f32; #i]; S], h: &[[f32; #h]; S], out: &mut [[f32; #h]; S]) {
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
                    fn feed_at<const B: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, h: &mut [f32; #h], xs: &[[f32; #i]], ys: &mut [[f32; #h]]) {
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
                ::cellc_runtime::__private::impl_zeroed!(#ty {});
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
                (_, Store::I8) => Some(quote! { I8 }),
            };
            let range = half.map(|k| quote! { ::cellc_runtime::__private::check_range(#name, ::cellc_runtime::__private::Half::#k, #a)?; });
            quote! {
                ::cellc_runtime::__private::check_len(#name, #n, #a.len())?;
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
            ::cellc_runtime::__private::impl_zeroed!(#ty { #(#names),* });
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
                    Store::I8 => quote! { int8::panels_i8 },
                };
                quote! { ::cellc_runtime::__private::pack::#pack(&mut self.#f.0, #a, #h, #cols, &[#(#sel),*], #tile); }
            }
            Pack::Bias { segs } => {
                let segs = segs.iter().map(|s| match s {
                    Some(k) => {
                        let (lo, hi) = (k * h, (k + 1) * h);
                        quote! { Some(&#a[#lo..#hi]) }
                    }
                    None => quote! { None },
                });
                quote! { ::cellc_runtime::__private::pack::bias_panels(&mut self.#f.0, &[#(#segs),*], #h, #tile); }
            }
        }
    }
}
