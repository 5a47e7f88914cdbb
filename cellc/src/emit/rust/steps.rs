//! The code of the steps around the cells: strided copies, elementwise maps, matrix
//! products, softmaxes and row gathers, as loops over indices fixed at compile time; pools
//! over windows read in place, by the runtime's kernel.
use super::fields::Fields;
use super::lit::{Table, Values, table};
use crate::emit::runs::GatherForm;
use crate::ir::steps::{Arg, Copy, Map, MapFn, Pick, Pool, Reduce, RowCopy, Softmax, Take, TopK, Transposed};
use crate::ir::{Home, Operand};
use crate::ops::{Binary, Compare, ReduceKind, Unary};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// Nested loops over `axes` (counts), the innermost body given the index variables.
fn nest(counts: &[usize], body: TokenStream) -> TokenStream {
    counts.iter().enumerate().rev().fold(body, |inner, (k, &c)| {
        let i = format_ident!("i{}", k);
        quote! { for #i in 0..#c { #inner } }
    })
}

/// `i0·s0 + i1·s1 + …` (0 when there are no axes).
fn index(strides: &[usize]) -> TokenStream {
    let terms: Vec<(proc_macro2::Ident, usize)> =
        strides.iter().enumerate().map(|(k, &s)| (format_ident!("i{}", k), s)).collect();
    lin(&terms)
}

/// How many values from an operand's start a nest of axes touches.
fn span(counts: &[usize], strides: &[usize]) -> usize {
    counts.iter().zip(strides).map(|(c, s)| c.saturating_sub(1) * s).sum::<usize>() + 1
}

pub(super) fn copy_step(c: &Copy, f: &Fields, simd: crate::options::Simd) -> TokenStream {
    if let Some(t) = c.transposed() {
        return transpose_step(c, &t, f, simd);
    }
    // Axes of one element (a scalar's) take no loop.
    let axes: Vec<[usize; 3]> = c.axes.iter().copied().filter(|a| a[0] != 1).collect();
    let counts: Vec<usize> = axes.iter().map(|a| a[0]).collect();
    let ss: Vec<usize> = axes.iter().map(|a| a[1]).collect();
    let ds: Vec<usize> = axes.iter().map(|a| a[2]).collect();
    // A contiguous innermost axis is copied as a block.
    let block = match axes.last() {
        Some(&[n, 1, 1]) => n,
        _ => 1,
    };
    let outer = if block > 1 { axes.len() - 1 } else { axes.len() };
    let (sl, dl) = (span(&counts, &ss), span(&counts, &ds));
    let src = f.slice(&c.src, 0, sl, false);
    let dst = f.slice(&c.dst, 0, dl, true);
    let (si, di) = (index(&ss[..outer]), index(&ds[..outer]));
    // A block at index 0 (an operand broadcast along every outer axis) is `..block`: clippy
    // refuses `0..0 + block`.
    let run = |strides: &[usize], i: &TokenStream| {
        if strides.iter().all(|&s| s == 0) {
            quote! { ..#block }
        } else {
            quote! { #i..#i + #block }
        }
    };
    let (sr, dr) = (run(&ss[..outer], &si), run(&ds[..outer], &di));
    let body = match (block > 1, outer) {
        (true, 0) => quote! { dst.copy_from_slice(src); },
        (true, _) => quote! { dst[#dr].copy_from_slice(&src[#sr]); },
        (false, _) => quote! { dst[#di] = src[#si]; },
    };
    let loops = nest(&counts[..outer], body);
    quote! { { let src = #src; let dst = #dst; #loops } }
}

/// A copy that is a transpose, by the runtime's kernel: once for each index of the outer
/// axes.
fn transpose_step(c: &Copy, t: &Transposed, f: &Fields, simd: crate::options::Simd) -> TokenStream {
    let outer: Vec<[usize; 3]> = t.outer.iter().copied().filter(|a| a[0] != 1).collect();
    let counts: Vec<usize> = outer.iter().map(|a| a[0]).collect();
    let ss: Vec<usize> = outer.iter().map(|a| a[1]).collect();
    let ds: Vec<usize> = outer.iter().map(|a| a[2]).collect();
    let (m, n, rs, rd) = (t.m, t.n, t.ss, t.ds);
    let sl = span(&counts, &ss) + (m - 1) * rs + n - 1;
    let dl = span(&counts, &ds) + (n - 1) * rd + m - 1;
    let src = f.slice(&c.src, 0, sl, false);
    let dst = f.slice(&c.dst, 0, dl, true);
    // The whole of `src` or `dst` is passed as itself (clippy's `redundant_slicing`).
    let si = if ss.iter().all(|&s| s == 0) {
        quote! { src }
    } else {
        let i = index(&ss);
        quote! { &src[#i..] }
    };
    let di = if ds.iter().all(|&s| s == 0) {
        quote! { &mut *dst }
    } else {
        let i = index(&ds);
        quote! { &mut dst[#i..] }
    };
    let one = quote! { ::cellc_runtime::__private::kernel::transpose(#si, #di, (#m, #n), (#rs, #rd), isa) };
    // One call is the expression itself; calls in loops are the loops'.
    let call = if counts.is_empty() { one } else { nest(&counts, quote! { #one; }) };
    let call = super::ctx::entry(simd, |_| call.clone());
    quote! {
        {
            let src = #src;
            let dst = #dst;
            #call
        }
    }
}

/// A gather by a table baked in as a static, `name`, pushed onto `tables`: each value of an
/// entry is the source value the table names, or the fill value; written in the form the
/// plan gives it ([`GatherForm`]): run by run (each run its own copy, or from a static of
/// three values a run), the fill then the values taken (a static of pairs), or value by
/// value from the table.
pub(super) fn pick_step(p: &Pick, f: &Fields, name: &Ident, tables: &mut Vec<Table>) -> TokenStream {
    let (n, reach) = (p.table.len(), p.src_reach());
    let last = p.entries.saturating_sub(1);
    let src = f.slice(&p.src, 0, last * p.src_stride + reach, false);
    let dst = f.slice(&p.dst, 0, last * p.dst_stride + n, true);
    let fill = super::lit::f32_tokens(p.fill);
    // `Pick::NONE`, as a reader knows it.
    const _: () = assert!(Pick::NONE == u32::MAX);
    let none = quote! { u32::MAX };
    let (ss, ds) = (p.src_stride, p.dst_stride);
    let entries = p.entries;
    // The loop over entries, `body` seeing the entry's `src` (when `reads`) and `dst`.
    let entries_loop = |reads: bool, body: TokenStream| {
        if reads {
            quote! {
                {
                    let src = #src;
                    let dst = #dst;
                    for e in 0..#entries {
                        let (src, dst) = (&src[e * #ss..], &mut dst[e * #ds..e * #ds + #n]);
                        #body
                    }
                }
            }
        } else {
            quote! {
                {
                    let dst = #dst;
                    for e in 0..#entries {
                        let dst = &mut dst[e * #ds..e * #ds + #n];
                        #body
                    }
                }
            }
        }
    };
    let at = proc_macro2::Literal::usize_unsuffixed;
    match GatherForm::of(&p.table) {
        GatherForm::InlineRuns(runs) => {
            let reads = runs.iter().any(|r| r[1] != Pick::NONE);
            let copies = runs.iter().map(|&[d, s, len]| {
                let (d, s, len) = (d as usize, s as usize, len as usize);
                let (d0, d1) = (at(d), at(d + len));
                if s == Pick::NONE as usize {
                    quote! { dst[#d0..#d1].fill(#fill); }
                } else {
                    let (s0, s1) = (at(s), at(s + len));
                    quote! { dst[#d0..#d1].copy_from_slice(&src[#s0..#s1]); }
                }
            });
            return entries_loop(reads, quote! { #(#copies)* });
        }
        GatherForm::Runs(runs) => {
            let doc = format!(
                "A gather's runs, three values each: where in the entry of {n} values a run starts, where \
                 in the source (`u32::MAX`: the fill value), and its length."
            );
            tables.push(table(&name.to_string(), &doc, Values::Index(runs.concat())));
            return entries_loop(
                true,
                quote! {
                    for &[d, s, len] in #name.0.as_chunks::<3>().0 {
                        let out = &mut dst[d as usize..d as usize + len as usize];
                        if s == #none {
                            out.fill(#fill);
                        } else {
                            out.copy_from_slice(&src[s as usize..s as usize + len as usize]);
                        }
                    }
                },
            );
        }
        GatherForm::FillThenPairs(pairs) => {
            if pairs.is_empty() {
                return entries_loop(false, quote! { dst.fill(#fill); });
            }
            let doc = format!(
                "A gather's values taken after its fill, two values each: where in the entry of {n} \
                 values, and where in the source."
            );
            tables.push(table(&name.to_string(), &doc, Values::Index(pairs.concat())));
            return entries_loop(
                true,
                quote! {
                    dst.fill(#fill);
                    for &[d, s] in #name.0.as_chunks::<2>().0 {
                        dst[d as usize] = src[s as usize];
                    }
                },
            );
        }
        GatherForm::Table => {}
    }
    let doc =
        format!("A gather's table: the source of each of the {n} values of an entry (`u32::MAX`: the fill value).");
    tables.push(table(&name.to_string(), &doc, Values::Index(p.table.clone())));
    let take = if p.fills() {
        quote! { *d = if i == #none { #fill } else { src[i as usize] }; }
    } else {
        quote! { *d = src[i as usize]; }
    };
    let body = if p.entries == 1 {
        quote! { for (d, &i) in dst.iter_mut().zip(#name.0.iter()) { #take } }
    } else {
        quote! {
            for e in 0..#entries {
                let src = &src[e * #ss..];
                for (d, &i) in dst[e * #ds..e * #ds + #n].iter_mut().zip(#name.0.iter()) { #take }
            }
        }
    };
    quote! { { let src = #src; let dst = #dst; #body } }
}

/// The f32 expression of an elementwise function of `args`, computed at the vector level
/// `isa` (an expression of a `cellc_runtime::__private::simd::Isa` token).
pub(super) fn map_expr(fun: MapFn, args: &[TokenStream], isa: &TokenStream) -> TokenStream {
    let a = &args[0];
    match fun {
        MapFn::Unary(u) => match u {
            Unary::Relu => quote! { ::cellc_runtime::act::relu(#a) },
            Unary::Sigmoid => quote! { ::cellc_runtime::act::sigmoid(#isa, #a) },
            Unary::Tanh => quote! { ::cellc_runtime::act::tanh(#isa, #a) },
            Unary::Exp => quote! { ::cellc_runtime::act::exp(#isa, #a) },
            Unary::Abs => quote! { (#a).abs() },
            Unary::Negative => quote! { -#a },
            Unary::Clamp { min, max } => {
                let (lo, hi) = (super::lit::f32_tokens(min as f32), super::lit::f32_tokens(max as f32));
                quote! { ::cellc_runtime::__private::math::clamp(#a, #lo, #hi) }
            }
            Unary::Elu { alpha } => {
                let al = super::lit::f32_tokens(alpha as f32);
                quote! { ::cellc_runtime::act::elu(#isa, #a, #al) }
            }
            Unary::SoftPlus => quote! { ::cellc_runtime::act::softplus(#isa, #a) },
            Unary::SoftSign => quote! { ::cellc_runtime::act::softsign(#a) },
            Unary::Log => quote! { ::cellc_runtime::__private::math::ln(#a) },
            Unary::Sqrt => quote! { ::cellc_runtime::__private::math::sqrt(#a) },
            Unary::Floor => quote! { ::cellc_runtime::__private::math::floor(#a) },
            Unary::Ceiling => quote! { ::cellc_runtime::__private::math::ceil(#a) },
            Unary::Sign => quote! { ::cellc_runtime::__private::math::sign(#a) },
            Unary::LogicalNot => quote! { (if #a == 0.0 { 1.0f32 } else { 0.0f32 }) },
            Unary::HSigmoid => quote! { ::cellc_runtime::__private::math::hsigmoid(#a) },
            Unary::HSwish => quote! { ::cellc_runtime::__private::math::hswish(#a) },
            Unary::Swish { beta } => {
                let b = super::lit::f32_tokens(beta as f32);
                quote! { ::cellc_runtime::__private::math::swish(#isa, #a, #b) }
            }
            Unary::HardSigmoid { alpha, beta } => {
                let (al, be) = (super::lit::f32_tokens(alpha as f32), super::lit::f32_tokens(beta as f32));
                quote! { ::cellc_runtime::act::hardsigmoid(#a, #al, #be) }
            }
            Unary::Selu { alpha, lambda } => {
                let (al, la) = (super::lit::f32_tokens(alpha as f32), super::lit::f32_tokens(lambda as f32));
                quote! { (#la * ::cellc_runtime::act::elu(#isa, #a, #al)) }
            }
            Unary::Mish => quote! { ::cellc_runtime::__private::math::mish(#isa, #a) },
            Unary::Math(f) => {
                let f = quote::format_ident!("{}", f.name());
                quote! { ::cellc_runtime::__private::math::#f(#a) }
            }
            Unary::Gelu { tanh: false } => quote! { ::cellc_runtime::__private::math::gelu(#a) },
            Unary::Gelu { tanh: true } => quote! { ::cellc_runtime::__private::math::gelu_tanh(#isa, #a) },
            Unary::Trunc => quote! { ::cellc_runtime::__private::math::trunc(#a) },
            Unary::Round { even: true } => quote! { ::cellc_runtime::__private::math::round_even(#a) },
            Unary::Round { even: false } => quote! { ::cellc_runtime::__private::math::round(#a) },
        },
        MapFn::Binary(bf) => {
            let b = &args[1];
            match bf {
                Binary::Add => quote! { #a + #b },
                Binary::Subtract => quote! { #a - #b },
                Binary::Multiply => quote! { #a * #b },
                Binary::Divide { .. } => quote! { #a / #b },
                Binary::Maximum => quote! { (#a).max(#b) },
                Binary::Minimum => quote! { (#a).min(#b) },
                Binary::SquaredDifference => quote! { (#a - #b) * (#a - #b) },
                // A product by 1 or the slope (exact: `a·1 = a`), not a choice between `a`
                // and `a·b`: mapped in place, the choice became a store of the negative
                // values alone, which LLVM vectorises as masked stores (`vmaskmovps`, slow
                // on AMD: PLCMOS's Rust 5 % faster without them, Zen 3).
                Binary::PRelu => quote! { (#a * if #a >= 0.0 { 1.0f32 } else { #b }) },
                Binary::Power => quote! { ::cellc_runtime::__private::math::pow(#a, #b) },
                Binary::LogicalAnd => quote! { (if #a != 0.0 && #b != 0.0 { 1.0f32 } else { 0.0f32 }) },
                Binary::LogicalOr => quote! { (if #a != 0.0 || #b != 0.0 { 1.0f32 } else { 0.0f32 }) },
                Binary::LogicalXor => quote! { (if (#a != 0.0) != (#b != 0.0) { 1.0f32 } else { 0.0f32 }) },
                Binary::Mod { fmod: true } => quote! { ::cellc_runtime::__private::math::fmod(#a, #b) },
                Binary::Mod { fmod: false } => quote! { ::cellc_runtime::__private::math::floor_mod(#a, #b) },
            }
        }
        MapFn::Compare(c) => {
            let b = &args[1];
            let cmp = match c {
                Compare::Equal => quote! { #a == #b },
                Compare::NotEqual => quote! { #a != #b },
                Compare::Less => quote! { #a < #b },
                Compare::LessEqual => quote! { #a <= #b },
                Compare::Greater => quote! { #a > #b },
                Compare::GreaterEqual => quote! { #a >= #b },
            };
            quote! { (if #cmp { 1.0f32 } else { 0.0f32 }) }
        }
        MapFn::Select => {
            let (b, c) = (&args[1], &args[2]);
            quote! { (if #a != 0.0 { #b } else { #c }) }
        }
    }
}

/// An expression without the parentheses around the whole of it (which `map_expr` writes
/// so it can be nested, and which a statement does not need).
pub(super) fn bare(e: TokenStream) -> TokenStream {
    let mut it = e.clone().into_iter();
    match (it.next(), it.next()) {
        (Some(proc_macro2::TokenTree::Group(g)), None) if g.delimiter() == proc_macro2::Delimiter::Parenthesis => {
            g.stream()
        }
        _ => e,
    }
}

/// Values a chain needs before its loop is compiled at each vector level and picked at run
/// time (see [`wider_pays`]): below it, the call through the level costs more than the wider
/// vectors save.
const DISPATCHED_MAP_VALUES: usize = 64;

/// Whether a loop computing `f` runs faster in wider vectors than the build's (SSE2 on a
/// baseline x86-64 build): the functions computed by polynomials, divisions and square
/// roots, which keep the vector units busy. Loads, stores, adds and selects are bound by
/// memory, and libm's functions are calls per value at any level; their loops stay as
/// built. Wider vectors change no bits here: the chains compute at the portable level's
/// operations, unfused.
fn wider_pays(f: MapFn) -> bool {
    match f {
        MapFn::Unary(u) => match u {
            Unary::Sigmoid
            | Unary::Tanh
            | Unary::Exp
            | Unary::Log
            | Unary::Sqrt
            | Unary::Elu { .. }
            | Unary::SoftPlus
            | Unary::SoftSign
            | Unary::Swish { .. }
            | Unary::Selu { .. }
            | Unary::Mish
            | Unary::Gelu { tanh: true } => true,
            Unary::Relu
            | Unary::Abs
            | Unary::Negative
            | Unary::Floor
            | Unary::Ceiling
            | Unary::Clamp { .. }
            | Unary::HSigmoid
            | Unary::HSwish
            | Unary::HardSigmoid { .. }
            | Unary::Sign
            | Unary::LogicalNot
            | Unary::Math(_)
            | Unary::Trunc
            | Unary::Gelu { tanh: false }
            | Unary::Round { .. } => false,
        },
        MapFn::Binary(b) => matches!(b, Binary::Divide { .. }),
        MapFn::Compare(_) | MapFn::Select => false,
    }
}

pub(super) fn map_step(mp: &Map, f: &Fields, simd: crate::options::Simd) -> TokenStream {
    // Axes of one element (a scalar's) take no loop.
    let axes: Vec<&Vec<usize>> = mp.axes.iter().filter(|a| a[0] != 1).collect();
    let counts: Vec<usize> = axes.iter().map(|a| a[0]).collect();
    let stride = |k: usize| -> Vec<usize> { axes.iter().map(|a| a[k]).collect() };
    let ds = stride(1);
    let dst = f.slice(&mp.dst, 0, span(&counts, &ds), true);
    let names: Vec<_> = (0..mp.args.len()).map(|k| format_ident!("a{}", k)).collect();
    let binds = mp.args.iter().zip(&names).enumerate().map(|(k, (a, v))| {
        let s = f.slice(a, 0, span(&counts, &stride(k + 2)), false);
        quote! { let #v = #s; }
    });
    let reads: Vec<TokenStream> = names
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let i = index(&stride(k + 2));
            quote! { #v[#i] }
        })
        .collect();
    let isa = quote! { ::cellc_runtime::__private::simd::Portable };
    let temps: Vec<_> = (0..mp.f.instrs.len()).map(|j| format_ident!("t{}", j)).collect();
    let mut body = TokenStream::new();
    for (j, instr) in mp.f.instrs.iter().enumerate() {
        let args: Vec<TokenStream> = instr
            .args
            .iter()
            .map(|a| match *a {
                Arg::Input(k) => reads.get(k).cloned().unwrap_or_default(),
                Arg::Temp(i) => {
                    let t = &temps[i];
                    quote! { #t }
                }
            })
            .collect();
        let e = bare(map_expr(instr.f, &args, &isa));
        let t = &temps[j];
        body.extend(quote! { let #t: f32 = #e; });
    }
    let di = index(&ds);
    let last = temps.last();
    let loops = nest(&counts, quote! { #body dst[#di] = #last; });
    let values: usize = counts.iter().product();
    if simd == crate::options::Simd::Dispatch
        && values >= DISPATCHED_MAP_VALUES
        && mp.f.instrs.iter().any(|i| wider_pays(i.f))
    {
        // The loops in a function of their own, so that they read as code and the call
        // through the level stays one line.
        // Each slice is cut to its length again inside, a check apiece, since the lengths
        // known at the call do not cross into the level's function.
        let k = names.len();
        let spans = (0..k).map(|j| span(&counts, &stride(j + 2)));
        let dspan = span(&counts, &ds);
        let call = super::ctx::at_level(simd, quote! { map([#(#names),*], dst) });
        return quote! {
            {
                #(#binds)*
                let dst = #dst;
                #[inline(always)]
                fn map([#(#names),*]: [&[f32]; #k], dst: &mut [f32]) {
                    #(let #names = &#names[..#spans];)*
                    let dst = &mut dst[..#dspan];
                    #loops
                }
                #call
            }
        };
    }
    quote! { { #(#binds)* let dst = #dst; #loops } }
}

/// `v₀·s₀ + v₁·s₁ + …` over named variables, terms of stride 0 left out, `·1` not written.
pub(super) fn lin(terms: &[(proc_macro2::Ident, usize)]) -> TokenStream {
    let parts: Vec<TokenStream> = terms
        .iter()
        .filter(|(_, s)| *s != 0)
        .map(|(v, s)| {
            if *s == 1 {
                quote! { #v }
            } else {
                quote! { #v * #s }
            }
        })
        .collect();
    if parts.is_empty() {
        quote! { 0 }
    } else {
        quote! { #(#parts)+* }
    }
}

pub(super) fn softmax_step(sm: &Softmax, f: &Fields) -> TokenStream {
    let outer = crate::ir::steps::simplify_axes(sm.outer.iter().map(|a| a.to_vec()).collect(), 2);
    let live: Vec<(proc_macro2::Ident, usize, usize)> = outer
        .iter()
        .enumerate()
        .filter(|(_, a)| a[0] > 1)
        .map(|(k, a)| (format_ident!("i{}", k), a[0], a[1]))
        .collect();
    let n_vals = outer.iter().map(|a| a[0].saturating_sub(1) * a[1]).sum::<usize>() + (sm.len - 1) * sm.stride + 1;
    let src = f.slice(&sm.src, 0, n_vals, false);
    let dst = f.slice(&sm.dst, 0, n_vals, true);
    let q = format_ident!("q");
    let mut terms: Vec<(proc_macro2::Ident, usize)> = live.iter().map(|(v, _, s)| (v.clone(), *s)).collect();
    terms.push((q, sm.stride));
    let at = lin(&terms);
    let first = lin(&terms[..terms.len() - 1]);
    let len = sm.len;
    let isa = quote! { ::cellc_runtime::__private::simd::Portable };
    let last = if sm.log {
        quote! { let ls = ::cellc_runtime::__private::math::ln(sum); for q in 0..#len { dst[#at] = (src[#at] - max) - ls; } }
    } else {
        quote! { for q in 0..#len { dst[#at] /= sum; } }
    };
    let body = quote! {
        let mut max = src[#first];
        for q in 1..#len { if src[#at] > max { max = src[#at]; } }
        let mut sum = 0.0f32;
        for q in 0..#len {
            let e = ::cellc_runtime::act::exp(#isa, src[#at] - max);
            dst[#at] = e;
            sum += e;
        }
        #last
    };
    let loops = live.iter().rev().fold(body, |inner, (v, c, _)| quote! { for #v in 0..#c { #inner } });
    quote! { { let src = #src; let dst = #dst; #loops } }
}

pub(super) fn rows_step(r: &RowCopy, f: &Fields) -> TokenStream {
    let (outer, inner) = (r.outer, r.inner);
    // A whole Parameter or Result (row `n` is addressed below), or the row buffer.
    let whole = |o: &Operand, mutable: bool| -> TokenStream {
        match (o.home, mutable) {
            (Home::Param(i), _) => f.input(i),
            (Home::Output(k), false) => {
                let v = format_ident!("out{}", k);
                quote! { &*#v }
            }
            (Home::Output(k), true) => {
                let v = format_ident!("out{}", k);
                quote! { &mut *#v }
            }
            _ => f.slice(o, 0, outer * inner, mutable),
        }
    };
    let (src, dst) = (whole(&r.src, false), whole(&r.dst, true));
    let (si, di) = if r.into_row {
        (quote! { (o * batch + n) * #inner }, quote! { o * #inner })
    } else {
        (quote! { o * #inner }, quote! { (o * batch + n) * #inner })
    };
    quote! {
        {
            let src = #src;
            let dst = #dst;
            for o in 0..#outer {
                let (s, d) = (#si, #di);
                dst[d..d + #inner].copy_from_slice(&src[s..s + #inner]);
            }
        }
    }
}

pub(super) fn reduce_step(r: &Reduce, f: &Fields) -> TokenStream {
    let (oc, os, od): (Vec<usize>, Vec<usize>, Vec<usize>) = (
        r.outer.iter().map(|a| a[0]).collect(),
        r.outer.iter().map(|a| a[1]).collect(),
        r.outer.iter().map(|a| a[2]).collect(),
    );
    let (ic, is): (Vec<usize>, Vec<usize>) =
        (r.inner.iter().map(|a| a[0]).collect(), r.inner.iter().map(|a| a[1]).collect());
    let src_len = span(&oc, &os) + span(&ic, &is) - 1;
    let src = f.slice(&r.src, 0, src_len, false);
    let dst = f.slice(&r.dst, 0, span(&oc, &od), true);
    // Outer indices are o0, o1, …; inner ones i0, i1, ….
    let named = |p: &str, strides: &[usize]| -> Vec<(proc_macro2::Ident, usize)> {
        strides.iter().enumerate().map(|(k, &s)| (format_ident!("{}{}", p, k), s)).collect()
    };
    let at = lin(&[named("o", &os), named("i", &is)].concat());
    let di = lin(&named("o", &od));
    let n = ic.iter().product::<usize>() as f32;
    let (init, step, fin) = match r.kind {
        ReduceKind::Sum => (quote! { 0.0f32 }, quote! { acc += v; }, quote! { acc }),
        ReduceKind::Mean => (quote! { 0.0f32 }, quote! { acc += v; }, quote! { acc / #n }),
        ReduceKind::Prod => (quote! { 1.0f32 }, quote! { acc *= v; }, quote! { acc }),
        ReduceKind::Max => (quote! { f32::NEG_INFINITY }, quote! { if v > acc { acc = v; } }, quote! { acc }),
        ReduceKind::Min => (quote! { f32::INFINITY }, quote! { if v < acc { acc = v; } }, quote! { acc }),
        ReduceKind::L1 => (quote! { 0.0f32 }, quote! { acc += v.abs(); }, quote! { acc }),
        ReduceKind::L2 => {
            (quote! { 0.0f32 }, quote! { acc += v * v; }, quote! { ::cellc_runtime::__private::math::sqrt(acc) })
        }
        // The index, counted as the values go by (`k`), of the first (or last) extreme.
        ReduceKind::Arg { max, last } => {
            let better = match (max, last) {
                (true, false) => quote! { v > acc },
                (true, true) => quote! { v >= acc },
                (false, false) => quote! { v < acc },
                (false, true) => quote! { v <= acc },
            };
            let init = if max {
                quote! { f32::NEG_INFINITY }
            } else {
                quote! { f32::INFINITY }
            };
            (init, quote! { if #better || k == 0 { acc = v; at = k; } k += 1; }, quote! { at as f32 })
        }
    };
    let counted = matches!(r.kind, ReduceKind::Arg { .. }).then(|| quote! { let (mut k, mut at) = (0usize, 0usize); });
    // An index no stride reads (an axis of one value, or broadcast) is not named.
    let loops = |p: &str, counts: &[usize], used: &dyn Fn(usize) -> bool, body: TokenStream| {
        counts.iter().enumerate().rev().fold(body, |inner, (k, &c)| {
            let i = if used(k) { format_ident!("{}{}", p, k) } else { format_ident!("_") };
            quote! { for #i in 0..#c { #inner } }
        })
    };
    if let Some(len) = r.across_rows() {
        // A row of outputs at a time (see `Reduce::across_rows`): the last kept axis is
        // the row's, so the others index its start.
        let k = oc.len() - 1;
        let start = |terms: &[(proc_macro2::Ident, usize)]| {
            if terms.iter().all(|(_, s)| *s == 0) {
                quote! { ..#len }
            } else {
                let at = lin(terms);
                quote! { #at..#at + #len }
            }
        };
        let (at, di) = (start(&[named("o", &os[..k]), named("i", &is)].concat()), start(&named("o", &od[..k])));
        let inner = loops(
            "i",
            &ic,
            &|k| is[k] != 0,
            quote! {
                for (a, &v) in row.iter_mut().zip(&src[#at]) { let mut acc = *a; #step *a = acc; }
            },
        );
        let fin = matches!(r.kind, ReduceKind::Mean | ReduceKind::L2).then(|| {
            quote! { for a in row.iter_mut() { let acc = *a; *a = #fin; } }
        });
        let body = quote! {
            let row = &mut dst[#di];
            row.fill(#init);
            #inner
            #fin
        };
        let outer = loops("o", &oc[..k], &|k| os[k] != 0 || od[k] != 0, body);
        return quote! { { let src = #src; let dst = #dst; #outer } };
    }
    let inner = loops("i", &ic, &|k| is[k] != 0, quote! { let v = src[#at]; #step });
    let body = quote! {
        let mut acc: f32 = #init;
        #counted
        #inner
        dst[#di] = #fin;
    };
    let outer = loops("o", &oc, &|k| os[k] != 0 || od[k] != 0, body);
    quote! { { let src = #src; let dst = #dst; #outer } }
}

/// `v · s`, without the multiplication by 1 (which clippy calls an operation without effect).
fn times(v: TokenStream, s: usize) -> TokenStream {
    if s == 1 {
        v
    } else {
        quote! { #v * #s }
    }
}

/// A gather by indices computed at run time: each index read, brought into the axis by
/// `cellc_runtime`'s `take_index` (the clamp `Take::position` defines), then the value.
pub(super) fn take_step(t: &Take, f: &Fields) -> TokenStream {
    let col = |k: usize| -> Vec<usize> { t.axes.iter().map(|a| a[k]).collect() };
    let (counts, ss, xs, ds) = (col(0), col(1), col(2), col(3));
    let src = f.slice(&t.src, 0, span(&counts, &ss) + (t.len - 1) * t.stride, false);
    let idx = f.slice(&t.idx, 0, span(&counts, &xs), false);
    let dst = f.slice(&t.dst, 0, span(&counts, &ds), true);
    let named = |strides: &[usize]| -> Vec<(proc_macro2::Ident, usize)> {
        strides.iter().enumerate().map(|(k, &s)| (format_ident!("o{}", k), s)).collect()
    };
    let (si, xi, di) = (lin(&named(&ss)), lin(&named(&xs)), lin(&named(&ds)));
    let len = t.len;
    let at = times(quote! { p }, t.stride);
    // Without a source offset (no axis moves it), the position alone (clippy: no `0 + p`).
    let from = if ss.iter().all(|&s| s == 0) {
        at
    } else {
        quote! { #si + #at }
    };
    let body = quote! {
        let p = ::cellc_runtime::__private::math::take_index(idx[#xi], #len);
        dst[#di] = src[#from];
    };
    let nest = counts.iter().enumerate().rev().fold(body, |inner, (k, &c)| {
        let used = ss[k] != 0 || xs[k] != 0 || ds[k] != 0;
        let i = if used { format_ident!("o{}", k) } else { format_ident!("_") };
        quote! { for #i in 0..#c { #inner } }
    });
    quote! { { let src = #src; let idx = #idx; let dst = #dst; #nest } }
}

/// The `k` extreme values along an axis: `k` passes over it, each taking the first value
/// after the one before in `TopK::before`'s order (`cellc_runtime`'s `top_k_before`), their
/// indices kept in an array while the values are written, then written.
pub(super) fn top_k_step(t: &TopK, f: &Fields) -> TokenStream {
    let col = |k: usize| -> Vec<usize> { t.outer.iter().map(|a| a[k]).collect() };
    let (counts, ss, ds) = (col(0), col(1), col(2));
    let src = f.slice(&t.src, 0, span(&counts, &ss) + (t.len - 1) * t.stride, false);
    let dst_len = span(&counts, &ds) + (t.k - 1) * t.dst_stride;
    let (vals, idxs) = (f.slice(&t.values, 0, dst_len, true), f.slice(&t.indices, 0, dst_len, true));
    let named = |strides: &[usize]| -> Vec<(proc_macro2::Ident, usize)> {
        strides.iter().enumerate().map(|(k, &s)| (format_ident!("o{}", k), s)).collect()
    };
    let (si, di) = (lin(&named(&ss)), lin(&named(&ds)));
    let (len, k, largest) = (t.len, t.k, t.largest);
    let (at_i, at_t) = (times(quote! { i }, t.stride), times(quote! { t }, t.dst_stride));
    let body = quote! {
        let (s, d) = (#si, #di);
        let mut picked = [0usize; #k];
        let mut prev: Option<(f32, usize)> = None;
        for slot in picked.iter_mut() {
            let mut best: Option<(f32, usize)> = None;
            for i in 0..#len {
                let v = (src[s + #at_i], i);
                if prev.is_some_and(|p| !::cellc_runtime::__private::math::top_k_before(#largest, p, v)) {
                    continue;
                }
                if best.is_none_or(|b| ::cellc_runtime::__private::math::top_k_before(#largest, v, b)) {
                    best = Some(v);
                }
            }
            *slot = best.map_or(0, |b| b.1);
            prev = best;
        }
        {
            let vals = #vals;
            for (t, &i) in picked.iter().enumerate() {
                vals[d + #at_t] = src[s + #at_i];
            }
        }
        let idxs = #idxs;
        for (t, &i) in picked.iter().enumerate() {
            idxs[d + #at_t] = i as f32;
        }
    };
    let nest = counts.iter().enumerate().rev().fold(body, |inner, (j, &c)| {
        let used = ss[j] != 0 || ds[j] != 0;
        let i = if used { format_ident!("o{}", j) } else { format_ident!("_") };
        quote! { for #i in 0..#c { #inner } }
    });
    quote! { { let src = #src; #nest } }
}

/// A pool over windows read in place: `cellc_runtime::__private::kernel::pool_windows` at the vector
/// level the model runs at.
pub(super) fn pool_step(p: &Pool, f: &Fields, simd: crate::options::Simd) -> TokenStream {
    let w = &p.win;
    let src = f.slice(&p.src, 0, p.entries * w.input_len(), false);
    let dst = f.slice(&p.dst, 0, p.entries * w.positions() * w.channels, true);
    let (c, max) = (w.channels, p.kind == crate::vocab::Pooling::Max);
    let windows = super::lit::windows_value(w);
    let call = super::ctx::at_level(
        simd,
        quote! { ::cellc_runtime::__private::kernel::pool_windows::<#c, #max>(&WINDOWS, src, dst) },
    );
    quote! {
        {
            const WINDOWS: ::cellc_runtime::__private::kernel::Windows = #windows;
            let src = #src;
            let dst = #dst;
            #call
        }
    }
}
