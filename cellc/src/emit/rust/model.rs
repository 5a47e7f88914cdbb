//! The model entry point: a type owning the cells and the scratch slots, implementing
//! `cellc_runtime::Model`. `run` checks every length first, then performs the model's
//! steps for each row; every index it uses was fixed at compile time within the lengths
//! checked.
use super::fields::Fields;
use super::lit::{Table, table};
use super::names::{Names, field_name, ident, type_name};
use super::steps::{
    copy_step, map_step, pick_step, pool_step, reduce_step, rows_step, softmax_step, take_step, top_k_step,
};
use crate::emit::plan::Packed;
use crate::ir::steps::CellStep;
use crate::ir::{Batch, Dim, Lengths, Model, Operand, Step};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// A generated cell type, as the model emitter refers to it.
pub(crate) struct CellItem {
    pub(crate) ty: String,
    pub(crate) field: String,
    pub(crate) runtime_args: Vec<usize>,
}

fn tensor_info(name: &str, shape: &[Dim], batch: Batch) -> TokenStream {
    let dims = shape.iter().map(|d| match (*d, batch) {
        (Dim::Static(n), _) | (Dim::Batch, Batch::Static(n)) => {
            quote! { ::cellc_runtime::Dim::Static(#n) }
        }
        (Dim::Batch, Batch::Dynamic) => quote! { ::cellc_runtime::Dim::Batch },
    });
    quote! { ::cellc_runtime::TensorInfo { name: #name, shape: &[#(#dims),*] } }
}

/// `.as_chunks::<dₖ>().0 … .as_chunks::<d₁>().0`: a flat slice seen as rows typed by `dims`.
fn typed(dims: &[usize], mutable: bool) -> TokenStream {
    dims.iter()
        .rev()
        .map(|&n| {
            if mutable {
                quote! { .as_chunks_mut::<#n>().0 }
            } else {
                quote! { .as_chunks::<#n>().0 }
            }
        })
        .collect()
}

/// The model type and its `Model` implementation.
pub(super) fn items(
    m: &Model,
    ty: &str,
    (cells, denses): (&[CellItem], &[(String, Option<usize>)]),
    names: &mut Names,
    tables: &mut Vec<Table>,
    simd: crate::options::Simd,
) -> TokenStream {
    let ty = ident(ty);
    let fields = Fields {
        slots: (0..m.slots.len()).map(|s| ident(&field_name(&names.unique(&format!("Slot{s}"), "Slot")))).collect(),
        consts: (0..m.consts.len())
            .map(|k| ident(&field_name(&names.unique(&format!("Const{k}"), "Const")).to_ascii_uppercase()))
            .collect(),
        states: (0..m.states.len()).map(|k| ident(&field_name(&names.unique(&format!("State{k}"), "State")))).collect(),
        started: ident(&field_name(&names.unique("Started", "Started"))),
        weights_set: ident(&field_name(&names.unique("WeightsSet", "WeightsSet"))),
        args: (0..m.params.len()).map(|p| m.arg_index(p)).collect(),
    };
    let stateful = !m.states.is_empty();
    let state_fields = &fields.states;
    let state_lens: Vec<usize> = m.states.iter().map(|s| s.len).collect();
    let started = &fields.started;
    let (started_field, started_init) =
        if stateful { (quote! { #started: bool, }, quote! { #started: false, }) } else { (quote! {}, quote! {}) };
    let reset = stateful.then(|| {
        let names: Vec<String> = m.states.iter().map(|s| s.name.clone()).collect();
        let doc = format!(" Forgets the variables {names:?}: the next run starts from their initial values.");
        quote! {
            #[doc = #doc]
            pub fn reset(&mut self) {
                #(self.#state_fields = [0.0; #state_lens];)*
                self.#started = false;
            }
        }
    });
    let reset_trait = stateful.then(|| quote! { fn reset(&mut self) { #ty::reset(self) } });
    let end_of_run = stateful.then(|| quote! { self.#started = true; });
    let cell_fields: Vec<_> = cells.iter().map(|c| ident(&c.field)).collect();
    let types: Vec<_> = cells.iter().map(|c| ident(&c.ty)).collect();
    let ctors = cells.iter().zip(&types).map(|(c, t)| {
        if c.runtime_args.is_empty() {
            quote! { #t::new() }
        } else {
            quote! { #t::zeroed() }
        }
    });
    // The work area of the layers run by F(2×2, 3×3), one for all (they run one at a time),
    // a slot of its own.
    let work = ident(&field_name(&names.unique("Work", "Work")));
    let work_len = denses.iter().filter_map(|d| d.1).max();
    // Each slot on a cache line of its own (`Aligned`): a slot at 16 bytes past a line, as
    // the allocator gives a large value of 4-byte alignment, split every 64-byte vector
    // access in two (a Winograd layer over 32 → 64 channels took 1.10× the time; Intel Xeon,
    // AVX-512).
    let mut slot_fields = fields.slots.clone();
    let mut slot_lens = m.slots.clone();
    if let Some(len) = work_len {
        slot_fields.push(work.clone());
        slot_lens.push(len);
    }
    let (slot_fields, slot_lens) = (&slot_fields, &slot_lens);
    for (k, (v, name)) in m.consts.iter().zip(&fields.consts).enumerate() {
        let doc = format!("Constant {k} of the model.");
        tables.push(table(&name.to_string(), &doc, Packed::F32(v.clone())));
    }
    let inputs = m.run_inputs().map(|(_, p)| tensor_info(&p.name, &p.shape, m.batch));
    let weight_infos: Vec<TokenStream> =
        m.run_weights().map(|(_, p)| tensor_info(&p.name, &p.shape, m.batch)).collect();
    let outputs = m.outputs.iter().map(|o| tensor_info(&o.name, &o.shape, m.batch));
    let static_batch = match m.batch {
        Batch::Static(n) => quote! { ::core::option::Option::Some(#n) },
        Batch::Dynamic => quote! { ::core::option::Option::None },
    };
    let weights = weights_items(m, cells, &cell_fields, &fields, &weight_infos);
    let lengths_checks = m.cells.iter().filter_map(|c| match &c.seq {
        Some(q) => match q.lengths {
            Lengths::Param(p) => {
                let (name, steps, input) = (&m.params[p].name, q.steps, fields.input(p));
                Some(quote! { ::cellc_runtime::__private::check_lengths(#name, #input, #steps)?; })
            }
            Lengths::Const(_) => None,
        },
        None => None,
    });
    let outs: Vec<_> = (0..m.outputs.len()).map(|k| format_ident!("out{}", k)).collect();
    let mut picks = 0usize;
    let steps: Vec<TokenStream> = m
        .steps
        .iter()
        .map(|s| match s {
            Step::Cell(c) => cell_step(m, c, &cell_fields, &fields),
            Step::Copy(c) => copy_step(c, &fields, simd),
            Step::Map(mp) => map_step(mp, &fields, simd),
            Step::MatMul(mm) => super::product::matmul_step(mm, &fields, simd),
            Step::Dense(d) => {
                let dense = &m.denses[d.dense];
                let n = dense.n;
                // Over windows, `x` holds whole entries of the input (the plan's check held).
                let x_len = dense.input_len(d.rows).unwrap_or(0);
                let x = fields.slice(&d.x, 0, x_len, false);
                let y = fields.slice(&d.dst, 0, d.rows * n, true);
                let ty = ident(&denses[d.dense].0);
                match (denses[d.dense].1, &dense.win) {
                    (Some(_), _) => quote! { #ty::run(#x, #y, &mut self.#work.0); },
                    (None, Some(_)) => quote! { #ty::run(#x, #y); },
                    (None, None) => {
                        let (k, x, y) = (dense.k, fields.place(&d.x, 0, x_len), fields.place(&d.dst, 0, d.rows * n));
                        quote! { #ty::run(#x.as_chunks::<#k>().0, #y.as_chunks_mut::<#n>().0)?; }
                    }
                }
            }
            Step::Softmax(sm) => softmax_step(sm, &fields),
            Step::Reduce(r) => reduce_step(r, &fields),
            Step::Take(t) => take_step(t, &fields),
            Step::TopK(t) => top_k_step(t, &fields),
            Step::Pool(p) => pool_step(p, &fields, simd),
            Step::Rows(r) => rows_step(r, &fields),
            Step::Pick(p) => {
                let name = ident(&field_name(&names.unique(&format!("Pick{picks}"), "Pick")).to_ascii_uppercase());
                picks += 1;
                pick_step(p, &fields, &name, tables)
            }
            Step::Init(i) => {
                let (state, started) = (&fields.states[i.state], &fields.started);
                let len = m.states[i.state].len;
                let src = fields.slice(&i.src, 0, len, false);
                quote! { if !self.#started { self.#state.copy_from_slice(#src); } }
            }
        })
        .collect();
    // After each step, the observer hears its number (a no-op closure in `run`).
    let steps: Vec<TokenStream> = steps.into_iter().enumerate().map(|(k, s)| quote! { #s observe(#k); }).collect();
    let step_rows = m.steps.iter().map(|s| {
        let (text, flops) = (m.step_text(s), m.step_flops(s));
        quote! { (#text, #flops) }
    });
    let check = quote! {
        ::cellc_runtime::__private::check_io(
            Self::INPUTS,
            Self::OUTPUTS,
            #static_batch,
            inputs,
            outputs,
        )?
    };
    let n_out = m.outputs.len();
    let split = quote! {
        // Disjoint borrows of every output; check_io has checked the count.
        let [#(#outs),*] = outputs else {
            return Err(::cellc_runtime::Error::OutputCount { expected: #n_out, got: outputs.len() });
        };
    };
    // One pass over whole tensors needs no loop; rows do.
    let (bind, row_loop) = match (steps.is_empty(), uses_row(m), m.batch) {
        (true, _, _) => (quote! {}, quote! {}),
        (false, false, Batch::Static(1)) => (quote! {}, quote! { #(#steps)* }),
        (false, true, _) => (quote! { let batch = }, quote! { for n in 0..batch { #(#steps)* } }),
        (false, false, _) => (quote! { let batch = }, quote! { for _ in 0..batch { #(#steps)* } }),
    };
    let names = |v: Vec<&str>| format!("{v:?}");
    let weights_doc = if m.run_weights().next().is_some() {
        format!(
            "; the weights {} are given at run time, once, through `cellc_runtime::Model::set_weights`",
            names(m.run_weights().map(|(_, p)| p.name.as_str()).collect())
        )
    } else {
        String::new()
    };
    let held = m.held_in_f32().map_or_else(String::new, |h| format!(" Values {h}."));
    let doc = format!(
        " Model {:?}: Parameters {}, Results {}{weights_doc}. Run it through `cellc_runtime::Model::run`.{held}",
        m.name,
        names(m.run_inputs().map(|(_, p)| p.name.as_str()).collect()),
        names(m.outputs.iter().map(|o| o.name.as_str()).collect()),
    );
    let arrays = arrays_run(m);
    let runtime = !weight_infos.is_empty();
    let all_fields: Vec<_> = cell_fields
        .iter()
        .chain(slot_fields)
        .chain(state_fields)
        .chain(stateful.then_some(&fields.started))
        .chain(runtime.then_some(&fields.weights_set))
        .collect();
    let weights_set = &fields.weights_set;
    let (set_field, set_init, set_check) = if runtime {
        (
            quote! { #weights_set: bool, },
            quote! { #weights_set: false, },
            quote! { if !self.#weights_set { return Err(::cellc_runtime::Error::WeightsNotSet); } },
        )
    } else {
        (quote! {}, quote! {}, quote! {})
    };
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug)]
        pub struct #ty { #(#cell_fields: #types,)* #(#slot_fields: ::cellc_runtime::Aligned<[f32; #slot_lens]>,)* #(#state_fields: [f32; #state_lens],)* #started_field #set_field }
        ::cellc_runtime::__private::impl_zeroed!(#ty { #(#all_fields),* });
        impl #ty {
            /// The model, ready to run.
            pub const fn new() -> Self {
                #ty { #(#cell_fields: #ctors,)* #(#slot_fields: ::cellc_runtime::Aligned([0.0; #slot_lens]),)* #(#state_fields: [0.0; #state_lens],)* #started_init #set_init }
            }
            #reset
            #arrays
        }
        impl ::core::default::Default for #ty {
            fn default() -> Self { Self::new() }
        }
        impl ::cellc_runtime::Model for #ty {
            const INPUTS: &'static [::cellc_runtime::TensorInfo] = &[#(#inputs),*];
            const OUTPUTS: &'static [::cellc_runtime::TensorInfo] = &[#(#outputs),*];
            #weights
            const RUN_STEPS: &'static [(&'static str, u64)] = &[#(#step_rows),*];
            fn run(&mut self, inputs: &[&[f32]], outputs: &mut [&mut [f32]]) -> ::core::result::Result<(), ::cellc_runtime::Error> {
                self.run_observed(inputs, outputs, |_| {})
            }
            // The steps index with strides fixed at compile time; a loop over an index says
            // which stride each operand moves by.
            #[allow(clippy::needless_range_loop)]
            #[inline(always)]
            fn run_observed(
                &mut self,
                inputs: &[&[f32]],
                outputs: &mut [&mut [f32]],
                mut observe: impl FnMut(usize),
            ) -> ::core::result::Result<(), ::cellc_runtime::Error> {
                let _ = &mut observe;
                #set_check
                #bind #check;
                #(#lengths_checks)*
                #split
                #row_loop
                #end_of_run
                Ok(())
            }
            #reset_trait
        }
    }
}

/// `run_arrays`, for a model whose every input and output has one length (a static batch):
/// `run` with each an array of its length, so that a wrong length is a compile error. Its
/// arguments are named after the tensors (snake case, unique).
fn arrays_run(m: &Model) -> Option<TokenStream> {
    let Batch::Static(batch) = m.batch else { return None };
    let len = |shape: &[Dim]| -> Option<usize> {
        shape.iter().try_fold(1usize, |n, d| {
            n.checked_mul(match d {
                Dim::Static(s) => *s,
                Dim::Batch => batch,
            })
        })
    };
    let mut taken = std::collections::BTreeSet::from(["self".to_owned()]);
    let mut arg = |name: &str, fallback: &str| {
        let base = field_name(&type_name(name, fallback));
        let mut a = base.clone();
        let mut k = 2;
        while !taken.insert(a.clone()) {
            a = format!("{base}_{k}");
            k += 1;
        }
        ident(&a)
    };
    let ins: Vec<(proc_macro2::Ident, usize)> =
        m.run_inputs().map(|(_, p)| Some((arg(&p.name, "Input"), len(&p.shape)?))).collect::<Option<_>>()?;
    let outs: Vec<(proc_macro2::Ident, usize)> =
        m.outputs.iter().map(|o| Some((arg(&o.name, "Output"), len(&o.shape)?))).collect::<Option<_>>()?;
    let (in_names, in_lens): (Vec<_>, Vec<_>) = ins.into_iter().unzip();
    let (out_names, out_lens): (Vec<_>, Vec<_>) = outs.into_iter().unzip();
    Some(quote! {
        /// `cellc_runtime::Model::run` with each input and output an array of its length, in
        /// the same order: a wrong length is a compile error rather than an `Error::Length`.
        #[allow(clippy::too_many_arguments)]
        pub fn run_arrays(
            &mut self,
            #(#in_names: &[f32; #in_lens],)*
            #(#out_names: &mut [f32; #out_lens],)*
        ) -> ::core::result::Result<(), ::cellc_runtime::Error> {
            ::cellc_runtime::Model::run(self, &[#(&#in_names[..]),*], &mut [#(&mut #out_names[..]),*])
        }
    })
}

/// A model with weights given at run time: its `WEIGHTS` and the `set_weights` that packs
/// them once into its cells (nothing for a model without).
fn weights_items(
    m: &Model,
    cells: &[CellItem],
    cell_fields: &[proc_macro2::Ident],
    fields: &Fields,
    infos: &[TokenStream],
) -> TokenStream {
    if infos.is_empty() {
        return quote! {};
    }
    let sets = cells.iter().zip(cell_fields).filter(|(c, _)| !c.runtime_args.is_empty()).map(|(c, f)| {
        let args = c.runtime_args.iter().map(|&p| m.arg_index(p));
        quote! { self.#f.set_weights(#(weights[#args]),*)?; }
    });
    let set = &fields.weights_set;
    quote! {
        const WEIGHTS: &'static [::cellc_runtime::TensorInfo] = &[#(#infos),*];
        /// Packs the weights into the model's cells, once: every run after reads the packed
        /// copy. Checks the count and every length first; until it succeeds, `run` errs.
        fn set_weights(&mut self, weights: &[&[f32]]) -> ::core::result::Result<(), ::cellc_runtime::Error> {
            self.#set = false;
            ::cellc_runtime::__private::check_weights(Self::WEIGHTS, weights)?;
            #(#sets)*
            self.#set = true;
            Ok(())
        }
    }
}

/// Whether any step depends on the row: an operand that moves with it, or lengths that
/// differ between rows.
fn uses_row(m: &Model) -> bool {
    let moves = |o: &Operand| o.row_stride != 0;
    m.steps.iter().any(|s| match s {
        Step::Cell(c) => {
            let lengths = match &m.cells[c.cell].seq {
                Some(q) => match &q.lengths {
                    Lengths::Param(_) => true,
                    Lengths::Const(v) => v.len() > 1,
                },
                None => false,
            };
            lengths || moves(&c.x) || moves(&c.h) || c.c.as_ref().is_some_and(moves) || c.out.iter().any(moves)
        }
        Step::Copy(c) => moves(&c.src) || moves(&c.dst),
        Step::Map(mp) => moves(&mp.dst) || mp.args.iter().any(moves),
        Step::MatMul(mm) => moves(&mm.a) || moves(&mm.b) || moves(&mm.dst),
        Step::Dense(d) => moves(&d.x) || moves(&d.dst),
        Step::Softmax(sm) => moves(&sm.src) || moves(&sm.dst),
        Step::Reduce(r) => moves(&r.src) || moves(&r.dst),
        Step::Rows(_) => true,
        Step::Init(i) => moves(&i.src),
        Step::Pick(p) => moves(&p.src) || moves(&p.dst),
        Step::Pool(p) => moves(&p.src) || moves(&p.dst),
        Step::Take(t) => moves(&t.src) || moves(&t.idx) || moves(&t.dst),
        Step::TopK(t) => moves(&t.src) || moves(&t.values) || moves(&t.indices),
    })
}

/// The typed row dimensions of a cell's operands: X, the states, then each output.
fn cell_dims(m: &Model, s: &CellStep) -> (Vec<usize>, Vec<usize>, Vec<Vec<usize>>) {
    let cell = &m.cells[s.cell];
    let (h, i) = (cell.spec.hidden, cell.spec.input);
    match &cell.seq {
        None => (vec![i], vec![h], vec![vec![h]; s.out.len()]),
        Some(q) => {
            let (d, l) = (q.direction.count(), q.steps);
            let mut outs = vec![vec![d, l, h]];
            outs.extend(std::iter::repeat_n(vec![d, h], s.out.len() - 1));
            (vec![l, i], vec![d, h], outs)
        }
    }
}

fn cell_step(m: &Model, s: &CellStep, cell_fields: &[proc_macro2::Ident], f: &Fields) -> TokenStream {
    let field = &cell_fields[s.cell];
    let rows = s.rows;
    let (xd, hd, od) = cell_dims(m, s);
    let view = |o: &Operand, dims: &[usize], mutable: bool| {
        let len = rows * dims.iter().product::<usize>();
        let place = f.place(o, 0, len);
        let t = typed(dims, mutable);
        quote! { #place #t }
    };
    let x = view(&s.x, &xd, false);
    let h = view(&s.h, &hd, false);
    let c = s.c.as_ref().map(|c| view(c, &hd, false));
    let outs: Vec<TokenStream> = s.out.iter().zip(&od).map(|(o, d)| view(o, d, true)).collect();
    let o_names: Vec<_> = (0..outs.len()).map(|k| format_ident!("o{}", k)).collect();
    let states = match &c {
        Some(_) => quote! { &hv[b], &cv[b], },
        None => quote! { &hv[b], },
    };
    let c_bind = c.map(|c| quote! { let cv = #c; });
    let row = if rows == 1 {
        quote! { n }
    } else {
        quote! { n * #rows + b }
    };
    let call = match &m.cells[s.cell].seq {
        None => quote! { self.#field.step(&xv[b], #states #(&mut #o_names[b]),*); },
        Some(q) => {
            let len = match &q.lengths {
                Lengths::Param(p) => {
                    let input = f.input(*p);
                    quote! { #input[#row] as usize }
                }
                Lengths::Const(v) if v.len() == 1 => {
                    let v = v[0];
                    quote! { #v }
                }
                Lengths::Const(v) => quote! { [#(#v),*][#row] },
            };
            // The lengths were checked before the first step: this never errs.
            quote! { self.#field.run(&xv[b], #states #len, #(&mut #o_names[b]),*)?; }
        }
    };
    let run = if rows == 1 {
        quote! { let b = 0; #call }
    } else {
        quote! { for b in 0..#rows { #call } }
    };
    quote! {
        {
            let xv = #x;
            let hv = #h;
            #c_bind
            #(let #o_names = #outs;)*
            #run
        }
    }
}
