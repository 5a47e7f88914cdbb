//! Dense layers over a 3×3 convolution's windows run by F(2×2, 3×3) in C (see
//! [`crate::emit::winograd`]): the inputs of a block of tiles transformed into the model's
//! work area, the 16 products through one function over rows (the dense layers' loops,
//! the weights a parameter), and the products transformed back to outputs, with the bias
//! and the activation. The transforms' expressions are written by `cellc_pack::winograd`'s
//! own functions over C text, so the arithmetic is the Rust kernel's, in the same order.
use super::dense::{product, table, tap_helper};
use super::helpers::Helpers;
use super::names::CellNames;
use super::text::{Code, float};
use crate::emit::dense::{Tiling, describe, packed_bias, packed_slope};
use crate::emit::plan::Store;
use crate::emit::winograd::{TILES, packed};
use crate::ir::steps::MapFn;
use crate::ir::{Dense, DenseAct};
use crate::vocab::{Binary, Windows};
use cellc_pack::winograd::{self as wg, Grid};

/// A C expression built by the transforms: its text, and whether it is a single operand
/// (a name or an element), which needs no parentheses on the right of an operator.
#[derive(Clone)]
struct Expr(String, bool);

impl Expr {
    fn atom(text: String) -> Expr {
        Expr(text, true)
    }

    /// `a op b`, left to right: C's `+` and `-` group to the left, so only a compound
    /// right operand is parenthesised.
    fn op(a: Expr, op: char, b: Expr) -> Expr {
        let b = if b.1 { b.0 } else { format!("({})", b.0) };
        Expr(format!("{} {op} {b}", a.0), false)
    }
}

fn add(a: Expr, b: Expr) -> Expr {
    Expr::op(a, '+', b)
}

fn sub(a: Expr, b: Expr) -> Expr {
    Expr::op(a, '-', b)
}

/// Emits the tables and the function `names.f("_run")` of dense layer `d`, which
/// [`crate::emit::winograd::applies`] to, over windows `w`: `(xs, ys, all_rows, work)`.
pub(super) fn emit(
    (d, w): (&Dense, &Windows),
    n: &CellNames,
    prefix: &str,
    tables: &mut Code,
    body: &mut Code,
    helpers: &mut Helpers,
) {
    let t = Tiling::of(d.n);
    let upper = prefix.to_ascii_uppercase();
    let (wt, b, z, slope, direct) = (n.m("_W"), n.m("_B"), n.m("_Z"), n.m("_S"), n.m("_D"));
    let (c, np, outs, tile) = (w.channels, t.tiles * t.tile, d.n, t.tile);
    let texts: Vec<String> = packed(d).into_iter().map(float).collect();
    let decl = |name: &str| format!("{upper}_ALIGNED static const float {name}");
    table(tables, &decl(&wt), &texts, "Its weights, transformed for F(2×2, 3×3): 16 layers packed in tiles.");
    let bias: Vec<String> = packed_bias(d, t).into_iter().map(float).collect();
    table(tables, &decl(&b), &bias, "Its bias, in the same tiles.");
    table(tables, &decl(&z), &vec![float(0.0); np], "Zeros: the bias of its 16 products.");
    let texts: Vec<String> = crate::emit::winograd::direct(d).iter().copied().map(float).collect();
    let what = "Its weights as the model holds them (output, tap, channel), for the direct sum of a tile the transforms overflow.";
    table(tables, &decl(&direct), &texts, what);
    if let Some(s) = packed_slope(d, t) {
        let texts: Vec<String> = s.into_iter().map(float).collect();
        table(tables, &decl(&slope), &texts, "Its PReLU's slopes, in the same tiles.");
    }
    // The activation of output `t · tile + l` at `v`.
    let act = |v: String, helpers: &mut Helpers| match &d.act {
        Some(DenseAct::Unary(a)) => super::steps::map_expr(prefix, MapFn::Unary(*a), &[v], helpers),
        Some(DenseAct::PRelu(_)) => {
            let s = format!("{slope}[t * {tile} + l]");
            super::steps::map_expr(prefix, MapFn::Binary(Binary::PRelu), &[v, s], helpers)
        }
        None => v,
    };
    helpers.fma();
    helpers.vectors |= tile >= 4;
    let tap = n.f("_tap");
    tap_helper(body, w, &tap);
    let prod = n.f("_prod");
    product(body, &prod, (c, np, tile), &z, prefix);
    body.comment(&format!(
        "{} Run by F(2×2, 3×3): the inputs of {TILES} tiles of 2×2 outputs at a time transformed into `work`, 16 products, the outputs transformed back.",
        describe(d, t, Store::F32)
    ));
    let [oh, ow] = w.output;
    let grid = Grid::of(w);
    let [dh, dw] = grid.dilations;
    let (tw, count) = (grid.per_row, grid.count);
    let layer = t.tiles * c * tile;
    // The transforms, at the processor's width where the product has copies for it.
    let params = "const float *xs, float *ys, size_t all_rows, float *work";
    if tile >= 4 {
        body.kernel_unfused(&upper, &n.f("_run"), params);
    } else {
        body.open(format!("static void {}({params})", n.f("_run")));
    }
    body.line("float *const v = work;");
    body.line(format!("float *const m = work + {};", 16 * TILES * c));
    body.open(format!("for (size_t e = 0; e < all_rows / {}; ++e)", w.positions()));
    body.line(format!("const float *const x = xs + e * {};", w.input_len()));
    body.line(format!("float *const y = ys + e * {};", w.positions() * outs));
    body.open(format!("for (size_t t0 = 0; t0 < {count}; t0 += {TILES})"));
    body.line(format!("const size_t tb = {count} - t0 < {TILES} ? {count} - t0 : {TILES};"));
    // Tile `(ti, tj)`'s first output along each axis (`Grid::origin`): its two outputs are a
    // dilation apart.
    let first = |body: &mut Code| {
        body.line(format!("const size_t ti = (t0 + i) / {tw}, tj = (t0 + i) % {tw};"));
        body.line(format!(
            "const size_t oh0 = ti / {dh} * {} + ti % {dh}, ow0 = tj / {dw} * {} + tj % {dw};",
            2 * dh,
            2 * dw
        ));
    };
    // The inputs, transformed: component ξ of tile i at `v + (ξ·TILES + i)·C`.
    body.open("for (size_t i = 0; i < tb; ++i)");
    first(body);
    body.line(format!("const ptrdiff_t bh = (ptrdiff_t)oh0 - {}, bw = (ptrdiff_t)ow0 - {};", w.pads[0], w.pads[1]));
    // The 4×4 runs copied out (whole vectors), then transformed lane by lane: straight-line
    // code over arrays of the function's own, which the compiler vectorises along the
    // channels (through the 16 pointers it did not: it could not rule out that `vi`'s
    // stores reach the input).
    body.line(format!("float d[16][{c}];"));
    body.line(format!(
        "for (size_t k = 0; k < 16; ++k) __builtin_memcpy(d[k], {tap}(x, bh + (ptrdiff_t)(k / 4 * {dh}), bw + (ptrdiff_t)(k % 4 * {dw})), sizeof d[k]);"
    ));
    body.line(format!("float *restrict vi = v + i * {c};"));
    body.line(format!("const size_t st = {};", TILES * c));
    body.open(format!("for (size_t ch = 0; ch < {c}; ++ch)"));
    // t = Bᵀ·d over rows, then v = t·B over columns.
    let d: [Expr; 16] = core::array::from_fn(|k| Expr::atom(format!("d[{k}][ch]")));
    for (k, e) in wg::input_rows(&d, add, sub).into_iter().enumerate() {
        body.line(format!("const float t{k} = {};", e.0));
    }
    let t: [Expr; 16] = core::array::from_fn(|k| Expr::atom(format!("t{k}")));
    for (k, e) in wg::input_columns(&t, add, sub).into_iter().enumerate() {
        body.line(format!("vi[{k} * st + ch] = {};", e.0));
    }
    body.close("");
    body.close("");
    // The 16 products: component ξ of tile i's outputs at `m + (ξ·TILES + i)·NP`.
    body.line(format!(
        "for (size_t k = 0; k < 16; ++k) {prod}({wt} + k * {layer}, v + k * {}, m + k * {}, tb);",
        TILES * c,
        TILES * np
    ));
    // Back to outputs: Aᵀ·m·A + bias, then the activation, for the outputs inside.
    body.open("for (size_t i = 0; i < tb; ++i)");
    first(body);
    body.line(format!("const float *restrict mi = m + i * {np};"));
    body.line(format!("const size_t st = {};", TILES * np));
    body.line(format!("float o[4][{np}];"));
    body.open(format!("for (size_t j = 0; j < {np}; ++j)"));
    let m: [Expr; 16] =
        core::array::from_fn(|k| Expr::atom(if k == 0 { "mi[j]".to_owned() } else { format!("mi[{k} * st + j]") }));
    for (k, e) in wg::output_rows(&m, add, sub).into_iter().enumerate() {
        body.line(format!("const float u{k} = {};", e.0));
    }
    body.line(format!("const float bj = {b}[j];"));
    let u: [Expr; 8] = core::array::from_fn(|k| Expr::atom(format!("u{k}")));
    for (k, e) in wg::output_columns(&u, Expr::atom("bj".into()), add, sub).into_iter().enumerate() {
        body.line(format!("o[{k}][j] = {};", e.0));
    }
    body.close("");
    // A loop over the tile's 4 outputs `k` at `(r, col)`, those outside the output skipped.
    let each_output = |body: &mut Code| {
        body.open("for (size_t k = 0; k < 4; ++k)");
        body.line(format!("const size_t r = oh0 + k / 2 * {dh}, col = ow0 + k % 2 * {dw};"));
        body.line(format!("if (r >= {oh} || col >= {ow}) continue;"));
    };
    // A tile whose outputs the transforms overflowed (inputs past FLT_MAX / 4, an infinity,
    // a NaN): the direct sum instead, as the direct kernel computes it.
    body.line("int finite = 1;");
    each_output(body);
    body.line(format!("for (size_t j = 0; j < {outs}; ++j) finite &= fabsf(o[k][j]) <= 3.40282347e+38f;"));
    body.close("");
    body.open("if (!finite)");
    each_output(body);
    body.open(format!("for (size_t j = 0; j < {outs}; ++j)"));
    body.line(format!("float s = {b}[j];"));
    body.open("for (size_t q = 0; q < 9; ++q)");
    body.line(format!(
        "const float *xv = {tap}(x, (ptrdiff_t)r - {} + (ptrdiff_t)(q / 3 * {dh}), (ptrdiff_t)col - {} + (ptrdiff_t)(q % 3 * {dw}));",
        w.pads[0], w.pads[1]
    ));
    body.line(format!("const float *wv = {direct} + (j * 9 + q) * {c};"));
    body.line(format!("for (size_t ch = 0; ch < {c}; ++ch) s += wv[ch] * xv[ch];"));
    body.close("");
    body.line("o[k][j] = s;");
    body.close("");
    body.close("");
    body.close("");
    each_output(body);
    body.line(format!("float *restrict yr = y + (r * {ow} + col) * {outs};"));
    let used = outs.div_ceil(tile);
    body.open(format!("for (size_t t = 0; t < {used}; ++t)"));
    body.open(format!("for (size_t l = 0; l < {tile}; ++l)"));
    if !outs.is_multiple_of(tile) {
        body.line(format!("if (t * {tile} + l >= {outs}) break;"));
    }
    let out = act(format!("o[k][t * {tile} + l]"), helpers);
    body.line(format!("yr[t * {tile} + l] = {out};"));
    body.close("");
    body.close("");
    body.close("");
    body.close("");
    body.close("");
    body.close("");
    body.close("");
    body.line("");
}
