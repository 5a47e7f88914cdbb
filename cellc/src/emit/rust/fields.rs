//! The names of what a generated model type holds besides its cells (scratch slots,
//! constants, states, flags), and how a step addresses an operand in them.
use crate::ir::{Home, Operand};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// Names of what the model type holds besides its cells.
pub(super) struct Fields {
    pub(super) slots: Vec<proc_macro2::Ident>,
    pub(super) consts: Vec<proc_macro2::Ident>,
    /// The variables of a stateful model, and whether a run has set them since the last
    /// reset (false when zeroed, as `reset` and `cellc_runtime::boxed` leave it).
    pub(super) states: Vec<proc_macro2::Ident>,
    pub(super) started: proc_macro2::Ident,
    /// Whether `set_weights` has filled the runtime weights since the model was built.
    pub(super) weights_set: proc_macro2::Ident,
    /// Each Parameter's index among `run`'s inputs (or among the weights).
    pub(super) args: Vec<usize>,
}

/// `offset + n·row_stride` (+ `extra`), as a reader would write it.
fn start(o: &Operand, extra: usize) -> TokenStream {
    let base = o.offset + extra;
    let row = match o.row_stride {
        0 => None,
        1 => Some(quote! { n }),
        rs => Some(quote! { n * #rs }),
    };
    match (base, row) {
        (b, None) => quote! { #b },
        (0, Some(r)) => r,
        (b, Some(r)) => quote! { #b + #r },
    }
}

impl Fields {
    /// Parameter `p`'s input slice.
    pub(super) fn input(&self, p: usize) -> TokenStream {
        let i = self.args[p];
        quote! { inputs[#i] }
    }

    /// The operand's `len` values from `extra` on, as a place (`inputs[0][a..b]`).
    pub(super) fn place(&self, o: &Operand, extra: usize, len: usize) -> TokenStream {
        let range = match (o.row_stride, o.offset + extra) {
            (0, at) => {
                let end = at + len;
                quote! { #at..#end }
            }
            _ => {
                let at = start(o, extra);
                quote! { #at..#at + #len }
            }
        };
        match o.home {
            Home::Param(i) => {
                let input = self.input(i);
                quote! { #input[#range] }
            }
            Home::Output(k) => {
                let v = format_ident!("out{}", k);
                quote! { #v[#range] }
            }
            Home::Slot(s) => {
                let f = &self.slots[s];
                quote! { self.#f.0[#range] }
            }
            Home::Const(k) => {
                let c = &self.consts[k];
                quote! { #c.0[#range] }
            }
            Home::State(k) => {
                let f = &self.states[k];
                quote! { self.#f[#range] }
            }
        }
    }

    /// The operand's `len` values from `extra` on, as a slice.
    pub(super) fn slice(&self, o: &Operand, extra: usize, len: usize, mutable: bool) -> TokenStream {
        let place = self.place(o, extra, len);
        if mutable {
            quote! { &mut #place }
        } else {
            quote! { &#place }
        }
    }
}
