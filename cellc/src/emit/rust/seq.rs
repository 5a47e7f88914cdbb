//! The Sequence forms (`GRUSequence`, `RNNSequence`, `LSTMSequence`): a kernel type per
//! direction, made by the cell emitters from that direction's block of weights, and a
//! wrapper whose `run` takes one batch row through every step. Past a row's length the
//! outputs are zero and the state stops changing; a reverse direction runs backwards
//! within the row's length; bidirectional stacks forward then reverse. A row of length 0
//! has zero final states, as OpenVINO computes them.
use super::exprs::{divided, times};
use super::names::ident;
pub(super) use crate::emit::plan::direction_cell;
use crate::ir::{Cell, Seq};
use crate::options::Simd;
use proc_macro2::{Ident, TokenStream};
use quote::{ToTokens as _, format_ident, quote};

/// The wrapper type `ty` over the direction kernels `dirs` (field, type), in slot order.
/// `long` is the directions' block of steps where their weights take a long one (see
/// `Plan::long_block`).
pub(super) fn wrapper(
    cell: &Cell,
    q: &Seq,
    (ty, dirs): (&Ident, &[(Ident, Ident)]),
    doc: &str,
    (simd, long): (Simd, Option<usize>),
) -> TokenStream {
    let s = &cell.spec;
    let (h, i, l, nd) = (s.hidden, s.input, q.steps, dirs.len());
    let lstm = s.kind.has_cell_state();
    let (fields, types): (Vec<&Ident>, Vec<&Ident>) = dirs.iter().map(|(f, t)| (f, t)).unzip();
    // Each direction projects its inputs B steps at a time (one pass over W for the block;
    // B from `Level::feed_block`, or the plan's long block), then runs the recurrence over the block in its own order.
    let runs = dirs.iter().enumerate().map(|(d, (f, kty))| {
        let (state, states) = if lstm {
            (quote! { let (mut h, mut c) = (h0[#d], c0[#d]); }, quote! { &mut h, &mut c })
        } else {
            (quote! { let mut h = h0[#d]; }, quote! { &mut h })
        };
        // Forward is the kernel's own `feed`; reverse walks blocks from the row's end.
        let walk = if q.direction.reversed(d) {
            quote! {
                let mut p = [[[0.0f32; #kty::PROJECTION_WIDTH]; #kty::TILES]; B];
                let mut t1 = len;
                while t1 > 0 {
                    let n = t1.min(B);
                    let t0 = t1 - n;
                    self.#f.feed_block::<B, I>(isa, &x[t0..t1], &mut p, true, #states, &mut y[#d][t0..t1]);
                    t1 = t0;
                }
            }
        } else if lstm {
            quote! { self.#f.feed_at::<B, I>(isa, &mut h, &mut c, &x[..len], &mut y[#d][..len]); }
        } else {
            quote! { self.#f.feed_at::<B, I>(isa, &mut h, &x[..len], &mut y[#d][..len]); }
        };
        let finals = if lstm {
            quote! {
                // A row of length 0 has zero final states, as OpenVINO computes them.
                ho[#d] = if len > 0 { h } else { [0.0f32; #h] };
                co[#d] = if len > 0 { c } else { [0.0f32; #h] };
            }
        } else {
            quote! { ho[#d] = if len > 0 { h } else { [0.0f32; #h] }; }
        };
        quote! {
            #state
            #walk
            #finals
        }
    });
    let (c_args, run_doc) = if lstm {
        (
            quote! { c0: &[[f32; #h]; #nd], },
            " One batch row: inputs `x` (steps × INPUT_SIZE) and initial states `h0`, `c0` (one per \
             direction); `len` valid steps (more than STEPS is an error, before computing). Writes every \
             step's hidden state to `y` (zero past `len`) and the final states to `ho`, `co`.",
        )
    } else {
        (
            quote! {},
            " One batch row: inputs `x` (steps × INPUT_SIZE) and initial state `h0` (one per \
             direction); `len` valid steps (more than STEPS is an error, before computing). Writes every \
             step's hidden state to `y` (zero past `len`) and the final state to `ho`.",
        )
    };
    let co_arg = if lstm {
        quote! { , co: &mut [[f32; #h]; #nd] }
    } else {
        quote! {}
    };
    // An LSTM's `run` takes the op's inputs and outputs one by one (X, H, C, length, Y, Ho,
    // Co): more than clippy's default, which would flag it in the user's crate.
    let allow = lstm.then(|| quote! { #[allow(clippy::too_many_arguments)] });
    let run_entry = super::ctx::entry(simd, |l| {
        let block = super::ctx::feed_block(long, &l);
        if lstm {
            quote! { self.run_at::<#block, _>(isa, x, h0, c0, len, y, ho, co) }
        } else {
            quote! { self.run_at::<#block, _>(isa, x, h0, len, y, ho) }
        }
    });
    let run = quote! {
        #[doc = #run_doc]
        #allow
        pub fn run(&self, x: &[[f32; #i]; #l], h0: &[[f32; #h]; #nd], #c_args len: usize, y: &mut [[[f32; #h]; #l]; #nd], ho: &mut [[f32; #h]; #nd] #co_arg) -> ::core::result::Result<(), ::cellc_runtime::Error> {
            if len > #l {
                return Err(::cellc_runtime::Error::SequenceLength { name: "len", row: 0, max: #l });
            }
            #run_entry;
            Ok(())
        }
        #[inline(always)]
        #allow
        fn run_at<const B: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, x: &[[f32; #i]; #l], h0: &[[f32; #h]; #nd], #c_args len: usize, y: &mut [[[f32; #h]; #l]; #nd], ho: &mut [[f32; #h]; #nd] #co_arg) {
            #({ #runs })*
            for yd in y.iter_mut() {
                for yt in &mut yd[len..] {
                    *yt = [0.0f32; #h];
                }
            }
        }
    };
    // The whole batch on flat slices, either major order, `S` rows at a time: each step of
    // the block is one batched step, its rows gathered from and scattered to the slices, so
    // a time-major input needs no reordering and nothing is allocated. A row past its
    // length is computed on zeros and its result dropped.
    let batch_dirs = dirs.iter().enumerate().map(|(d, (f, _))| {
        // Row r, direction d of the states, without `* 1` or `+ 0` for clippy's sake.
        let rd = match (nd, d) {
            (1, _) => quote! { r0 + s },
            (_, 0) => quote! { #nd * (r0 + s) },
            _ => quote! { #nd * (r0 + s) + #d },
        };
        let t_of = if q.direction.reversed(d) {
            quote! { lens[s] - 1 - k }
        } else {
            quote! { k }
        };
        let (state, step, keep, finals) = if lstm {
            (
                quote! {
                    let mut hs: [[f32; #h]; S] = ::core::array::from_fn(|s| hr[#rd]);
                    let mut cs: [[f32; #h]; S] = ::core::array::from_fn(|s| cr[#rd]);
                },
                quote! {
                    let (mut next, mut next_c) = ([[0.0f32; #h]; S], [[0.0f32; #h]; S]);
                    self.#f.step_rows::<S, V, I>(isa, &xs, &hs, &cs, &mut next, &mut next_c);
                },
                quote! { (hs[s], cs[s]) = (next[s], next_c[s]); },
                quote! {
                    hr[#rd] = if lens[s] > 0 { hs[s] } else { [0.0f32; #h] };
                    cr[#rd] = if lens[s] > 0 { cs[s] } else { [0.0f32; #h] };
                },
            )
        } else {
            (
                quote! { let mut hs: [[f32; #h]; S] = ::core::array::from_fn(|s| hr[#rd]); },
                quote! {
                    let mut next = [[0.0f32; #h]; S];
                    self.#f.step_rows::<S, V, I>(isa, &xs, &hs, &mut next);
                },
                quote! { hs[s] = next[s]; },
                quote! { hr[#rd] = if lens[s] > 0 { hs[s] } else { [0.0f32; #h] }; },
            )
        };
        quote! {
            #state
            for k in 0..steps {
                let xs: [[f32; #i]; S] = ::core::array::from_fn(|s| {
                    if k < lens[s] { x[xi(r0 + s, #t_of)] } else { [0.0f32; #i] }
                });
                #step
                for s in 0..S {
                    if k < lens[s] {
                        if let Some(y) = y.as_deref_mut() {
                            y[yi(r0 + s, #t_of, #d)] = next[s];
                        }
                        #keep
                    }
                }
            }
            for s in 0..S {
                if let Some(y) = y.as_deref_mut() {
                    for t in lens[s]..#l {
                        y[yi(r0 + s, t, #d)] = [0.0f32; #h];
                    }
                }
                #finals
            }
        }
    });
    let (nl, ndl) = (times(quote! { n }, l), times(quote! { n }, nd * l));
    let (c_param, c_check) = if lstm {
        (quote! { c: &mut [[f32; #h]], }, quote! { ::cellc_runtime::__private::check_len("c", h.len(), c.len())?; })
    } else {
        (quote! {}, quote! {})
    };
    let batch_doc = format!(
        " The whole batch, as rows. `x` holds a row of INPUT_SIZE per step of each batch row, \
         `[batch, STEPS]` of them (`Major::Batch`) or `[STEPS, batch]` (`Major::Time`); `h`{} \
         (`[batch, DIRECTIONS]` rows of HIDDEN_SIZE) holds the initial state{} and receives the final \
         one{}; `lengths` gives each row's valid steps (`None`: all of them); `y`, when given, receives \
         every step's hidden state in the same order (`[batch, DIRECTIONS, STEPS]` or \
         `[STEPS, batch, DIRECTIONS]` rows), zero past a row's length; without it only the final \
         state is kept, as BNNS's `outputSequence = false`. Checks every count first.",
        if lstm { " and `c`, each" } else { "" },
        if lstm { "s" } else { "" },
        if lstm { "s" } else { "" },
    );
    // `· 1` is not written: clippy flags it in a user's crate (a sequence of one step).
    let times_l = |e: TokenStream, grouped: TokenStream| {
        if l == 1 {
            e
        } else {
            quote! { #grouped * #l }
        }
    };
    let (y_batch, y_time) = if nd == 1 {
        (times_l(quote! { r + d }, quote! { (r + d) }), quote! { t * n + r + d })
    } else {
        (times_l(quote! { #nd * r + d }, quote! { (#nd * r + d) }), quote! { #nd * (t * n + r) + d })
    };
    let (y_batch, x_batch) = (quote! { #y_batch + t }, times_l(quote! { r }, quote! { r }));
    let rows_of_h = divided(quote! { hr.len() }, nd);
    let (c_arg, c_pass, c_slice) = if lstm {
        (quote! { cr: &mut [[f32; #h]], }, quote! { cr, }, quote! { let cr = c; })
    } else {
        (quote! {}, quote! {}, quote! {})
    };
    let batch_entry = super::ctx::entry(simd, |l| {
        quote! { self.run_batch_at::<{ #l.batch_rows() }, { #l.batch_lanes() }, _>(isa, major, xr, hr, #c_pass lengths, yr) }
    });
    let run_batch = quote! {
        #[doc = #batch_doc]
        pub fn run_batch(&self, major: ::cellc_runtime::Major, x: &[[f32; #i]], h: &mut [[f32; #h]], #c_param lengths: ::core::option::Option<&[usize]>, y: ::core::option::Option<&mut [[f32; #h]]>) -> ::core::result::Result<(), ::cellc_runtime::Error> {
            let n = ::cellc_runtime::__private::rows_of("h", #nd, h.len())?;
            #c_check
            ::cellc_runtime::__private::check_len("x", #nl, x.len())?;
            if let Some(lengths) = lengths {
                ::cellc_runtime::__private::check_len("lengths", n, lengths.len())?;
                if let Some(row) = lengths.iter().position(|&v| v > #l) {
                    return Err(::cellc_runtime::Error::SequenceLength { name: "lengths", row, max: #l });
                }
            }
            if let Some(y) = y.as_deref() {
                ::cellc_runtime::__private::check_len("y", #ndl, y.len())?;
            }
            let (xr, hr) = (x, h);
            #c_slice
            let yr = y;
            #batch_entry;
            Ok(())
        }
        /// [`Self::run_batch`] on checked slices: blocks of `S` rows, then the rows left one by one.
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        fn run_batch_at<const S: usize, const V: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, major: ::cellc_runtime::Major, x: &[[f32; #i]], hr: &mut [[f32; #h]], #c_arg lengths: ::core::option::Option<&[usize]>, mut y: ::core::option::Option<&mut [[f32; #h]]>) {
            let n = #rows_of_h;
            let mut r0 = 0;
            while r0 + S <= n {
                self.run_rows::<S, V, I>(isa, major, r0, x, hr, #c_pass lengths, y.as_deref_mut());
                r0 += S;
            }
            while r0 < n {
                self.run_rows::<1, V, I>(isa, major, r0, x, hr, #c_pass lengths, y.as_deref_mut());
                r0 += 1;
            }
        }
        /// Rows `r0..r0 + S` of [`Self::run_batch`], every step of them one batched step.
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        fn run_rows<const S: usize, const V: usize, I: ::cellc_runtime::__private::simd::Isa>(&self, isa: I, major: ::cellc_runtime::Major, r0: usize, x: &[[f32; #i]], hr: &mut [[f32; #h]], #c_arg lengths: ::core::option::Option<&[usize]>, mut y: ::core::option::Option<&mut [[f32; #h]]>) {
            let n = #rows_of_h;
            let lens: [usize; S] = ::core::array::from_fn(|s| lengths.map_or(#l, |v| v[r0 + s]));
            let steps = lens.iter().copied().max().unwrap_or(0);
            // Where step t of row r is in `x`, and where direction d of it goes in `y`.
            let xi = |r: usize, t: usize| match major {
                ::cellc_runtime::Major::Batch => #x_batch + t,
                ::cellc_runtime::Major::Time => t * n + r,
            };
            let yi = |r: usize, t: usize, d: usize| match major {
                ::cellc_runtime::Major::Batch => #y_batch,
                ::cellc_runtime::Major::Time => #y_time,
            };
            #({ #batch_dirs })*
        }
    };
    let consts = quote! {
        /// Input size `I`.
        pub const INPUT_SIZE: usize = #i;
        /// Hidden size `H`.
        pub const HIDDEN_SIZE: usize = #h;
        /// Steps `L` of the input sequence.
        pub const STEPS: usize = #l;
        /// Directions (2 when bidirectional).
        pub const DIRECTIONS: usize = #nd;
    };
    let runtime: Vec<&str> = crate::emit::plan::runtime_tensors(cell).iter().map(|t| t.arg()).collect();
    if runtime.is_empty() {
        return quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, Debug, Default)]
            pub struct #ty { #(#fields: #types,)* }
            ::cellc_runtime::__private::impl_zeroed!(#ty { #(#fields),* });
            impl #ty {
                #consts
                /// The sequence op; its weights are embedded.
                pub const fn new() -> Self { #ty { #(#fields: #types::new(),)* } }
                #run
                #run_batch
            }
        };
    }
    // Runtime weights come whole (`[dirs, …]`); each direction takes its block.
    let args: Vec<Ident> = runtime.iter().map(|n| ident(n)).collect();
    let blocks = dirs.iter().enumerate().map(|(d, (f, _))| {
        let parts = args.iter().map(|a| {
            let range = super::exprs::block_range(format_ident!("{}_len", a).into_token_stream(), d);
            quote! { &#a[#range] }
        });
        quote! { self.#f.set_weights(#(#parts),*)?; }
    });
    let lens = args.iter().map(|a| {
        let n = format_ident!("{}_len", a);
        let name = a.to_string().to_ascii_uppercase();
        let (per_dir, whole) = (divided(quote! { #a.len() }, nd), times(quote! { #n }, nd));
        quote! {
            let #n = #per_dir;
            ::cellc_runtime::__private::check_len(#name, #whole, #a.len())?;
        }
    });
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug)]
        pub struct #ty { #(#fields: #types,)* }
        ::cellc_runtime::__private::impl_zeroed!(#ty { #(#fields),* });
        impl #ty {
            #consts
            /// The sequence op with weights given at run time, one block per direction.
            pub fn new(#(#args: &[f32]),*) -> ::core::result::Result<Self, ::cellc_runtime::Error> {
                let mut op = Self::zeroed();
                op.set_weights(#(#args),*)?;
                Ok(op)
            }
            /// The sequence op with all runtime weights zero.
            pub const fn zeroed() -> Self { #ty { #(#fields: #types::zeroed(),)* } }
            /// Replaces the weights given at run time: `[dirs, …]` blocks in the layout the cell was declared in.
            pub fn set_weights(&mut self, #(#args: &[f32]),*) -> ::core::result::Result<(), ::cellc_runtime::Error> {
                #(#lens)*
                #(#blocks)*
                Ok(())
            }
            #run
            #run_batch
        }
    }
}
