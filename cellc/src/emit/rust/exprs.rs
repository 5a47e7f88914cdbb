//! Expressions shared by the cell emitters.
use super::lit::f32_tokens;
use crate::ir::Activation;
use proc_macro2::TokenStream;
use quote::quote;

/// `v · k` written as a reader would (and as clippy, in the user's crate, wants it): `0`
/// for `k = 0`, `v` for `k = 1`.
pub(super) fn times(v: TokenStream, k: usize) -> TokenStream {
    match k {
        0 => quote! { 0 },
        1 => v,
        k => quote! { #v * #k },
    }
}

/// `v / k`, or `v` for `k = 1`.
pub(super) fn divided(v: TokenStream, k: usize) -> TokenStream {
    if k == 1 {
        v
    } else {
        quote! { #v / #k }
    }
}

/// The range of block `d` of `n`-long blocks: `d·n..(d + 1)·n`, simplified.
pub(super) fn block_range(n: TokenStream, d: usize) -> TokenStream {
    let hi = times(n.clone(), d + 1);
    if d == 0 {
        quote! { ..#hi }
    } else {
        let lo = times(n, d);
        quote! { #lo..#hi }
    }
}

/// `act(clip(v))`, with the activation's constants inlined; from `cellc_runtime::act::fast`
/// if `fast` (which has every activation, the cheap ones re-exported). The ones computed
/// with a polynomial take the kernel's level token, `isa`.
pub(super) fn act(a: &Activation, clip: Option<f32>, fast: bool, v: TokenStream) -> TokenStream {
    let m = if fast {
        quote! { ::cellc_runtime::act::fast }
    } else {
        quote! { ::cellc_runtime::act }
    };
    let v = match clip {
        Some(c) => {
            let c = f32_tokens(c);
            quote! { #m::clip(#v, #c) }
        }
        None => v,
    };
    let lit = f32_tokens;
    match *a {
        Activation::Relu => quote! { #m::relu(#v) },
        Activation::Sigmoid => quote! { #m::sigmoid(isa, #v) },
        Activation::Tanh => quote! { #m::tanh(isa, #v) },
        Activation::Softsign => quote! { #m::softsign(#v) },
        Activation::Softplus => quote! { #m::softplus(isa, #v) },
        Activation::HardSigmoid { alpha, beta } => {
            let (al, be) = (lit(alpha), lit(beta));
            quote! { #m::hardsigmoid(#v, #al, #be) }
        }
        Activation::Affine { alpha, beta } => {
            let (al, be) = (lit(alpha), lit(beta));
            quote! { #m::affine(#v, #al, #be) }
        }
        Activation::ScaledTanh { alpha, beta } => {
            let (al, be) = (lit(alpha), lit(beta));
            quote! { #m::scaledtanh(isa, #v, #al, #be) }
        }
        Activation::LeakyRelu { alpha } => {
            let al = lit(alpha);
            quote! { #m::leakyrelu(#v, #al) }
        }
        Activation::ThresholdedRelu { alpha } => {
            let al = lit(alpha);
            quote! { #m::thresholdedrelu(#v, #al) }
        }
        Activation::Elu { alpha } => {
            let al = lit(alpha);
            quote! { #m::elu(isa, #v, #al) }
        }
    }
}
