//! The model entry point: a type owning the cells, implementing `cellc_runtime::Model`.
//! It checks every length first, then runs the cells row by row, so intermediate states
//! live on the stack whatever the batch.
use super::CellItem;
use super::names::ident;
use crate::ir::{Batch, Dim, Model, ParamRole, Value};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

fn tensor_info(name: &str, shape: &[Dim], batch: Batch) -> TokenStream {
    let dims = shape.iter().map(|d| match (*d, batch) {
        (Dim::Static(n), _) | (Dim::Batch, Batch::Static(n)) => {
            quote! { ::cellc_runtime::Dim::Static(#n) }
        }
        (Dim::Batch, Batch::Dynamic) => quote! { ::cellc_runtime::Dim::Batch },
    });
    quote! { ::cellc_runtime::TensorInfo { name: #name, shape: &[#(#dims),*] } }
}

/// The model type and its `Model` implementation.
pub(super) fn items(m: &Model, ty: &str, cells: &[CellItem]) -> TokenStream {
    let ty = ident(ty);
    let fields: Vec<_> = cells.iter().map(|c| ident(&c.field)).collect();
    let types: Vec<_> = cells.iter().map(|c| ident(&c.ty)).collect();
    let ctors = cells.iter().zip(&types).map(|(c, t)| {
        if c.runtime_args.is_empty() {
            quote! { #t::new() }
        } else {
            quote! { #t::zeroed() }
        }
    });
    let inputs = m.params.iter().map(|p| tensor_info(&p.name, &p.shape, m.batch));
    let outputs = m.outputs.iter().map(|o| tensor_info(&o.name, &o.shape, m.batch));
    let static_batch = match m.batch {
        Batch::Static(n) => quote! { ::core::option::Option::Some(#n) },
        Batch::Dynamic => quote! { ::core::option::Option::None },
    };
    let set_weights = cells.iter().zip(&fields).filter(|(c, _)| !c.runtime_args.is_empty()).map(|(c, f)| {
        let args = &c.runtime_args;
        quote! { self.#f.set_weights(#(inputs[#args]),*)?; }
    });
    let read_by_cells = |i: usize| m.cells.iter().any(|c| [Some(c.x), Some(c.h), c.c].contains(&Some(Value::Param(i))));
    let rows =
        m.params.iter().enumerate().filter(|&(i, p)| p.role == ParamRole::Data && read_by_cells(i)).map(|(i, _)| {
            let v = format_ident!("in{}", i);
            let len = m.row_len(Value::Param(i));
            quote! { let #v = inputs[#i].as_chunks::<#len>().0; }
        });
    // Cell k's outputs for the current row live in `c{k}` (hidden state) and `c{k}_c`
    // (an LSTM's cell state).
    let local = |c: usize, port: usize| match port {
        0 => format_ident!("c{}", c),
        _ => format_ident!("c{}_c", c),
    };
    let value = |v: Value| match v {
        Value::Param(p) => {
            let id = format_ident!("in{}", p);
            quote! { &#id[n] }
        }
        Value::Cell(c, port) => {
            let id = local(c, port);
            quote! { &#id }
        }
    };
    let steps = m.cells.iter().enumerate().map(|(k, c)| {
        let (f, out, h) = (&fields[k], local(k, 0), c.spec.hidden);
        let (x, hs) = (value(c.x), value(c.h));
        match c.c {
            Some(cs) => {
                let (cs, out_c) = (value(cs), local(k, 1));
                quote! {
                    let mut #out = [0.0f32; #h];
                    let mut #out_c = [0.0f32; #h];
                    self.#f.step(#x, #hs, #cs, &mut #out, &mut #out_c);
                }
            }
            None => quote! {
                let mut #out = [0.0f32; #h];
                self.#f.step(#x, #hs, &mut #out);
            },
        }
    });
    let writes = m.outputs.iter().enumerate().filter_map(|(k, o)| match o.value {
        Value::Cell(c, port) => {
            let (id, h) = (local(c, port), m.cells[c].spec.hidden);
            Some(quote! { outputs[#k].as_chunks_mut::<#h>().0[n] = #id; })
        }
        Value::Param(_) => None,
    });
    let copies = m.outputs.iter().enumerate().filter_map(|(k, o)| match o.value {
        Value::Param(p) => Some(quote! { outputs[#k].copy_from_slice(inputs[#p]); }),
        Value::Cell(..) => None,
    });
    let check = quote! { ::cellc_runtime::check_io(Self::INPUTS, Self::OUTPUTS, #static_batch, inputs, outputs)? };
    let (check, row_loop) = if m.cells.is_empty() {
        (quote! { #check; }, quote! {})
    } else {
        (quote! { let batch = #check; }, quote! { for n in 0..batch { #(#steps)* #(#writes)* } })
    };
    let doc = format!(
        " Model {:?}: Parameters {:?}, Results {:?}. Run it through `cellc_runtime::Model::run`.",
        m.name,
        m.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        m.outputs.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(),
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug)]
        pub struct #ty { #(#fields: #types,)* }
        impl #ty {
            /// The model, ready to run.
            pub const fn new() -> Self { #ty { #(#fields: #ctors,)* } }
        }
        impl ::core::default::Default for #ty {
            fn default() -> Self { Self::new() }
        }
        impl ::cellc_runtime::Model for #ty {
            const INPUTS: &'static [::cellc_runtime::TensorInfo] = &[#(#inputs),*];
            const OUTPUTS: &'static [::cellc_runtime::TensorInfo] = &[#(#outputs),*];
            fn run(&mut self, inputs: &[&[f32]], outputs: &mut [&mut [f32]]) -> ::core::result::Result<(), ::cellc_runtime::Error> {
                #check
                #(#set_weights)*
                #(#rows)*
                #row_loop
                #(#copies)*
                Ok(())
            }
        }
    }
}
