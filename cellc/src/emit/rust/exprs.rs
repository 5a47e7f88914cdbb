//! Expressions shared by the cell emitters.
use super::lit::f32_tokens;
use crate::ir::Activation;
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
