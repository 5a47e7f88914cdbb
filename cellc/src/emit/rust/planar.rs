//! A convolution's dense layer run by the planar kernel
//! (`cellc_runtime::__private::kernel::dense_planar_then`): its input and outputs laid out
//! channels first, its weights in groups of outputs, its work area the caller's.
use super::ctx::entry;
use super::lit::{Table, table, windows_value};
use super::names::{field_name, ident};
use crate::emit::dense::{describe, planar_bias, planar_blocks, planar_weights};
use crate::emit::dense_plan::DensePlan;
use crate::emit::plan::Packed;
use crate::ir::steps::MapFn;
use crate::ir::{Dense, DenseAct};
use crate::options::Simd;
use crate::vocab::{Binary, Windows};
use proc_macro2::TokenStream;
use quote::quote;

/// The type of dense layer `d` over windows `w`, named `ty`, and its tables.
pub(super) fn item(
    d: &Dense,
    w: &Windows,
    ty: &str,
    plan: &DensePlan,
    simd: Simd,
    tables: &mut Vec<Table>,
) -> TokenStream {
    let prefix = field_name(ty).to_ascii_uppercase();
    let (w_name, b_name) = (ident(&format!("{prefix}_W")), ident(&format!("{prefix}_B")));
    let (nb, per) = planar_blocks(d);
    let (k, c, groups, m) = (d.k, w.channels, d.groups, d.group_outputs());
    let what = format!("Weights of `{ty}`, in panels of {nb} outputs for the planar kernel.");
    tables.push(table(&w_name.to_string(), &what, Packed::F32(planar_weights(d, plan.store))));
    tables.push(table(&b_name.to_string(), &format!("Bias of `{ty}`, in its panels."), Packed::F32(planar_bias(d))));
    let then = then(d, &prefix, ty, tables);
    let geo = cellc_pack::Planar::of(w);
    let work = geo.and_then(|p| p.work()).unwrap_or(0);
    let (phases, len) = geo.map_or((1, 0), |p| (p.phases, p.len));
    let windows = windows_value(w);
    let doc = format!(
        " {} Run by the planar kernel: its input and outputs laid out channels first, a vector of positions along a row per load, each group's outputs in {per} panel(s) of {nb}.",
        describe(d, plan.tiling, plan.store)
    );
    let sizes = super::dense::sizes("first", w.input_len() * groups, d.n, Some(work));
    let body = entry(simd, |_| quote! { Self::run_at(isa, x, y, work) });
    let ty = ident(ty);
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct #ty;
        impl #ty {
            #sizes
            /// The copy of an entry the kernel reads.
            const GEOMETRY: ::cellc_runtime::__private::kernel::Planar =
                ::cellc_runtime::__private::kernel::Planar { win: #windows, phases: #phases, len: #len };
            /// Writes the outputs of every window of the entries of `x` (`INPUT_SIZE` values
            /// each) to `y` (`OUTPUT_SIZE` a window, laid out channels first), using `work`
            /// (`WORK_SIZE` values or more); writes nothing when `y` does not hold as many
            /// windows as `x` or `work` is shorter.
            pub fn run(x: &[f32], y: &mut [f32], work: &mut [f32]) {
                #body
            }
            #[inline(always)]
            fn run_at<I: ::cellc_runtime::__private::simd::Isa>(isa: I, x: &[f32], y: &mut [f32], work: &mut [f32]) {
                let panels = #w_name.0.as_chunks::<#nb>().0.as_chunks::<#k>().0;
                let bias = #b_name.0.as_chunks::<#nb>().0;
                ::cellc_runtime::__private::kernel::dense_planar_then::<#c, #k, #nb, I, _>(
                    panels, bias, x, y, (#groups, #m), &Self::GEOMETRY, work, isa, #then,
                );
            }
        }
    }
}

/// The closure that maps each run of output `j`'s values as the kernel writes it: the
/// layer's activation (a PReLU's slope `j`), or nothing.
fn then(d: &Dense, prefix: &str, ty: &str, tables: &mut Vec<Table>) -> TokenStream {
    let (v, isa) = (quote! { v }, quote! { isa });
    match &d.act {
        Some(DenseAct::Unary(a)) => {
            let e = super::steps::bare(super::steps::map_expr(MapFn::Unary(*a), std::slice::from_ref(&v), &isa));
            quote! { |_: usize, y: &mut [f32]| { for y in y.iter_mut() { let v: f32 = *y; *y = #e; } } }
        }
        Some(DenseAct::PRelu(s)) => {
            let s_name = ident(&format!("{prefix}_S"));
            let what = format!("Slopes of `{ty}`'s PReLU, one per output.");
            tables.push(table(&s_name.to_string(), &what, Packed::F32(s.clone())));
            let e = super::steps::bare(super::steps::map_expr(
                MapFn::Binary(Binary::PRelu),
                &[v.clone(), quote! { s }],
                &isa,
            ));
            quote! {
                |j: usize, y: &mut [f32]| {
                    let s: f32 = #s_name.0.get(j).copied().unwrap_or(0.0);
                    for y in y.iter_mut() { let v: f32 = *y; *y = #e; }
                }
            }
        }
        None => quote! { |_: usize, _: &mut [f32]| {} },
    }
}
