//! Dense layers in C: a static function per layer looping over its rows and tiles, over
//! the weight tables the Rust kernels read (packed the same way, see `emit::dense`).
use super::helpers::Helpers;
use super::kern::{NARROW_SUMS, VECTOR_NARROW};
use super::names::CellNames;
use super::text::{Code, float};
use crate::emit::dense::{Tiling, describe, packed_bias, packed_slope, packed_weights};
use crate::emit::plan::{Packed, Store};
use crate::ir::steps::MapFn;
use crate::ir::{Dense, DenseAct};
use crate::vocab::Binary;

/// Rows of a dense layer's blocks: each weight loaded serves them all. Measured on AMD Zen
/// 3 (AVX2, GCC 12), PLCMOS whole: 22.0 ms a call in blocks of 4 rows, 24.4 ms in blocks of
/// 8 (their sums no longer fit the registers).
const ROWS: usize = 4;

/// The fewest lanes of a tile taking the vector path: tiles of 1 or 2 lanes stay loops.
const VECTOR_MIN: usize = 4;

/// The most lanes of a vector: 256 bits, which AVX2 and AVX-512 targets take at once (GCC
/// lowers wider ones to halves on AVX2); a tile of 16 lanes is two of them. Targets with
/// 128-bit registers alone (`PREFIX_VECTORS` 4) take vectors of 4 lanes.
const VECTOR_MAX: usize = 8;

/// The lanes of a vector on targets with 512-bit registers (AVX-512).
const VECTOR_WIDEST: usize = 16;

/// Sums of a block of 16-lane vectors of the rows left (24 of the 32 registers at most).
const WIDEST_SUMS: usize = 16;

/// Rows of a block of 16-lane vectors through up to 3 tiles (see [`widest_block`]): a tile
/// of 16 lanes is one vector a row, so 8 rows keep 8 sums a tile in flight, as many as two
/// FMA units of 4 cycles' latency take.
const ROWS_WIDEST: usize = 8;

/// Emits the tables and the function `names.f("_run")` of dense layer `d`, whose calls
/// hold `rows` rows each where they all hold as many.
pub(super) fn emit(
    (d, rows): (&Dense, Option<usize>),
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
        Packed::I8(v) => ("int8_t", v.iter().map(i8::to_string).collect()),
    };
    table(tables, &format!("{upper}_ALIGNED static const {ty} {w}"), &texts, "Its weights, packed in tiles.");
    let bias: Vec<String> = packed_bias(d, t).into_iter().map(float).collect();
    table(tables, &format!("{upper}_ALIGNED static const float {b}"), &bias, "Its bias, in the same tiles.");
    let slope = n.m("_S");
    if let Some(s) = packed_slope(d, t) {
        let texts: Vec<String> = s.into_iter().map(float).collect();
        table(
            tables,
            &format!("{upper}_ALIGNED static const float {slope}"),
            &texts,
            "Its PReLU's slopes, in the same tiles.",
        );
    }
    // The activation of output `t · tile + l` at `v`.
    let map = |v: String, helpers: &mut Helpers| match &d.act {
        Some(DenseAct::Unary(a)) => super::steps::map_expr(prefix, MapFn::Unary(*a), &[v], helpers),
        Some(DenseAct::PRelu(_)) => {
            let s = format!("{slope}[t * {} + l]", t.tile);
            super::steps::map_expr(prefix, MapFn::Binary(Binary::PRelu), &[v, s], helpers)
        }
        None => v,
    };
    let (k, outs, tile) = (d.k, d.n, t.tile);
    let used = outs.div_ceil(tile);
    let row = match store {
        Store::Bf16 => cellc_pack::bf16_words(tile),
        Store::F32 | Store::F16 => tile,
        Store::I8 => cellc_pack::int8::row_len(tile),
    };
    let lane = match store {
        Store::F32 => "p[k * TILE + l]".replace("TILE", &tile.to_string()),
        Store::F16 => format!("{prefix}_f16(p[k * {tile} + l])"),
        Store::Bf16 => {
            format!("(l < {row} ? {prefix}_bf16_lo(p[k * {row} + l]) : {prefix}_bf16_hi(p[k * {row} + l - {row}]))")
        }
        Store::I8 => format!("(float)p[k * {row} + 4 + l]"),
    };
    // The products fused where the target has FMA: on a convolution model (AMD Zen 3,
    // GCC 12) unfused sums took 1.25× the time, the spare registers holding the products.
    helpers.fma();
    // The output of lane `l` of each row's sums `a0`, `a1`, ….
    let act: Vec<String> = (0..ROWS).map(|i| map(format!("a{i}[l]"), helpers)).collect();
    // The vector path stores the sums to `y`, then maps them there.
    let act_y: Option<Vec<String>> = d.act.as_ref().map(|_| {
        (0..ROWS_WIDEST).map(|i| map(format!("yr[{}]", at(i * outs, &format!("t * {tile} + l"))), helpers)).collect()
    });
    let rolled = super::kern::rolled(&upper, tile);
    let tap = n.f("_tap");
    let windows = d.win.as_ref().map(|w| (w, tap.as_str()));
    // An int8 row's input times its scale (see `cellc_pack::int8`).
    let scale = (store == Store::I8).then(|| format!("{prefix}_i8_scale(p + k * {row})"));
    let block = Block {
        k,
        outs,
        tile,
        used,
        ty,
        w: &w,
        b: &b,
        row,
        lane: &lane,
        scale: scale.as_deref().unwrap_or(""),
        rolled: &rolled,
        prefix,
        windows,
        // Bytes of an element of the table (bf16 pairs in 32-bit words).
        pass: pass_of(
            used,
            k.saturating_mul(row).saturating_mul(match store {
                Store::F32 | Store::Bf16 => 4,
                Store::F16 => 2,
                Store::I8 => 1,
            }),
        ),
    };
    let vectors = store == Store::F32 && tile >= VECTOR_MIN;
    if let Some(w) = &d.win {
        tap_helper(body, w, &n.f("_tap"));
    }
    body.comment(&describe(d, t, store));
    let win = d.win.as_ref();
    let run = n.f("_run");
    // A function summing in vectors is a kernel (see `Code::kernel`); one without them a
    // plain function.
    let head = |body: &mut Code, params: &str| {
        if vectors {
            body.kernel(&upper, &run, params);
        } else {
            body.open(format!("static void {run}({params})"));
        }
    };
    if win.is_some_and(stacks) {
        // Entries of one line stack into one entry of as many lines, as the runtime's
        // kernel has them: a block of rows may span entries (silero_vad_sequence, whose
        // convolutions run over 8 entries of 1 to 5 positions: its C 152.7 → 133.6 µs a
        // call at `-O3 -march=native`, AMD Zen 4, its Rust 133.0 beside it).
        head(body, "const float *x, float *y, size_t rows");
    } else if let Some(w) = win {
        // A call runs over whole entries of the input, each its windows' positions.
        head(body, "const float *xs, float *ys, size_t all_rows");
        body.open(format!("for (size_t e = 0; e < all_rows / {}; ++e)", w.positions()));
        body.line(format!("const float *const x = xs + e * {};", w.input_len()));
        body.line(format!("float *const y = ys + e * {};", w.positions() * outs));
        body.line(format!("const size_t rows = {};", w.positions()));
    } else {
        head(body, "const float *x, float *y, size_t rows");
    }
    // The rows of a call, where known: those of an entry of windows that do not stack.
    let rows = match win {
        Some(w) if !stacks(w) => Some(w.positions()),
        _ => rows,
    };
    loops(body, (&block, rows), (&upper, vectors), (&act, act_y.as_deref()));
    if win.is_some_and(|w| !stacks(w)) {
        body.close("");
    }
    body.close("");
    helpers.vectors |= vectors;
    body.line("");
    helpers.f16 |= store == Store::F16;
    helpers.bf16 |= store == Store::Bf16;
    helpers.i8 |= store == Store::I8;
}

/// The loops of a dense layer's function over its rows (`rows` of them, from `x` or the
/// windows to `y`): one variant per vector width the target may have when `vectors`, each
/// in blocks of rows, then the rows left; `act` and `act_y` the activation of a row's
/// lanes (see [`emit`]).
fn loops(
    body: &mut Code,
    (block, call): (&Block<'_>, Option<usize>),
    (upper, vectors): (&str, bool),
    (act, act_y): (&[String], Option<&[String]>),
) {
    let (k, outs, tile) = (block.k, block.outs, block.tile);
    let win = block.windows.map(|(w, _)| w);
    // Vectors where the weights are f32 and a tile holds whole vectors: each variant's
    // condition on the target's vectors, rows a block, lanes a vector (none: loops) and
    // tiles a block.
    let mut variants: Vec<(String, usize, Option<usize>, usize)> = Vec::new();
    if vectors {
        let wide = tile.min(VECTOR_MAX);
        if tile >= VECTOR_WIDEST {
            let (rows, group) = widest_block(block);
            variants.push((format!("{upper}_VECTORS >= {VECTOR_WIDEST}"), rows, Some(VECTOR_WIDEST), group));
        }
        variants.push((format!("{upper}_VECTORS >= {wide}"), ROWS, Some(wide), 1));
        if wide > VECTOR_NARROW {
            let rows = (NARROW_SUMS / (tile / VECTOR_NARROW)).clamp(1, ROWS);
            variants.push((format!("{upper}_VECTORS == {VECTOR_NARROW}"), rows, Some(VECTOR_NARROW), 1));
        }
    }
    variants.push((String::new(), ROWS, None, 1));
    let last = variants.len() - 1;
    for (v, (cond, rows, width, tiles)) in variants.iter().enumerate() {
        match v {
            _ if last == 0 => {}
            0 => body.line(format!("#if {cond}")),
            _ if v == last => body.line("#else"),
            _ => body.line(format!("#elif {cond}")),
        }
        if last > 0 {
            body.open("");
        }
        if let Some(p) = block.pass {
            let used = block.used;
            body.open(format!("for (size_t t0 = 0; t0 < {used}; t0 += {p})"));
            body.line(format!("const size_t tend = t0 + {p} < {used} ? t0 + {p} : {used};"));
        }
        // Rows `rows` at a time: each weight is read once for them. Then the rows left one
        // at a time, each sum formed in the same order as in a block. (The bound of the
        // blocks is computed first, so that GCC knows the second loop runs fewer than
        // `rows` times.)
        body.line(format!("const size_t blocks = rows - rows % {rows};"));
        body.line("size_t r;");
        // Where the rows of a call are known, those left make one block. Elsewhere they are
        // known at run time alone: a block of half as many rows if as many are left, then
        // the rest one at a time. The blocks of the rows left take whole tiles several at a
        // time, their sums as many as a block's. (PT frame heads, 21 rows: a dense layer of
        // 600 inputs took its 5 rows left one at a time, each a chain of 600 dependent
        // multiply–adds per tile: 41.2 → 37.2 µs a call in 4 rows then 1.)
        let known = call.map(|c| c % rows);
        // Tiles a block of `n` rows left takes at once: as many sums as a whole block has,
        // at the widest vectors as many as the runtime's blocks of positions left take (4
        // positions through 4 tiles, 2 and 1 through 8), each vector a tile.
        let left = |n: usize| match width {
            Some(VECTOR_WIDEST) => (WIDEST_SUMS / n.max(1)).clamp(1, 8),
            _ => rows / n.max(1),
        };
        let mut runs = vec![(format!("for (r = 0; r < blocks; r += {rows})"), *rows, *tiles)];
        match known {
            Some(rest) => runs.push((format!("for (r = blocks; r < rows; r += {rest})"), rest, left(rest))),
            None => {
                let half = rows / 2;
                if half > 1 {
                    runs.push((format!("for (r = blocks; r + {half} <= rows; r += {half})"), half, left(half)));
                    runs.push(("for (; r < rows; ++r)".to_owned(), 1, left(1)));
                } else {
                    runs.push(("for (r = blocks; r < rows; ++r)".to_owned(), 1, left(1)));
                }
            }
        }
        for (head, n, group) in runs {
            if n == 0 {
                continue;
            }
            body.open(head);
            match win {
                // Each row's window starts at (bh, bw) of the input, maybe in the padding.
                Some(w) => {
                    // Stacked, line `ih` is the entry.
                    let sh = if stacks(w) { 1 } else { w.strides[0] };
                    for i in 0..n {
                        let p = if i == 0 { "r".to_owned() } else { format!("(r + {i})") };
                        let (line, column) = match w.output[1] {
                            1 => (p.clone(), "0".to_owned()),
                            ow => (format!("{p} / {ow}"), format!("{p} % {ow}")),
                        };
                        let (bh, bw) = (origin(&line, sh, w.pads[0]), origin(&column, w.strides[1], w.pads[1]));
                        body.line(format!("const ptrdiff_t bh{i} = {bh}, bw{i} = {bw};"));
                    }
                }
                None => body.line(format!("const float *restrict xr = x + r * {k};")),
            }
            body.line(format!("float *restrict yr = y + r * {outs};"));
            match width {
                Some(width) => block.emit_vectors(body, n, act_y.map(|a| &a[..n]), *width, group),
                None => block.emit(body, &act[..n]),
            }
            body.close("");
        }
        if block.pass.is_some() {
            body.close("");
        }
        if last > 0 {
            body.close("");
        }
    }
    if last > 0 {
        body.line("#endif");
    }
}

/// Rows and tiles of a block of 16-lane vectors (one vector a tile), as the runtime's
/// kernel over windows takes them at AVX-512 (`kernel::windows`' block shapes): 8 rows
/// through up to 3 tiles at once, 6 through 4 from 4 tiles on (24 sums of the 32
/// registers). Each broadcast input then serves a vector of every tile of the block, and
/// each window's run is found once for all of them, where one tile of 8 rows (8 sums)
/// loaded 9 values for 8 multiply–adds (the wake-word embedding's convolutions, 48–96
/// channels: 45–53 % of the FMA peak; its C 0.77× the time after, Intel Xeon, AVX-512; a
/// product of 64 × 512 by 512 × 512 0.74×).
fn widest_block(block: &Block<'_>) -> (usize, usize) {
    let tiles = block.outs / block.tile;
    match tiles {
        0 => (ROWS_WIDEST, 1),
        1..=3 => (ROWS_WIDEST, tiles),
        _ => (6, 4),
    }
}

/// A function `name(const float *restrict wt, const float *x, float *y, size_t rows)`: the
/// product of `rows` rows of `k` values by the weights at `wt` (f32, packed in tiles of
/// `tile` outputs as a dense layer's, `outs` a whole number of tiles), the bias the table
/// `zeros` (of `outs` zeros), no activation.
pub(super) fn product(body: &mut Code, name: &str, (k, outs, tile): (usize, usize, usize), zeros: &str, prefix: &str) {
    let upper = prefix.to_ascii_uppercase();
    let rolled = super::kern::rolled(&upper, tile);
    let lane = format!("p[k * {tile} + l]");
    let block = Block {
        k,
        outs,
        tile,
        used: outs.div_ceil(tile),
        ty: "float",
        w: "wt",
        b: zeros,
        row: tile,
        lane: &lane,
        scale: "",
        rolled: &rolled,
        prefix,
        windows: None,
        pass: pass_of(outs.div_ceil(tile), k.saturating_mul(tile).saturating_mul(4)),
    };
    let vectors = tile >= VECTOR_MIN;
    let params = "const float *restrict wt, const float *x, float *y, size_t rows";
    if vectors {
        body.kernel(&upper, name, params);
    } else {
        body.open(format!("static void {name}({params})"));
    }
    // No activation: each lane's sum as it is.
    let act: Vec<String> = (0..ROWS).map(|i| format!("a{i}[l]")).collect();
    loops(body, (&block, None), (&upper, vectors), (&act, None));
    body.close("");
    body.line("");
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
    /// What multiplies the input of row `k` of tile `p` (an int8 row's scale), or nothing.
    scale: &'a str,
    /// What keeps the loop over a tile's lanes rolled, if anything.
    rolled: &'a str,
    /// The file's prefix.
    prefix: &'a str,
    /// The windows the rows are, read in place, and the function finding a tap's run.
    windows: Option<(&'a crate::vocab::Windows, &'a str)>,
    /// Tiles a pass over the rows, where the panels are larger than a pass holds
    /// ([`cellc_pack::PASS_BYTES`]): the loops over tiles then run from `t0` to `tend`.
    pass: Option<usize>,
}

/// The tiles of a pass over the rows of a layer of `used` tiles, each `bytes` of weights,
/// where they do not all fit in one (see [`cellc_pack::pass_tiles`]); the multiple is the
/// tiles a block of 16-lane vectors takes at once.
fn pass_of(used: usize, bytes: usize) -> Option<usize> {
    let p = cellc_pack::pass_tiles(used, bytes, 4);
    (p < used).then_some(p)
}

impl Block<'_> {
    /// Opens the loop over the inputs `k` of `rows` rows, each row's input read into `x0`,
    /// `x1`, …: one loop over `k`; over windows, loops over the taps (each row's run found
    /// once a tap) and their channels.
    fn open_inputs(&self, c: &mut Code, rows: &[usize]) {
        let Some((w, tap)) = self.windows else {
            c.open(format!("for (size_t k = 0; k < {}; ++k)", self.k));
            let scale = self.scale_once(c);
            for &i in rows {
                c.line(format!("const float x{i} = xr[{}]{scale};", at(i * self.k, "k")));
            }
            return;
        };
        c.open(format!("for (size_t kh = 0; kh < {}; ++kh)", w.kernel[0]));
        c.open(format!("for (size_t kw = 0; kw < {}; ++kw)", w.kernel[1]));
        let (dh, dw) = (w.dilations[0], w.dilations[1]);
        for &i in rows {
            c.line(format!(
                "const float *restrict q{i} = {tap}(x, bh{i} + (ptrdiff_t)(kh * {dh}), bw{i} + (ptrdiff_t)(kw * {dw}));"
            ));
        }
        c.open(format!("for (size_t ch = 0; ch < {}; ++ch)", w.channels));
        c.line(format!("const size_t k = (kh * {} + kw) * {} + ch;", w.kernel[1], w.channels));
        let scale = self.scale_once(c);
        for &i in rows {
            c.line(format!("const float x{i} = q{i}[ch]{scale};"));
        }
    }

    /// Reads an int8 row's scale once, for the inputs of every row: ` * sk`, or nothing.
    fn scale_once(&self, c: &mut Code) -> &'static str {
        if self.scale.is_empty() {
            return "";
        }
        c.line(format!("const float sk = {};", self.scale));
        " * sk"
    }

    /// Closes what [`Block::open_inputs`] opened.
    fn close_inputs(&self, c: &mut Code) {
        c.close("");
        if self.windows.is_some() {
            c.close("");
            c.close("");
        }
    }
}

impl Block<'_> {
    /// Where the loops over tiles start and end: every tile, or a pass's.
    fn tile_bounds(&self) -> (String, String) {
        match self.pass {
            Some(_) => ("t0".to_owned(), "tend".to_owned()),
            None => ("0".to_owned(), self.used.to_string()),
        }
    }

    /// The loops computing rows `r .. r + m` of `y`: a sum per row in an array of its own
    /// (`a0`, `a1`, …), all updated in one loop over lanes, so that GCC keeps them in
    /// registers (one two-dimensional array it keeps in memory, each update a load and a
    /// store: measured 1.75× the Rust's time on a convolution model). `act[i]` is the
    /// output of lane `l` of row `i`'s sums, and there are as many rows as outputs.
    fn emit(&self, c: &mut Code, act: &[String]) {
        let Block { k, outs, tile, used, ty, w, b, row, lane, rolled, prefix, .. } = *self;
        let rows: Vec<usize> = (0..act.len()).collect();
        let list = |f: &dyn Fn(usize) -> String| rows.iter().map(|&i| f(i)).collect::<Vec<_>>();
        let (first, end) = self.tile_bounds();
        c.open(format!("for (size_t t = {first}; t < {end}; ++t)"));
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
        self.open_inputs(c, &rows);
        c.open(format!("{rolled}for (size_t l = 0; l < {tile}; ++l)"));
        c.line(format!("const float w = {lane};"));
        for &i in &rows {
            c.line(format!("a{i}[l] = {prefix}_fma(w, x{i}, a{i}[l]);"));
        }
        c.close("");
        self.close_inputs(c);
        c.open(format!("for (size_t l = 0; l < {width}; ++l)"));
        for &i in &rows {
            c.line(format!("yr[{}] = {};", at(i * outs, "t * TILE + l").replace("TILE", &tile.to_string()), act[i]));
        }
        c.close("");
        c.close("");
    }

    /// The loops of [`Block::emit`] over vectors of `width` lanes of GCC's vector
    /// extensions (`PREFIX_v4`, `PREFIX_v8`, `PREFIX_v16`; `width` divides the tile) for
    /// `n` rows: each row's sums in vectors of their own, which GCC keeps in registers,
    /// where it keeps arrays of lanes in memory after vectorising them (PLCMOS's largest
    /// convolution, AMD Zen 3: 5.0 ms against 7.1 ms as lanes). The sums go to `y`, then
    /// `act[i]` (if any) maps row `i` there. The whole tiles go `group` at a time (a block
    /// of few rows then still has sums enough to hide the multiply–add's latency), the
    /// tiles left one at a time.
    fn emit_vectors(&self, c: &mut Code, n: usize, act: Option<&[String]>, width: usize, group: usize) {
        let full = self.outs / self.tile;
        let group = group.min(full);
        let (first, end) = self.tile_bounds();
        if group > 1 {
            c.line("size_t t;");
            let whole = if self.pass.is_some() {
                c.line(format!("const size_t tfull = tend < {full} ? tend : {full};"));
                "tfull".to_owned()
            } else {
                full.to_string()
            };
            c.open(format!("for (t = {first}; t + {group} <= {whole}; t += {group})"));
            self.tiles(c, n, act, width, group, false);
            c.close("");
            c.open(format!("for (; t < {end}; ++t)"));
        } else {
            c.open(format!("for (size_t t = {first}; t < {end}; ++t)"));
        }
        self.tiles(c, n, act, width, 1, !self.outs.is_multiple_of(self.tile));
        c.close("");
    }

    /// The body of [`Block::emit_vectors`]'s loop over tiles: `group` tiles from `t` for
    /// `n` rows, the last of them partly past the outputs when `partial`.
    fn tiles(&self, c: &mut Code, n: usize, act: Option<&[String]>, width: usize, group: usize, partial: bool) {
        let Block { k, outs, tile, used, w, b, prefix, .. } = *self;
        let (ty, per) = (format!("{prefix}_v{width}"), tile / width);
        let rows: Vec<usize> = (0..n).collect();
        // Vector `j` of tile `g` of the group: its name's suffix, and its offset from `t`'s.
        let vecs: Vec<(String, usize)> = (0..group)
            .flat_map(|g| {
                (0..per)
                    .map(move |j| (if group == 1 { format!("{j}") } else { format!("{g}_{j}") }, g * tile + j * width))
            })
            .collect();
        let names = |f: &dyn Fn(&str) -> String| vecs.iter().map(|(v, _)| f(v)).collect::<Vec<_>>().join(", ");
        let load = |dst: &str, src: String| format!("__builtin_memcpy(&{dst}, {src}, sizeof {dst});");
        c.line(format!("const float *restrict p = {w} + t * {};", k * tile));
        let last = if partial {
            c.line(format!("const size_t width = t + 1 < {used} ? {tile} : {};", outs - (used - 1) * tile));
            "width".to_owned()
        } else {
            (group * tile).to_string()
        };
        c.line(format!("{ty} {};", names(&|v| format!("b{v}"))));
        for (v, off) in &vecs {
            c.line(load(&format!("b{v}"), plus(&format!("{b} + t * {tile}"), *off)));
        }
        let sums: Vec<String> =
            rows.iter().flat_map(|&i| vecs.iter().map(move |(v, _)| format!("s{i}_{v} = b{v}"))).collect();
        c.line(format!("{ty} {};", sums.join(", ")));
        self.open_inputs(c, &rows);
        c.line(format!("{ty} {};", names(&|v| format!("w{v}"))));
        for (v, off) in &vecs {
            // Tile `g` of the group starts `g · k · tile` values on, `j` its vector.
            let (g, j) = (off / tile, off % tile);
            c.line(load(&format!("w{v}"), plus(&format!("p + k * {tile}"), g * k * tile + j)));
            if n > 1 {
                c.line(format!("{}_KEEP(w{v});", prefix.to_ascii_uppercase()));
            }
        }
        for &i in &rows {
            c.line(vecs.iter().map(|(v, _)| format!("s{i}_{v} += w{v} * x{i};")).collect::<Vec<_>>().join(" "));
        }
        self.close_inputs(c);
        // Whole tiles go to `y` as vectors; the last one, partly past the outputs, through
        // an array. (Sums copied to arrays and mapped from there: GCC kept one of them in
        // memory inside the loop above, a load and a store per step.)
        // Row `i`'s vectors stored at `to(offset)`, a vector's place.
        let store = |c: &mut Code, i: usize, to: &dyn Fn(usize) -> String| {
            let stores: Vec<String> = vecs
                .iter()
                .map(|(v, off)| format!("__builtin_memcpy({}, &s{i}_{v}, sizeof s{i}_{v});", to(*off)))
                .collect();
            c.line(stores.join(" "));
        };
        let to_y = |c: &mut Code| {
            for &i in &rows {
                store(c, i, &|off| plus(&format!("yr + {}", at(i * outs, &format!("t * {tile}"))), off));
            }
        };
        if partial {
            c.open(format!("if (width == {tile})"));
            to_y(c);
            c.otherwise();
            c.line(format!("float a[{tile}];"));
            for &i in &rows {
                store(c, i, &|off| plus("a", off));
                c.line(format!(
                    "for (size_t l = 0; l < width; ++l) yr[{}] = a[l];",
                    at(i * outs, &format!("t * {tile} + l"))
                ));
            }
            c.close("");
        } else {
            to_y(c);
        }
        if let Some(act) = act {
            c.open(format!("for (size_t l = 0; l < {last}; ++l)"));
            for (&i, a) in rows.iter().zip(act) {
                c.line(format!("yr[{}] = {a};", at(i * outs, &format!("t * {tile} + l"))));
            }
            c.close("");
        }
    }
}

/// The first input line or column of a window, `(ptrdiff_t)(at * stride) - pad`, as a C
/// expression without multiplying by 1 or taking 0 away.
fn origin(at: &str, stride: usize, pad: usize) -> String {
    if at == "0" {
        return if pad == 0 { "0".to_owned() } else { format!("-{pad}") };
    }
    let scaled = if stride == 1 { format!("(ptrdiff_t)({at})") } else { format!("(ptrdiff_t)({at} * {stride})") };
    if pad == 0 { scaled } else { format!("{scaled} - {pad}") }
}

/// `base + offset`, or `base` when `offset` is 0.
fn plus(base: &str, offset: usize) -> String {
    if offset == 0 { base.to_owned() } else { format!("{base} + {offset}") }
}

/// `offset + rest`, or `rest` when `offset` is 0.
fn at(offset: usize, rest: &str) -> String {
    if offset == 0 { rest.to_owned() } else { format!("{offset} + {rest}") }
}

/// An initialised array `decl[len] = { … };` under a comment.
pub(super) fn table(c: &mut Code, decl: &str, texts: &[String], doc: &str) {
    c.comment(doc);
    c.open(format!("{decl}[{}] =", texts.len()));
    for line in texts.chunks(8) {
        c.line(format!("{},", line.join(", ")));
    }
    c.close(";");
    c.line("");
}

/// Whether the windows `w` are of one line (one input line, one output line, taps along it
/// alone, no padding across), so that the entries of a call stack into one entry of as many
/// lines: line `ih` of the stack is entry `ih`, and a tap never leaves it across lines.
pub(super) fn stacks(w: &crate::vocab::Windows) -> bool {
    w.input[0] == 1 && w.output[0] == 1 && w.kernel[0] == 1 && w.pads[0] == 0
}

/// The function giving the run of channels a tap of a window reads: the input's values at
/// `(ih, iw)`, or a run of zeros in the padding (stacked windows, [`stacks`]: `ih` the
/// entry, always inside).
pub(super) fn tap_helper(c: &mut Code, w: &crate::vocab::Windows, name: &str) {
    let (ih, iw, ch) = (w.input[0], w.input[1], w.channels);
    c.line(format!("static const float {name}_zeros[{ch}] = {{0.0f}};"));
    c.line(format!("static const float *{name}(const float *x, ptrdiff_t ih, ptrdiff_t iw)"));
    c.open("");
    if stacks(w) {
        c.line(format!("if (iw < 0 || iw >= {iw}) return {name}_zeros;"));
    } else {
        c.line(format!("if (ih < 0 || iw < 0 || ih >= {ih} || iw >= {iw}) return {name}_zeros;"));
    }
    c.line(format!("return x + ((size_t)ih * {iw} + (size_t)iw) * {ch};"));
    c.close("");
    c.line("");
}
