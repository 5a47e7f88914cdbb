//! Dense layers: a unit type per layer whose `run` computes its rows with
//! `cellc_runtime::__private::kernel::dense_rows` over weights packed at compile time into the tiles
//! a cell's input projection uses (and stored as `--weight-type` says).
use super::ctx::entry;
use super::lit::table;
use super::names::{field_name, ident};
use crate::emit::dense::{Tiling, describe, packed_bias, packed_weights};
use crate::emit::plan::{Packed, Store};
use crate::ir::steps::MapFn;
use crate::ir::{Dense, DenseAct};
use crate::options::Simd;
use crate::vocab::Binary;
use proc_macro2::TokenStream;
use quote::quote;

/// The type of dense layer `d`, named `ty`, and its tables; `wide` when it runs over
/// enough rows a call for the kernel of blocks of rows × tiles (`dense_rows_wide`).
pub(super) fn item(
    d: &Dense,
    ty: &str,
    (store, wide, winograd): (Store, bool, bool),
    simd: Simd,
    tables: &mut Vec<super::lit::Table>,
) -> TokenStream {
    let t = Tiling::of(d.n);
    let prefix = field_name(ty).to_ascii_uppercase();
    let (w_name, b_name) = (ident(&format!("{prefix}_W")), ident(&format!("{prefix}_B")));
    let doc = format!(" {}", describe(d, t, store));
    let (weights, what) = if winograd {
        (Packed::F32(crate::emit::winograd::packed(d)), "transformed for F(2×2, 3×3) and packed for its kernel")
    } else {
        (packed_weights(d, t, store), "packed for its kernel")
    };
    tables.push(table(&w_name.to_string(), &format!("Weights of `{ty}`, {what}."), weights));
    tables.push(table(&b_name.to_string(), &format!("Bias of `{ty}`, in its tiles."), Packed::F32(packed_bias(d, t))));
    let (k, n, tile, group) = (d.k, d.n, t.tile, t.group);
    let schedule = super::ctx::schedule(t.schedule(d.k, wide));
    let row = match store {
        Store::Bf16 => cellc_pack::bf16_words(tile),
        Store::F32 | Store::F16 => tile,
        Store::I8 => cellc_pack::int8::row_len(tile),
    };
    let v = quote! { v };
    // The activation in a loop of its own, compiled at the caller's level (see
    // `dense_rows`).
    let isa = quote! { isa };
    let apply = match &d.act {
        Some(DenseAct::Unary(a)) => {
            let e = super::steps::bare(super::steps::map_expr(MapFn::Unary(*a), std::slice::from_ref(&v), &isa));
            quote! { for y in y.iter_mut() { let v: f32 = *y; *y = #e; } }
        }
        // `y` holds whole rows: output `j` of each takes slope `j`.
        Some(DenseAct::PRelu(s)) => {
            let s_name = ident(&format!("{prefix}_S"));
            let slope = Packed::F32(s.clone());
            tables.push(table(&s_name.to_string(), &format!("Slopes of `{ty}`'s PReLU, one per output."), slope));
            let e = super::steps::bare(super::steps::map_expr(
                MapFn::Binary(Binary::PRelu),
                &[v.clone(), quote! { s }],
                &isa,
            ));
            quote! { ::cellc_runtime::__private::kernel::per_output(y, &#s_name.0, |v: f32, s: f32| #e); }
        }
        None => quote! {},
    };
    let kernel = if wide {
        quote! { dense_rows_wide }
    } else {
        quote! { dense_rows }
    };
    let ty = ident(ty);
    if let Some(w) = d.win.as_ref().filter(|_| winograd) {
        let d_name = ident(&format!("{prefix}_D"));
        let what = format!("Weights of `{ty}` as the model holds them (output, tap, channel), for its direct sum.");
        tables.push(table(&d_name.to_string(), &what, Packed::F32(crate::emit::winograd::direct(d).to_vec())));
        return winograd_item(d, w, (&ty, &doc), (&w_name, &b_name, &d_name), tile, apply, simd);
    }
    if let Some(w) = &d.win {
        return windows_item(d, w, (&ty, &doc), (&w_name, &b_name), (row, tile, group), apply, simd);
    }
    let body = entry(simd, |level| {
        quote! { Self::run_at::<{ #level.batch_rows() }, { #level.batch_lanes() }, _>(isa, x, y.as_flattened_mut()) }
    });
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct #ty;
        impl #ty {
            /// Inputs of a row.
            pub const INPUT_SIZE: usize = #k;
            /// Outputs of a row.
            pub const OUTPUT_SIZE: usize = #n;
            /// Writes the outputs of each row of `x` to the row of `y` of the same index;
            /// `y` must have one row for each row of `x` (another count is
            /// `Error::Length`, and nothing is written).
            pub fn run(x: &[[f32; #k]], y: &mut [[f32; #n]]) -> ::core::result::Result<(), ::cellc_runtime::Error> {
                ::cellc_runtime::__private::check_len("y", x.len(), y.len())?;
                #body;
                Ok(())
            }
            #[inline(always)]
            fn run_at<const R: usize, const V: usize, I: ::cellc_runtime::__private::simd::Isa>(isa: I, x: &[[f32; #k]], y: &mut [f32]) {
                let panels = #w_name.0.as_chunks::<#row>().0.as_chunks::<#k>().0;
                let bias = #b_name.0.as_chunks::<#tile>().0;
                ::cellc_runtime::__private::kernel::#kernel::<#k, #tile, R, #group, R, V, _, _, _, I>(
                    panels,
                    bias,
                    x,
                    y,
                    #n,
                    ::cellc_runtime::__private::kernel::Block::<R, V>,
                    #schedule,
                    isa,
                );
                #apply
            }
        }
    }
}

/// The type of a dense layer over the windows of a convolution, read in place from its
/// input laid out channels last (`cellc_runtime::__private::kernel::dense_windows`).
fn windows_item(
    d: &Dense,
    w: &crate::vocab::Windows,
    (ty, doc): (&proc_macro2::Ident, &str),
    (w_name, b_name): (&proc_macro2::Ident, &proc_macro2::Ident),
    (row, tile, group): (usize, usize, usize),
    apply: TokenStream,
    simd: Simd,
) -> TokenStream {
    let (k, n, c) = (d.k, d.n, w.channels);
    let sizes = sizes("last", w.input_len(), n, None);
    let windows = super::lit::windows_value(w);
    let body = entry(simd, |_| quote! { Self::run_at(isa, x, y) });
    // The activation maps each run of outputs as the kernel writes it, still in the cache.
    // The closure is inlined by force: a closure is compiled apart from the dispatched
    // level's `#[target_feature]` function, so if LLVM kept it out of line (an exact swish
    // is large enough), its intrinsics would be calls (AECMOS's first layer, a build
    // without `-C target-cpu`: 20 ms against 0.7 ms).
    let call = if apply.is_empty() {
        quote! {
            ::cellc_runtime::__private::kernel::dense_windows::<#c, #k, #tile, #group, _, I>(
                panels, bias, x, y, #n, &Self::WINDOWS, isa,
            );
        }
    } else {
        quote! {
            ::cellc_runtime::__private::kernel::dense_windows_then::<#c, #k, #tile, #group, _, I, _>(
                panels, bias, x, y, #n, &Self::WINDOWS, isa, #[inline(always)] |y: &mut [f32]| { #apply },
            );
        }
    };
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct #ty;
        impl #ty {
            #sizes
            /// The windows, over the input laid out channels last.
            const WINDOWS: ::cellc_runtime::__private::kernel::Windows = #windows;
            /// Writes the outputs of every window of the entries of `x` (`INPUT_SIZE` values
            /// each) to `y` (`OUTPUT_SIZE` a window); writes nothing when `y` does not hold
            /// as many windows as `x`.
            pub fn run(x: &[f32], y: &mut [f32]) {
                #body
            }
            #[inline(always)]
            fn run_at<I: ::cellc_runtime::__private::simd::Isa>(isa: I, x: &[f32], y: &mut [f32]) {
                let panels = #w_name.0.as_chunks::<#row>().0.as_chunks::<#k>().0;
                let bias = #b_name.0.as_chunks::<#tile>().0;
                #call
            }
        }
    }
}

/// The type of a 3×3 convolution's dense layer run by F(2×2, 3×3)
/// (`cellc_runtime::__private::kernel::dense_winograd_then`, see [`crate::emit::winograd`]): its weights
/// the 16 transformed matrices, its work area the caller's.
fn winograd_item(
    d: &Dense,
    w: &crate::vocab::Windows,
    (ty, doc): (&proc_macro2::Ident, &str),
    (w_name, b_name, d_name): (&proc_macro2::Ident, &proc_macro2::Ident, &proc_macro2::Ident),
    tile: usize,
    apply: TokenStream,
    simd: Simd,
) -> TokenStream {
    let (n, c) = (d.n, w.channels);
    let sizes = sizes("last", w.input_len(), n, Some(crate::emit::winograd::work(d)));
    let windows = super::lit::windows_value(w);
    let doc = format!(
        "{doc} Run by F(2×2, 3×3): 16 products over {} tiles of 2×2 outputs at a time.",
        crate::emit::winograd::TILES
    );
    let body = entry(simd, |level| {
        quote! { Self::run_at::<{ #level.batch_rows() }, { #level.batch_lanes() }, _>(isa, x, y, work) }
    });
    let then = if apply.is_empty() {
        quote! { |_: &mut [f32]| {} }
    } else {
        quote! { #[inline(always)] |y: &mut [f32]| { #apply } }
    };
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct #ty;
        impl #ty {
            #sizes
            /// The windows, over the input laid out channels last.
            const WINDOWS: ::cellc_runtime::__private::kernel::Windows = #windows;
            /// Writes the outputs of every window of the entries of `x` (`INPUT_SIZE` values
            /// each) to `y` (`OUTPUT_SIZE` a window), using `work` (`WORK_SIZE` values or
            /// more); writes nothing when `y` does not hold as many windows as `x` or
            /// `work` is shorter.
            pub fn run(x: &[f32], y: &mut [f32], work: &mut [f32]) {
                #body
            }
            #[inline(always)]
            fn run_at<const R: usize, const V: usize, I: ::cellc_runtime::__private::simd::Isa>(
                isa: I,
                x: &[f32],
                y: &mut [f32],
                work: &mut [f32],
            ) {
                let Some(work) = work.get_mut(..Self::WORK_SIZE) else { return };
                let panels = #w_name.0.as_chunks::<#tile>().0.as_chunks::<#c>().0;
                let bias = #b_name.0.as_chunks::<#tile>().0;
                ::cellc_runtime::__private::kernel::dense_winograd_then::<#c, #tile, R, V, _, I, _>(
                    panels,
                    bias,
                    &#d_name.0,
                    x,
                    y,
                    #n,
                    &Self::WINDOWS,
                    work,
                    ::cellc_runtime::__private::kernel::Block::<R, V>,
                    isa,
                    #then,
                );
            }
        }
    }
}

/// The constants of a layer over windows: its values an entry (laid out channels `layout`),
/// outputs a window and, with a work area, the values it takes.
pub(super) fn sizes(layout: &str, input_size: usize, n: usize, work: Option<usize>) -> TokenStream {
    let input = format!(" Inputs of an entry: its values laid out channels {layout}.");
    let work = work.map(|w| {
        quote! {
            /// Values of the work area `run` takes.
            pub const WORK_SIZE: usize = #w;
        }
    });
    quote! {
        #[doc = #input]
        pub const INPUT_SIZE: usize = #input_size;
        /// Outputs of a window.
        pub const OUTPUT_SIZE: usize = #n;
        #work
    }
}
