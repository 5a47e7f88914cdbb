//! A C cell being emitted ([`Kern`]: its plan and its C names) and what the kernels of
//! every kind build their bodies from: bindings of the packed arrays, the products over
//! tiles (one at a time or side by side, in partial sums) and the weight tables.
use super::names::CellNames;
use super::text::{Code, float, quoted};
use crate::emit::plan::{FEED_BLOCK, Pack, Packed, Plan, Slot, Store};
use crate::options::Strategy;

/// Rows of the register blocks of `project_rows`: each weight it loads serves 8 rows.
pub(super) const ROWS: usize = 8;
/// Lanes of those blocks: one AVX-512 register (or two AVX ones), when the width allows, else
/// 8. Measured on configuration C (a GRU sequence, H=256, I=256, AMD Zen 5): 10.6 µs a step
/// in blocks of 4 rows x 8 lanes, 8.1 µs in 8 x 16, 8.4 µs in 8 rows x the whole tile.
pub(super) const LANES: usize = 16;
const _: () = assert!(FEED_BLOCK.is_multiple_of(ROWS), "a block of steps is whole blocks of rows");
/// The lanes of a vector on targets with 128-bit registers alone (SSE2, which x86-64 without
/// `-march` has; NEON).
pub(super) const VECTOR_NARROW: usize = 4;
/// The most sums of 128-bit vectors a product keeps at once: SSE2 has 16 registers, and no
/// fused multiply–add to take a weight from memory. Measured on AECMOS's dense layers at
/// `-O2` (x86-64 baseline, AMD Zen 4, the three programs side by side): blocks of 16 sums
/// 3.61 ms a call, 8 sums 3.51 ms, 12 sums 3.39 ms.
pub(super) const NARROW_SUMS: usize = 12;
/// Widest loop over lanes kept rolled for GCC (see `_LANES` in the source): up to one
/// AVX-512 register. Wider loops vectorise well unrolled (measured: a GRU with
/// `linear_before_reset`, 48-lane loops, 4.7 µs a step unrolled, 5.6 µs rolled).
const ROLLED_LANES: usize = 16;

/// `PREFIX_LANES ` before a loop over `width` lanes that GCC must keep rolled, else nothing.
pub(super) fn rolled(upper: &str, width: usize) -> String {
    if width <= ROLLED_LANES { format!("{upper}_LANES ") } else { String::new() }
}

/// A cell being emitted: its [`Plan`] (reachable through `Deref`) and its C names.
pub(super) struct Kern<'a> {
    pub(super) plan: Plan<'a>,
    pub(super) n: CellNames,
    /// The file's prefix, lower and upper case.
    pub(super) prefix: String,
    pub(super) upper: String,
    /// Set once a product fuses its multiply–adds (see [`Kern::split`]): the file then needs
    /// the `fma` helper.
    pub(super) fused: std::cell::Cell<bool>,
}

impl<'a> std::ops::Deref for Kern<'a> {
    type Target = Plan<'a>;
    fn deref(&self) -> &Plan<'a> {
        &self.plan
    }
}

impl Kern<'_> {
    /// Whether some weights come at run time, so the cell's functions take a `cell` pointer.
    pub(super) fn has_struct(&self) -> bool {
        !self.runtime_tensors().is_empty()
    }

    /// The leading `cell` parameter of the cell's compute functions, or nothing.
    pub(super) fn self_param(&self) -> String {
        if self.has_struct() { format!("const {} *cell, ", self.n.f("")) } else { String::new() }
    }

    /// The leading `cell` argument passed on to another function of the cell, or nothing.
    pub(super) fn self_arg(&self) -> &'static str {
        if self.has_struct() { "cell, " } else { "" }
    }

    /// Where a slot's array lives: its table, or the cell's field.
    fn array(&self, slot: &Slot) -> String {
        if self.is_runtime(slot.tensor) {
            format!("cell->{}", slot.field)
        } else {
            self.n.m(&format!("_{}", slot.field.to_ascii_uppercase()))
        }
    }

    /// Declares `name`, the part of `slot` for tile `t`.
    pub(super) fn bind(&self, c: &mut Code, name: &str, slot: &Slot) {
        self.bind_at(c, name, slot, "t");
    }

    /// [`Kern::bind`] to the tile `tile` (a C expression).
    fn bind_at(&self, c: &mut Code, name: &str, slot: &Slot, tile: &str) {
        let ty = c_type(self.slot_store(slot));
        let (array, stride) = self.tiles_of(slot);
        c.line(format!("const {ty} *restrict {name} = {array} + {tile} * {stride};"));
    }

    /// The array holding `slot`, and the values between the starts of two tiles in it.
    pub(super) fn tiles_of(&self, slot: &Slot) -> (String, usize) {
        let stride = match &slot.pack {
            Pack::Panels { cols, .. } => cols * self.row_len(slot),
            Pack::Bias { .. } => slot.width(self.tile),
        };
        (self.array(slot), stride)
    }

    /// Statements `acc[l] += <lane l of row k of panel> * vk` for the lanes `l` of a row of
    /// `width` lanes, `k` (an expression) a row of `panel`: one loop over f32 lanes, or the
    /// loops that convert 16-bit ones (for bfloat16 pairs, the low halves then the high).
    /// [`Kern::lanes_fma`] fuses them.
    fn lanes_acc(&self, c: &mut Code, acc: &str, panel: &str, k: &str, width: usize, vk: &str) {
        self.lanes_update(c, (acc, panel, k), width, vk, false);
    }

    /// [`Kern::lanes_acc`] as `acc[l] = fma(w, vk, acc[l])`, rounded once where the target
    /// has FMA: for the narrow products, whose chains of dependent sums bound a step. Fusing
    /// every product was not faster overall (AMD Zen 4, GCC 12, one program: GRU H=128 2.50 →
    /// 2.70 µs, H=16 85 → 81 ns); fusing the narrow ones only, a GRU with H=16 took 0.94–0.95×
    /// the time (85.5 → 80.9 ns, three runs).
    fn lanes_fma(&self, c: &mut Code, acc: &str, panel: &str, k: &str, width: usize, vk: &str) {
        self.fused.set(true);
        self.lanes_update(c, (acc, panel, k), width, vk, true);
    }

    fn lanes_update(&self, c: &mut Code, (acc, panel, k): (&str, &str, &str), width: usize, vk: &str, fused: bool) {
        let (p, rolled) = (&self.prefix, rolled(&self.upper, width));
        // `acc[i] += w * vk`, or fused.
        let update = |i: &str, w: String| {
            if fused {
                format!("{acc}[{i}] = {p}_fma({w}, {vk}, {acc}[{i}]);")
            } else {
                format!("{acc}[{i}] += {w} * {vk};")
            }
        };
        // A constant row is folded: `l`, `48 + l`; a variable one stays `k * 48 + l`.
        let at = |row: usize| match k.parse::<usize>() {
            Ok(0) => "l".to_owned(),
            Ok(k) => format!("{} + l", k * row),
            Err(_) => format!("{k} * {row} + l"),
        };
        match self.store {
            Store::F32 => c.line(format!(
                "{rolled}for (size_t l = 0; l < {width}; ++l) {}",
                update("l", format!("{panel}[{}]", at(width)))
            )),
            Store::F16 => c.line(format!(
                "{rolled}for (size_t l = 0; l < {width}; ++l) {}",
                update("l", format!("{p}_f16({panel}[{}])", at(width)))
            )),
            Store::Bf16 => {
                let words = cellc_pack::bf16_words(width);
                let w = at(words);
                c.line(format!(
                    "{rolled}for (size_t l = 0; l < {words}; ++l) {}",
                    update("l", format!("{p}_bf16_lo({panel}[{w}])"))
                ));
                let hi = width - words;
                if hi > 0 {
                    c.line(format!(
                        "{rolled}for (size_t l = 0; l < {hi}; ++l) {}",
                        update(&format!("{words} + l"), format!("{p}_bf16_hi({panel}[{w}])"))
                    ));
                }
            }
            Store::I8 => {
                // The row's input times its scale, once, then its integers times that.
                let row = cellc_pack::int8::row_len(width);
                let start = match k.parse::<usize>() {
                    Ok(0) => String::new(),
                    Ok(k) => format!(" + {}", k * row),
                    Err(_) => format!(" + {k} * {row}"),
                };
                let update = if fused {
                    format!("{acc}[l] = {p}_fma((float)q[4 + l], sv, {acc}[l]);")
                } else {
                    format!("{acc}[l] += (float)q[4 + l] * sv;")
                };
                c.line(format!(
                    "{{ const int8_t *const q = {panel}{start}; const float sv = {vk} * {p}_i8_scale(q); {rolled}for (size_t l = 0; l < {width}; ++l) {update} }}"
                ));
            }
        }
    }

    /// Lane `lane` (an expression) of row `k` (an expression) of a panel of `width` lanes,
    /// as f32 (for int8, the integer: its row's input takes [`Kern::input_scale`]).
    pub(super) fn lane(&self, panel: &str, k: &str, width: usize, lane: &str) -> String {
        let p = &self.prefix;
        match self.store {
            Store::F32 => format!("{panel}[{k} * {width} + {lane}]"),
            Store::F16 => format!("{p}_f16({panel}[{k} * {width} + {lane}])"),
            Store::Bf16 => {
                let words = cellc_pack::bf16_words(width);
                format!(
                    "({lane} < {words} ? {p}_bf16_lo({panel}[{k} * {words} + {lane}]) : {p}_bf16_hi({panel}[{k} * {words} + {lane} - {words}]))"
                )
            }
            Store::I8 => format!("(float){panel}[{k} * {} + 4 + {lane}]", cellc_pack::int8::row_len(width)),
        }
    }

    /// The factor of the input of row `k` (an expression) of a panel of `width` lanes: its
    /// scale for int8, else none.
    pub(super) fn input_scale(&self, panel: &str, k: &str, width: usize) -> Option<String> {
        match self.store {
            Store::I8 => {
                Some(format!("{}_i8_scale({panel} + {k} * {})", self.prefix, cellc_pack::int8::row_len(width)))
            }
            Store::F32 | Store::F16 | Store::Bf16 => None,
        }
    }

    /// Statements adding the product of the panel `panel` (`cols` columns of `width` lanes)
    /// and the vector `v` to the accumulator `acc`. Tiled: a loop over the columns.
    /// Unrolled: one statement per column.
    pub(super) fn matvec(&self, c: &mut Code, acc: &str, panel: &str, cols: usize, width: usize, v: &str) {
        match self.strategy {
            Strategy::Unrolled => {
                for k in 0..cols {
                    self.lanes_acc(c, acc, panel, &k.to_string(), width, &format!("{v}[{k}]"));
                }
            }
            Strategy::Tiled | Strategy::Auto => {
                c.open(format!("for (size_t k = 0; k < {cols}; ++k)"));
                c.line(format!("const float vk = {v}[k];"));
                self.lanes_acc(c, acc, panel, "k", width, "vk");
                c.close("");
            }
        }
    }

    /// Declares the accumulator `acc` of `width` lanes, each set to `init` (an expression
    /// of lane `l`), and adds the product of `panel` (`cols` columns) and the vector `v`.
    pub(super) fn accumulate(
        &self,
        c: &mut Code,
        (acc, width, init): (&str, usize, &str),
        panel: &str,
        cols: usize,
        v: &str,
    ) {
        let narrow = self.narrow(width);
        if narrow {
            c.line(format!("#if {}_VECTORS == {VECTOR_NARROW}", self.upper));
            c.line(format!("float {acc}[{width}];"));
            c.line(format!("for (size_t l = 0; l < {width}; ++l) {acc}[l] = {init};"));
            self.narrow_product(c, (acc, panel, cols, width, v));
            c.line("#else");
        }
        let q = self.split(width, cols);
        if q == 1 {
            c.line(format!("float {acc}[{width}];"));
            c.line(format!("for (size_t l = 0; l < {width}; ++l) {acc}[l] = {init};"));
            self.matvec(c, acc, panel, cols, width, v);
        } else {
            self.partial_sums(c, (acc, width, init), (panel, cols, v), q);
        }
        if narrow {
            c.line("#endif");
        }
    }

    /// [`Kern::accumulate`]'s product in `q` partial sums.
    fn partial_sums(
        &self,
        c: &mut Code,
        (acc, width, init): (&str, usize, &str),
        (panel, cols, v): (&str, usize, &str),
        q: usize,
    ) {
        // Partial sum `i` takes the columns k ≡ i (mod q), the first from `init`; then they
        // are added, as in the Rust kernels' `panel_acc_split`. The loop adding them is kept
        // rolled as the products are: unrolled, GCC took the sums of a 16-lane product apart
        // into scalar additions and shuffles (a GRU with H = 16, `onnx_gru`: 1.21 → 1.10 µs a
        // call rolled); the loop setting them stays unrolled (rolled too, an RNN with H = 16,
        // `onnx_rnn`, went from 0.46 to 0.58 µs).
        let rolled = rolled(&self.upper, width);
        let parts: Vec<String> = (0..q).map(|i| if i == 0 { acc.to_owned() } else { format!("{acc}_{i}") }).collect();
        c.line(format!("float {};", parts.iter().map(|a| format!("{a}[{width}]")).collect::<Vec<_>>().join(", ")));
        c.line(format!(
            "for (size_t l = 0; l < {width}; ++l) {{ {acc}[l] = {init}; {} = 0.0f; }}",
            parts[1..].iter().map(|a| format!("{a}[l]")).collect::<Vec<_>>().join(" = ")
        ));
        let whole = cols / q * q;
        if whole > 0 {
            c.open(format!("for (size_t k = 0; k < {whole}; k += {q})"));
            for (i, a) in parts.iter().enumerate() {
                let k = if i == 0 { "k".to_owned() } else { format!("(k + {i})") };
                let vk = if i == 0 { format!("{v}[k]") } else { format!("{v}[k + {i}]") };
                self.lanes_fma(c, a, panel, &k, width, &vk);
            }
            c.close("");
        }
        // The columns past the last whole group: one to each partial sum, in order.
        for (k, a) in (whole..cols).zip(&parts) {
            self.lanes_fma(c, a, panel, &k.to_string(), width, &format!("{v}[{k}]"));
        }
        // Added pairwise, `(s0 + s2) + (s1 + s3)`, as the Rust kernels add them.
        let mut sums: Vec<String> = parts.iter().map(|a| format!("{a}[l]")).collect();
        while sums.len() > 1 {
            let high = sums.split_off(sums.len() / 2);
            sums = sums.iter().zip(&high).map(|(a, b)| format!("({a} + {b})")).collect();
        }
        let sum = sums.concat();
        let sum = sum.strip_prefix('(').and_then(|s| s.strip_suffix(')')).unwrap_or(&sum);
        c.line(format!("{rolled}for (size_t l = 0; l < {width}; ++l) {acc}[l] = {sum};"));
    }

    /// Whether a product of `width` lanes has its 128-bit vector form
    /// ([`Kern::narrow_product`]): f32 weights in whole vectors, in a tiled loop.
    fn narrow(&self, width: usize) -> bool {
        matches!(self.store, Store::F32)
            && width > 0
            && width.is_multiple_of(VECTOR_NARROW)
            && !matches!(self.strategy, Strategy::Unrolled)
    }

    /// Statements adding the product of `panel` (`cols` columns of `width` lanes) and the
    /// vector `v` to the array `acc`, in sums of 128-bit vectors of GCC's vector extensions,
    /// up to [`NARROW_SUMS`] at a time: the form for targets whose vectors are that narrow
    /// (`PREFIX_VECTORS == 4`), where GCC at `-O2` keeps an array of lanes in memory, a load
    /// and a store per multiply–add, and named vectors in registers (PT-KWS at `-O2`, AMD
    /// Zen 4, GCC 12, the programs side by side: 61.0 → 39.9 µs a call; hey_mycroft 264.5 →
    /// 143.3 µs).
    fn narrow_product(&self, c: &mut Code, (acc, panel, cols, width, v): (&str, &str, usize, usize, &str)) {
        let ty = format!("{}_v4", self.prefix);
        let vectors = width / VECTOR_NARROW;
        let per = vectors.div_ceil(vectors.div_ceil(NARROW_SUMS));
        for first in (0..vectors).step_by(per) {
            let n = per.min(vectors - first);
            let at = |i: usize| match (first + i) * VECTOR_NARROW {
                0 => String::new(),
                a => format!(" + {a}"),
            };
            let names = |x: &str| (0..n).map(|i| format!("{x}{i}")).collect::<Vec<_>>().join(", ");
            c.open("");
            c.line(format!("{ty} {};", names("s")));
            for i in 0..n {
                c.line(format!("__builtin_memcpy(&s{i}, {acc}{}, sizeof s{i});", at(i)));
            }
            c.open(format!("for (size_t k = 0; k < {cols}; ++k)"));
            c.line(format!("const float vk = {v}[k];"));
            c.line(format!("{ty} {};", names("w")));
            for i in 0..n {
                c.line(format!("__builtin_memcpy(&w{i}, {panel} + k * {width}{}, sizeof w{i});", at(i)));
            }
            c.line((0..n).map(|i| format!("s{i} += w{i} * vk;")).collect::<Vec<_>>().join(" "));
            c.close("");
            for i in 0..n {
                c.line(format!("__builtin_memcpy({acc}{}, &s{i}, sizeof s{i});", at(i)));
            }
            c.close("");
        }
    }

    /// Partial sums each lane of a tiled product of `width` lanes over `cols` inputs is split
    /// into: the plan's schedule ([`crate::emit::plan::Schedule`]), as for the Rust kernels.
    fn split(&self, width: usize, cols: usize) -> usize {
        self.schedule(width, cols).split
    }

    /// `t * tile + l`: the state row of lane `l` of tile `t`.
    pub(super) fn row(&self) -> String {
        if self.tile == 1 { "t + l".into() } else { format!("t * {} + l", self.tile) }
    }

    /// Opens the loop over the lanes of tile `t`, declaring `j`, the row: every lane, those
    /// past the hidden size too (see [`Kern::pad_states`]).
    pub(super) fn open_lanes(&self, c: &mut Code) {
        c.open(format!("for (size_t l = 0; l < {}; ++l)", self.tile));
        c.line(format!("const size_t j = {};", self.row()));
    }

    /// The names the loops over lanes give the state arrays `names`: the arrays themselves
    /// when the tiles are whole, else copies padded to whole tiles (`h_pad`…), declared
    /// here, those in `reads` holding the array then zeros. The loops then run over whole
    /// tiles, which GCC vectorises without a scalar remainder (LSTMs of 3 layers with H = 10
    /// in tiles of 16, AMD Zen 3: 5.8 µs a call, 7.6 µs over the real lanes only); the lanes past
    /// the hidden size compute from zero weights and states, and [`Kern::unpad_states`]
    /// copies back only the real rows.
    pub(super) fn pad_states<const N: usize>(&self, c: &mut Code, names: [&str; N], reads: &[&str]) -> [String; N] {
        if self.full_tiles() {
            return names.map(str::to_owned);
        }
        let (h, nt) = (self.cell.spec.hidden, self.tiles() * self.tile);
        for n in names {
            if reads.contains(&n) {
                c.line(format!("float {n}_pad[{nt}] = {{0.0f}};"));
                c.line(format!("for (size_t j = 0; j < {h}; ++j) {n}_pad[j] = {n}[j];"));
            } else {
                c.line(format!("float {n}_pad[{nt}];"));
            }
        }
        names.map(|n| format!("{n}_pad"))
    }

    /// Copies the real rows of the padded arrays `names` (see [`Kern::pad_states`]) back.
    pub(super) fn unpad_states(&self, c: &mut Code, names: &[&str]) {
        if !self.full_tiles() {
            for n in names {
                c.line(format!("for (size_t j = 0; j < {}; ++j) {n}[j] = {n}_pad[j];", self.cell.spec.hidden));
            }
        }
    }

    /// The kernel of the cells whose gates all read `h` directly (RNN, LSTM): one
    /// accumulator `a` per tile, the projection plus `R·h`, then `lane` for each row `j`.
    pub(super) fn single_accumulator(&self, c: &mut Code, lane: &[String]) {
        let w = self.width;
        let init = |t: &str| format!("p[{t} * {w} + l]");
        self.tile_products(c, ("r", &self.recurrent[0], w), &init, "h", lane);
    }

    /// For each tile `t`, the accumulator `a` of `w` lanes, lane `l` starting at `init(t)`
    /// (a C expression of `l` and the tile), plus the product of the tile's panel of `slot`
    /// (bound to `name`) and the vector `v`; then `lane` for each row `j` of the tile.
    /// Narrow tiles are taken [`Kern::interleave`] at a time, and the tiles left over after
    /// the last whole group side by side too.
    pub(super) fn tile_products(
        &self,
        c: &mut Code,
        product: (&str, &Slot, usize),
        init: &dyn Fn(&str) -> String,
        v: &str,
        lane: &[String],
    ) {
        let tiles = self.tiles();
        let g = self.interleave(product.2, self.cell.spec.hidden);
        let whole = tiles / g * g;
        if g == 1 {
            self.tiles_one_at_a_time(c, product, (0, tiles), init, v, lane);
            return;
        }
        if whole > 0 {
            self.tiles_side_by_side(c, product, (0, whole, g), init, v, lane);
        }
        match tiles - whole {
            0 => {}
            1 => self.tiles_one_at_a_time(c, product, (whole, tiles), init, v, lane),
            rest => self.tiles_side_by_side(c, product, (whole, tiles, rest), init, v, lane),
        }
    }

    /// Opens the loop over the tiles `from..to`, `g` at a time, the first of each group in
    /// `t`: from the last group when `back` (see `Plan::snake`; the tiles after the last
    /// whole group are a loop of their own, after the groups in either order).
    pub(super) fn open_tiles(&self, c: &mut Code, t: &str, (from, to, g): (usize, usize, usize)) {
        let step = |v: &str| if g == 1 { format!("++{v}") } else { format!("{v} += {g}") };
        if self.snake() {
            c.open(format!("for (size_t i = {from}; i < {to}; {})", step("i")));
            // The last group's first tile (an empty range runs no step, whatever it says).
            let last = from.saturating_add(to).saturating_sub(g);
            c.line(format!("const size_t {t} = back ? {last} - i : i;"));
        } else {
            c.open(format!("for (size_t {t} = {from}; {t} < {to}; {})", step(t)));
        }
    }

    /// [`Kern::tile_products`] for the tiles `from..to`, one product at a time.
    fn tiles_one_at_a_time(
        &self,
        c: &mut Code,
        (name, slot, w): (&str, &Slot, usize),
        (from, to): (usize, usize),
        init: &dyn Fn(&str) -> String,
        v: &str,
        lane: &[String],
    ) {
        self.open_tiles(c, "t", (from, to, 1));
        self.bind(c, name, slot);
        self.accumulate(c, ("a", w, &init("t")), name, self.cell.spec.hidden, v);
        self.open_lanes(c);
        for s in lane {
            c.line(s);
        }
        c.close("");
        c.close("");
    }

    /// [`Kern::tile_products`] for the tiles `from..to`, `g` products side by side: each
    /// element of `v` loaded once for `g` independent chains of multiply–adds.
    fn tiles_side_by_side(
        &self,
        c: &mut Code,
        (name, slot, w): (&str, &Slot, usize),
        (from, to, g): (usize, usize, usize),
        init: &dyn Fn(&str) -> String,
        v: &str,
        lane: &[String],
    ) {
        self.open_tiles(c, "t0", (from, to, g));
        for i in 0..g {
            self.bind_at(c, &format!("{name}{i}"), slot, &format!("(t0 + {i})"));
        }
        c.line(format!("float acc[{g}][{w}];"));
        c.open(format!("for (size_t l = 0; l < {w}; ++l)"));
        for i in 0..g {
            c.line(format!("acc[{i}][l] = {};", init(&format!("(t0 + {i})"))));
        }
        c.close("");
        let narrow = self.narrow(w);
        if narrow {
            c.line(format!("#if {}_VECTORS == {VECTOR_NARROW}", self.upper));
            for i in 0..g {
                self.narrow_product(c, (&format!("acc[{i}]"), &format!("{name}{i}"), self.cell.spec.hidden, w, v));
            }
            c.line("#else");
        }
        c.open(format!("for (size_t k = 0; k < {}; ++k)", self.cell.spec.hidden));
        c.line(format!("const float vk = {v}[k];"));
        for i in 0..g {
            self.lanes_acc(c, &format!("acc[{i}]"), &format!("{name}{i}"), "k", w, "vk");
        }
        c.close("");
        if narrow {
            c.line("#endif");
        }
        c.open(format!("for (size_t g = 0; g < {g}; ++g)"));
        c.line("const size_t t = t0 + g;");
        c.line("const float *a = acc[g];");
        self.open_lanes(c);
        for s in lane {
            c.line(s);
        }
        c.close("");
        c.close("");
        c.close("");
    }

    /// Tiles whose products of `width` lanes a tiled step computes side by side: the plan's
    /// schedule, as for the Rust kernels.
    fn interleave(&self, width: usize, cols: usize) -> usize {
        self.schedule(width, cols).interleave
    }

    /// The weight tables of the embedded slots, aligned, eight values a line.
    pub(super) fn tables(&self, c: &mut Code) {
        for slot in self.slots().filter(|s| !self.is_runtime(s.tensor)) {
            let (form, texts, per_line): (&str, Vec<String>, usize) = match self.pack_now(slot) {
                Packed::F32(v) => ("", v.iter().map(|&x| float(x)).collect(), 8),
                Packed::F16(v) => (" (IEEE f16 bits)", v.iter().map(|x| format!("0x{x:04x}")).collect(), 12),
                Packed::Bf16(v) => (
                    " (bfloat16 pairs: lane j low, lane j + ceil(width / 2) high)",
                    v.iter().map(|x| format!("0x{x:08x}")).collect(),
                    8,
                ),
                Packed::I8(v) => (
                    " (int8: each row its column's float scale in 4 bytes, then its lanes)",
                    v.iter().map(i8::to_string).collect(),
                    16,
                ),
            };
            c.comment(&format!(
                "{} of cell {}, packed for the {} kernel{form}.",
                slot.describe(),
                quoted(&self.cell.name),
                self.strategy.name()
            ));
            let ty = c_type(self.slot_store(slot));
            c.open(format!("{}_ALIGNED static const {ty} {}[{}] =", self.upper, self.array(slot), texts.len()));
            for line in texts.chunks(per_line) {
                c.line(format!("{},", line.join(", ")));
            }
            c.close(";");
            c.line("");
        }
    }
}

/// The C type of an array stored as `store`.
pub(super) fn c_type(store: Store) -> &'static str {
    match store {
        Store::F32 => "float",
        Store::F16 => "uint16_t",
        Store::Bf16 => "uint32_t",
        Store::I8 => "int8_t",
    }
}
