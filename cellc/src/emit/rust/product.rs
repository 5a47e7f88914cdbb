//! A `MatMul` of two operands the model computes: through the runtime's product kernel
//! (`cellc_runtime::__private::kernel::product`), one call per matrix of the batch, where
//! `b`'s columns are one apart; one sum per output otherwise.
use super::ctx::entry;
use super::fields::Fields;
use super::steps::lin;
use crate::ir::steps::MatMul;
use crate::options::Simd;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The step's code.
pub(super) fn matmul_step(mm: &MatMul, f: &Fields, simd: Simd) -> TokenStream {
    if !mm.by_kernel() {
        return loops(mm, f);
    }
    let spans = |k: usize, last: usize| -> usize {
        mm.batch.iter().map(|a| a[0].saturating_sub(1) * a[k]).sum::<usize>() + last
    };
    let span = |axes: &[(usize, usize)]| axes.iter().map(|&(c, s)| c.saturating_sub(1) * s).sum::<usize>() + 1;
    let (m, k, n, [a0, a1], kb, dr) = (mm.m, mm.k, mm.n, mm.a_strides, mm.b_strides[0], mm.dst_row);
    let a = f.slice(&mm.a, 0, spans(1, span(&[(m, a0), (k, a1)])), false);
    let b = f.slice(&mm.b, 0, spans(2, span(&[(k, kb), (n, 1)])), false);
    let d = f.slice(&mm.dst, 0, spans(3, span(&[(m, dr), (n, 1)])), true);
    let live: Vec<(proc_macro2::Ident, [usize; 4])> =
        mm.batch.iter().enumerate().filter(|(_, a)| a[0] > 1).map(|(k, a)| (format_ident!("i{}", k), *a)).collect();
    let at = |k: usize| lin(&live.iter().map(|(v, a)| (v.clone(), a[k])).collect::<Vec<_>>());
    let (ia, ib, id) = (at(1), at(2), at(3));
    let call = quote! {
        ::cellc_runtime::__private::kernel::product(
            &P,
            a.get(#ia..).unwrap_or_default(),
            b.get(#ib..).unwrap_or_default(),
            dst.get_mut(#id..).unwrap_or_default(),
            isa,
        )
    };
    let nest = live.iter().rev().fold(call, |inner, (v, a)| {
        let c = a[0];
        quote! { for #v in 0..#c { #inner } }
    });
    let body = entry(simd, |_| quote! { #nest });
    quote! {
        {
            const P: ::cellc_runtime::__private::kernel::Product = ::cellc_runtime::__private::kernel::Product {
                m: #m, k: #k, n: #n, a: [#a0, #a1], b_row: #kb, dst_row: #dr,
            };
            let a = #a;
            let b = #b;
            let dst = #d;
            #body
        }
    }
}

/// A product of `b`'s columns strided (a transposed run-time operand): one sum per output.
fn loops(mm: &MatMul, f: &Fields) -> TokenStream {
    // Every output axis: its count and the strides of a, b and dst along it.
    let mut axes: Vec<[usize; 4]> = mm.batch.clone();
    axes.push([mm.m, mm.a_strides[0], 0, mm.dst_row]);
    axes.push([mm.n, 0, mm.b_strides[1], 1]);
    let spans = |k: usize, extra: usize| -> usize {
        axes.iter().map(|a| a[0].saturating_sub(1) * a[k]).sum::<usize>() + extra + 1
    };
    let (ka, kb) = (mm.a_strides[1], mm.b_strides[0]);
    let kk = mm.k;
    let a = f.slice(&mm.a, 0, spans(1, (kk - 1) * ka), false);
    let b = f.slice(&mm.b, 0, spans(2, (kk - 1) * kb), false);
    let d = f.slice(&mm.dst, 0, spans(3, 0), true);
    let live: Vec<(proc_macro2::Ident, [usize; 4])> =
        axes.iter().enumerate().filter(|(_, a)| a[0] > 1).map(|(k, a)| (format_ident!("i{}", k), *a)).collect();
    let q = format_ident!("q");
    let by = |k: usize, extra: Option<usize>| -> TokenStream {
        let mut t: Vec<(proc_macro2::Ident, usize)> = live.iter().map(|(v, a)| (v.clone(), a[k])).collect();
        if let Some(s) = extra {
            t.push((q.clone(), s));
        }
        lin(&t)
    };
    let (ia, ib, id) = (by(1, Some(ka)), by(2, Some(kb)), by(3, None));
    let counts: Vec<usize> = live.iter().map(|(_, a)| a[0]).collect();
    let body = quote! {
        let mut acc = 0.0f32;
        for q in 0..#kk { acc += a[#ia] * b[#ib]; }
        dst[#id] = acc;
    };
    let loops = live.iter().zip(&counts).rev().fold(body, |inner, ((v, _), c)| quote! { for #v in 0..#c { #inner } });
    quote! { { let a = #a; let b = #b; let dst = #d; #loops } }
}
