//! Dense layers in C: a static function per layer looping over its rows and tiles, over
//! the weight tables the Rust kernels read (packed the same way, see `emit::dense`).
use super::helpers::Helpers;
use super::names::CellNames;
use super::text::{Code, float};
use crate::emit::dense::{Tiling, describe, packed_bias, packed_weights};
use crate::emit::plan::{Packed, Store};
use crate::ir::Dense;
use crate::ir::steps::MapFn;

/// Emits the tables and the function `names.f("_run")` of dense layer `d`.
pub(super) fn emit(
    d: &Dense,
    n: &CellNames,
    prefix: &str,
    store: Store,
    tables: &mut Code,
    body: &mut Code,
    helpers: &mut Helpers,
) {
    let t = Tiling::of(d.n);
    let upper = prefix.to_ascii_uppercase();
    let (w, b) = (n.m("_W"), n.m("_B"));
    let (ty, texts): (&str, Vec<String>) = match packed_weights(d, t, store) {
        Packed::F32(v) => ("float", v.iter().map(|&x| float(x)).collect()),
        Packed::F16(v) => ("uint16_t", v.iter().map(|x| format!("0x{x:04x}")).collect()),
        Packed::Bf16(v) => ("uint32_t", v.iter().map(|x| format!("0x{x:08x}")).collect()),
    };
    table(tables, &format!("{upper}_ALIGNED static const {ty} {w}"), &texts, "Its weights, packed in tiles.");
    let bias: Vec<String> = packed_bias(d, t).into_iter().map(float).collect();
    table(tables, &format!("{upper}_ALIGNED static const float {b}"), &bias, "Its bias, in the same tiles.");
    let (k, outs, tile) = (d.k, d.n, t.tile);
    let used = outs.div_ceil(tile);
    let row = match store {
        Store::Bf16 => cellc_pack::bf16_words(tile),
        Store::F32 | Store::F16 => tile,
    };
    let lane = match store {
        Store::F32 => "p[k * TILE + l]".replace("TILE", &tile.to_string()),
        Store::F16 => format!("{prefix}_f16(p[k * {tile} + l])"),
        Store::Bf16 => {
            format!("(l < {row} ? {prefix}_bf16_lo(p[k * {row} + l]) : {prefix}_bf16_hi(p[k * {row} + l - {row}]))")
        }
    };
    let act = match d.act {
        Some(a) => super::steps::map_expr(prefix, MapFn::Unary(a), &["acc[i][l]".to_owned()], helpers),
        None => "acc[i][l]".to_owned(),
    };
    body.comment(&describe(d, t, store));
    body.open(format!("static void {}(const float *x, float *y, size_t rows)", n.f("_run")));
    // Rows 4 at a time (the last block may hold fewer): each weight is read once for them,
    // and their sums are independent, each formed in the same order as for a row alone.
    body.open("for (size_t r = 0; r < rows; r += 4)");
    body.line("const size_t m = rows - r < 4 ? rows - r : 4;");
    body.line(format!("const float *const xr = x + r * {k};"));
    body.line(format!("float *const yr = y + r * {outs};"));
    body.open(format!("for (size_t t = 0; t < {used}; ++t)"));
    body.line(format!("const {ty} *const p = {w} + t * {};", k * row));
    body.line(format!("float acc[4][{tile}];"));
    body.line(format!(
        "for (size_t i = 0; i < 4; ++i) for (size_t l = 0; l < {tile}; ++l) acc[i][l] = {b}[t * {tile} + l];"
    ));
    body.open(format!("for (size_t k = 0; k < {k}; ++k)"));
    body.open("for (size_t i = 0; i < 4; ++i)");
    body.line(format!("const float v = i < m ? xr[i * {k} + k] : 0.0f;"));
    body.line(format!("for (size_t l = 0; l < {tile}; ++l) acc[i][l] += {lane} * v;"));
    body.close("");
    body.close("");
    body.line(format!(
        "for (size_t i = 0; i < m; ++i) for (size_t l = 0; l < {tile} && t * {tile} + l < {outs}; ++l) yr[i * {outs} + t * {tile} + l] = {act};"
    ));
    body.close("");
    body.close("");
    body.close("");
    body.line("");
    helpers.f16 |= store == Store::F16;
    helpers.bf16 |= store == Store::Bf16;
}

/// An initialised array `decl[len] = { … };` under a comment.
fn table(c: &mut Code, decl: &str, texts: &[String], doc: &str) {
    c.comment(doc);
    c.open(format!("{decl}[{}] =", texts.len()));
    for line in texts.chunks(8) {
        c.line(format!("{},", line.join(", ")));
    }
    c.close(";");
    c.line("");
}
