//! Dense layers in C: a static function per layer looping over its rows and tiles, over
//! the weight tables the Rust kernels read (packed the same way, see `emit::dense`).
use super::helpers::Helpers;
use super::names::CellNames;
use super::text::{Code, float};
use crate::emit::dense::{Tiling, describe, packed_bias, packed_weights};
use crate::emit::plan::{Packed, Store};
use crate::ir::Dense;
use crate::ir::steps::MapFn;

/// Rows of a dense layer's blocks: each weight loaded serves them all. Measured on AMD Zen
/// 3 (AVX2, GCC 12), PLCMOS whole: 22.0 ms a call in blocks of 4 rows, 24.4 ms in blocks of
/// 8 (their sums no longer fit the registers).
const ROWS: usize = 4;

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
    // The products fused where the target has FMA: on a convolution model (AMD Zen 3,
    // GCC 12) unfused sums took 1.25× the time, the spare registers holding the products.
    helpers.fma();
    // The output of lane `l` of each row's sums `a0`, `a1`, ….
    let act: Vec<String> = (0..ROWS)
        .map(|i| {
            let v = format!("a{i}[l]");
            match d.act {
                Some(a) => super::steps::map_expr(prefix, MapFn::Unary(a), &[v], helpers),
                None => v,
            }
        })
        .collect();
    let rolled = super::kern::rolled(&upper, tile);
    let block = Block { k, outs, tile, used, ty, w: &w, b: &b, row, lane: &lane, rolled: &rolled, prefix };
    body.comment(&describe(d, t, store));
    body.open(format!("static void {}(const float *x, float *y, size_t rows)", n.f("_run")));
    // Rows `ROWS` at a time: each weight is read once for them. Then the rows left one at a
    // time, each sum formed in the same order as in a block. (The bound of the blocks is
    // computed first, so that GCC knows the second loop runs fewer than `ROWS` times.)
    body.line(format!("const size_t blocks = rows - rows % {ROWS};"));
    body.line("size_t r;");
    body.open(format!("for (r = 0; r < blocks; r += {ROWS})"));
    block.emit(body, &act);
    body.close("");
    body.open("for (r = blocks; r < rows; ++r)");
    block.emit(body, &act[..1]);
    body.close("");
    body.close("");
    body.line("");
    helpers.f16 |= store == Store::F16;
    helpers.bf16 |= store == Store::Bf16;
}

/// What the loops over a block of rows of a dense layer read.
struct Block<'a> {
    k: usize,
    outs: usize,
    tile: usize,
    /// Tiles holding outputs.
    used: usize,
    /// The C type of a weight.
    ty: &'a str,
    /// The weights' and bias's tables.
    w: &'a str,
    b: &'a str,
    /// Values a row of a tile takes in the weights' table.
    row: usize,
    /// Lane `l` of row `k` of tile `p`, as a float.
    lane: &'a str,
    /// What keeps the loop over a tile's lanes rolled, if anything.
    rolled: &'a str,
    /// The file's prefix.
    prefix: &'a str,
}

impl Block<'_> {
    /// The loops computing rows `r .. r + m` of `y`: a sum per row in an array of its own
    /// (`a0`, `a1`, …), all updated in one loop over lanes, so that GCC keeps them in
    /// registers (one two-dimensional array it keeps in memory, each update a load and a
    /// store: measured 1.75× the Rust's time on a convolution model). `act[i]` is the
    /// output of lane `l` of row `i`'s sums, and there are as many rows as outputs.
    fn emit(&self, c: &mut Code, act: &[String]) {
        let Block { k, outs, tile, used, ty, w, b, row, lane, rolled, prefix } = *self;
        let rows: Vec<usize> = (0..act.len()).collect();
        let list = |f: &dyn Fn(usize) -> String| rows.iter().map(|&i| f(i)).collect::<Vec<_>>();
        c.line(format!("const float *restrict xr = x + r * {k};"));
        c.line(format!("float *restrict yr = y + r * {outs};"));
        c.open(format!("for (size_t t = 0; t < {used}; ++t)"));
        c.line(format!("const {ty} *restrict p = {w} + t * {};", k * row));
        // The last tile may be partly past the outputs.
        let width = if outs % tile == 0 {
            tile.to_string()
        } else {
            c.line(format!("const size_t width = t + 1 < {used} ? {tile} : {};", outs - (used - 1) * tile));
            "width".to_owned()
        };
        c.line(format!("float {};", list(&|i| format!("a{i}[{tile}]")).join(", ")));
        c.line(format!(
            "for (size_t l = 0; l < {tile}; ++l) {} = {b}[t * {tile} + l];",
            list(&|i| format!("a{i}[l]")).join(" = ")
        ));
        c.open(format!("for (size_t k = 0; k < {k}; ++k)"));
        for &i in &rows {
            c.line(format!("const float x{i} = xr[{}];", at(i * k, "k")));
        }
        c.open(format!("{rolled}for (size_t l = 0; l < {tile}; ++l)"));
        c.line(format!("const float w = {lane};"));
        for &i in &rows {
            c.line(format!("a{i}[l] = {prefix}_fma(w, x{i}, a{i}[l]);"));
        }
        c.close("");
        c.close("");
        c.open(format!("for (size_t l = 0; l < {width}; ++l)"));
        for &i in &rows {
            c.line(format!("yr[{}] = {};", at(i * outs, "t * TILE + l").replace("TILE", &tile.to_string()), act[i]));
        }
        c.close("");
        c.close("");
    }
}

/// `offset + rest`, or `rest` when `offset` is 0.
fn at(offset: usize, rest: &str) -> String {
    if offset == 0 { rest.to_owned() } else { format!("{offset} + {rest}") }
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
