//! Expressions shared by the cell emitters: activations with clipping, and the terms of an
//! unrolled dot product.
use super::cell::{Ctx, Tensor};
use super::lit::f32_tokens;
use super::names::ident;
use crate::ir::{Activation, WeightSrc};
use proc_macro2::TokenStream;
use quote::quote;

/// `act(clip(v))`, with the activation's constants inlined.
pub(super) fn act(a: &Activation, clip: Option<f32>, v: TokenStream) -> TokenStream {
    let v = match clip {
        Some(c) => {
            let c = f32_tokens(c);
            quote! { ::cellc_runtime::act::clip(#v, #c) }
        }
        None => v,
    };
    match a {
        Activation::Relu => quote! { ::cellc_runtime::act::relu(#v) },
        Activation::Sigmoid => quote! { ::cellc_runtime::act::sigmoid(#v) },
        Activation::Tanh => quote! { ::cellc_runtime::act::tanh(#v) },
        Activation::HardSigmoid { alpha, beta } => {
            let (al, be) = (f32_tokens(*alpha), f32_tokens(*beta));
            quote! { ::cellc_runtime::act::hardsigmoid(#v, #al, #be) }
        }
    }
}

/// Element `idx` of a weight tensor in its IR layout: a literal when embedded, an index
/// into the runtime array otherwise. `None` when the tensor is absent (a zero bias).
pub(super) fn weight(ctx: &Ctx<'_>, t: Tensor, idx: usize) -> Option<TokenStream> {
    match ctx.src(t)? {
        WeightSrc::Embedded { values, .. } => Some(f32_tokens(values[idx])),
        WeightSrc::Runtime(_) => {
            let a = ident(match t {
                Tensor::W => "w",
                Tensor::R => "r",
                Tensor::B => "b",
            });
            Some(quote! { #a[#idx] })
        }
    }
}

/// `t0 + t1 + …`, or `0.0` for no terms.
pub(super) fn sum(terms: Vec<TokenStream>) -> TokenStream {
    let mut it = terms.into_iter();
    match it.next() {
        None => quote! { 0.0f32 },
        Some(first) => it.fold(first, |acc, t| quote! { #acc + #t }),
    }
}

/// The terms `v_k * M[row, k]` of one row of a matrix product with `cols` columns, where
/// `v` names locals `{v}0, {v}1, …`.
pub(super) fn row_terms(ctx: &Ctx<'_>, t: Tensor, row: usize, cols: usize, v: &str) -> Vec<TokenStream> {
    (0..cols)
        .filter_map(|k| {
            let w = weight(ctx, t, row * cols + k)?;
            let vk = ident(&format!("{v}{k}"));
            Some(quote! { #vk * #w })
        })
        .collect()
}

/// `let [p0, p1, …] = *src;`
pub(super) fn destructure(prefix: &str, n: usize, src: TokenStream) -> TokenStream {
    let names = (0..n).map(|k| ident(&format!("{prefix}{k}")));
    quote! { let [#(#names),*] = *#src; }
}
