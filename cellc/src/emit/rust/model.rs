//! The model entry point: a type owning the cells, implementing `cellc_runtime::Model`.
//! It checks every length first, then runs the cells row by row, so intermediate states
//! live on the stack whatever the batch.
use super::CellItem;
use super::names::ident;
use crate::ir::{Batch, Dim, Lengths, Model, ParamRole, Seq, Value};
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

/// `.as_chunks::<dₖ>().0 … .as_chunks::<d₁>().0` for the dimensions after the batch,
/// innermost first: the flat slice seen as an array of typed rows.
fn chunks(shape: &[Dim], mutable: bool) -> TokenStream {
    shape
        .iter()
        .skip(1)
        .rev()
        .map(|d| {
            let n = match d {
                Dim::Static(n) => *n,
                Dim::Batch => 1,
            };
            if mutable {
                quote! { .as_chunks_mut::<#n>().0 }
            } else {
                quote! { .as_chunks::<#n>().0 }
            }
        })
        .collect()
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
    // Views: each data input and each Result as an array of batch rows, a row typed by the
    // tensor's dimensions after the batch (`[[f32; I]; L]` for a sequence's X, …).
    let read_by_cells = |i: usize| {
        m.cells.iter().any(|c| {
            [Some(c.x), Some(c.h), c.c].contains(&Some(Value::Param(i)))
                || matches!(&c.seq, Some(q) if q.lengths == Lengths::Param(i))
        })
    };
    let rows =
        m.params.iter().enumerate().filter(|&(i, p)| p.role != ParamRole::Weights && read_by_cells(i)).map(|(i, p)| {
            let v = format_ident!("in{}", i);
            let view = chunks(&p.shape, false);
            quote! { let #v = inputs[#i] #view; }
        });
    let lengths_checks = m.cells.iter().filter_map(|c| match &c.seq {
        Some(Seq { lengths: Lengths::Param(p), steps, .. }) => {
            let name = &m.params[*p].name;
            Some(quote! { ::cellc_runtime::check_lengths(#name, inputs[#p], #steps)?; })
        }
        _ => None,
    });
    let outs: Vec<_> = (0..m.outputs.len()).map(|k| format_ident!("out{}", k)).collect();
    let out_views = m.outputs.iter().zip(&outs).filter(|(o, _)| matches!(o.value, Value::Cell(..))).map(|(o, v)| {
        let view = chunks(&o.shape, true);
        quote! { let #v = #v #view; }
    });
    // Where each cell output lives for the current row: the first Result that returns it
    // (sequence outputs are written there directly), else a local array.
    let home =
        |c: usize, port: usize| -> Option<usize> { m.outputs.iter().position(|o| o.value == Value::Cell(c, port)) };
    let local = |c: usize, port: usize| format_ident!("c{}_{}", c, port);
    let value = |v: Value| match v {
        Value::Param(p) => {
            let id = format_ident!("in{}", p);
            quote! { &#id[n] }
        }
        Value::Cell(c, port) => match (&m.cells[c].seq, home(c, port)) {
            (Some(_), Some(k)) => {
                let o = &outs[k];
                quote! { &#o[n] }
            }
            _ => {
                let id = local(c, port);
                quote! { &#id }
            }
        },
    };
    let steps = m.cells.iter().enumerate().map(|(k, c)| {
        let (f, h) = (&fields[k], c.spec.hidden);
        let (x, hs) = (value(c.x), value(c.h));
        let cs = c.c.map(value);
        match &c.seq {
            None => {
                let (o0, o1) = (local(k, 0), local(k, 1));
                match cs {
                    Some(cs) => quote! {
                        let mut #o0 = [0.0f32; #h];
                        let mut #o1 = [0.0f32; #h];
                        self.#f.step(#x, #hs, #cs, &mut #o0, &mut #o1);
                    },
                    None => quote! {
                        let mut #o0 = [0.0f32; #h];
                        self.#f.step(#x, #hs, &mut #o0);
                    },
                }
            }
            Some(q) => {
                let (steps, dirs) = (q.steps, q.direction.count());
                let ports = if c.spec.kind.has_cell_state() { 3 } else { 2 };
                let mut scratch = TokenStream::new();
                let dests: Vec<TokenStream> = (0..ports)
                    .map(|port| match home(k, port) {
                        Some(j) => {
                            let o = &outs[j];
                            quote! { &mut #o[n] }
                        }
                        None => {
                            let id = local(k, port);
                            let zero = if port == 0 {
                                quote! { [[[0.0f32; #h]; #steps]; #dirs] }
                            } else {
                                quote! { [[0.0f32; #h]; #dirs] }
                            };
                            scratch.extend(quote! { let mut #id = #zero; });
                            quote! { &mut #id }
                        }
                    })
                    .collect();
                let len = match &q.lengths {
                    Lengths::Param(p) => {
                        let id = format_ident!("in{}", p);
                        quote! { #id[n] as usize }
                    }
                    Lengths::Const(v) => quote! { [#(#v),*][n] },
                };
                let states = match cs {
                    Some(cs) => quote! { #hs, #cs },
                    None => quote! { #hs },
                };
                quote! {
                    #scratch
                    self.#f.run(#x, #states, #len, #(#dests),*);
                }
            }
        }
    });
    // Results that are not the home of their value copy it from there.
    let writes = m.outputs.iter().enumerate().filter_map(|(k, o)| match o.value {
        Value::Cell(c, port) if m.cells[c].seq.is_none() => {
            let (dst, src) = (&outs[k], local(c, port));
            Some(quote! { #dst[n] = #src; })
        }
        Value::Cell(c, port) => match home(c, port) {
            Some(j) if j != k => {
                let (dst, src) = (&outs[k], &outs[j]);
                Some(quote! { #dst[n] = #src[n]; })
            }
            _ => None,
        },
        _ => None,
    });
    let copies = m.outputs.iter().enumerate().filter_map(|(k, o)| match o.value {
        Value::Param(p) => {
            let o = &outs[k];
            Some(quote! { #o.copy_from_slice(inputs[#p]); })
        }
        Value::Cell(..) => None,
    });
    let check = quote! { ::cellc_runtime::check_io(Self::INPUTS, Self::OUTPUTS, #static_batch, inputs, outputs)? };
    let n_out = m.outputs.len();
    let split = quote! {
        // Disjoint borrows of every output; check_io has checked the count.
        let [#(#outs),*] = outputs else {
            return Err(::cellc_runtime::Error::OutputCount { expected: #n_out, got: outputs.len() });
        };
    };
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
        ::cellc_runtime::impl_zeroed!(#ty { #(#fields),* });
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
                #(#lengths_checks)*
                #(#set_weights)*
                #split
                #(#rows)*
                #(#out_views)*
                #row_loop
                #(#copies)*
                Ok(())
            }
        }
    }
}
