//! What every generated C cell shares, whatever its kind: its macros and prototypes, its
//! weight tables (or the struct that holds weights given at run time, and the setter that
//! packs them), the input projection, and the public step, batched step and streaming
//! `feed` around the kind's `step_projected`.
use super::helpers::Helpers;
use super::names::CellNames;
use super::text::{Code, float, mul, quoted};
use crate::emit::plan::{FEED_BLOCK, Pack, Packed, Plan, Slot, Store, Tensor};
use crate::options::Strategy;

/// Rows of the register blocks of `project_rows`: each weight it loads serves 8 rows.
const ROWS: usize = 8;
/// Lanes of those blocks: one AVX-512 register (or two AVX ones), when the width allows, else
/// 8. Measured on configuration C (a GRU sequence, H=256, I=256, AMD Zen 5): 10.6 µs a step
/// in blocks of 4 rows x 8 lanes, 8.1 µs in 8 x 16, 8.4 µs in 8 rows x the whole tile.
const LANES: usize = 16;
const _: () = assert!(FEED_BLOCK.is_multiple_of(ROWS), "a block of steps is whole blocks of rows");
/// Widest loop over lanes kept rolled for GCC (see `_LANES` in the source): up to one
/// AVX-512 register. Wider loops vectorise well unrolled (measured: a GRU with
/// `linear_before_reset`, 48-lane loops, 4.7 µs a step unrolled, 5.6 µs rolled).
const ROLLED_LANES: usize = 16;

/// `PREFIX_LANES ` before a loop over `width` lanes that GCC must keep rolled, else nothing.
fn rolled(upper: &str, width: usize) -> String {
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
        let stride = match &slot.pack {
            Pack::Panels { cols, .. } => cols * self.row_len(slot),
            Pack::Bias { .. } => slot.width(self.tile),
        };
        let ty = c_type(self.slot_store(slot));
        c.line(format!("const {ty} *restrict {name} = {} + {tile} * {stride};", self.array(slot)));
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
        }
    }

    /// Lane `lane` (an expression) of row `k` (an expression) of a panel of `width` lanes,
    /// as f32.
    fn lane(&self, panel: &str, k: &str, width: usize, lane: &str) -> String {
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
        let q = self.split(width, cols);
        if q == 1 {
            c.line(format!("float {acc}[{width}];"));
            c.line(format!("for (size_t l = 0; l < {width}; ++l) {acc}[l] = {init};"));
            self.matvec(c, acc, panel, cols, width, v);
            return;
        }
        // Partial sum `i` takes the columns k ≡ i (mod q), the first from `init`; then they
        // are added, as in the Rust kernels' `panel_acc_split`.
        let parts: Vec<String> = (0..q).map(|i| if i == 0 { acc.to_owned() } else { format!("{acc}_{i}") }).collect();
        c.line(format!("float {};", parts.iter().map(|a| format!("{a}[{width}]")).collect::<Vec<_>>().join(", ")));
        c.line(format!(
            "for (size_t l = 0; l < {width}; ++l) {{ {acc}[l] = {init}; {} = 0.0f; }}",
            parts[1..].iter().map(|a| format!("{a}[l]")).collect::<Vec<_>>().join(" = ")
        ));
        let whole = cols / q * q;
        c.open(format!("for (size_t k = 0; k < {whole}; k += {q})"));
        for (i, a) in parts.iter().enumerate() {
            let k = if i == 0 { "k".to_owned() } else { format!("(k + {i})") };
            let vk = if i == 0 { format!("{v}[k]") } else { format!("{v}[k + {i}]") };
            self.lanes_fma(c, a, panel, &k, width, &vk);
        }
        c.close("");
        // The columns past the last whole group: one to each partial sum, in order.
        for (k, a) in (whole..cols).zip(&parts) {
            self.lanes_fma(c, a, panel, &k.to_string(), width, &format!("{v}[{k}]"));
        }
        let sum = parts.join("[l] + ");
        c.line(format!("for (size_t l = 0; l < {width}; ++l) {acc}[l] = {sum}[l];"));
    }

    /// Partial sums each lane of a tiled product of `width` lanes over `cols` columns is
    /// split into: a product so narrow that all its tiles fit in 4 AVX-512 registers is a
    /// short chain of dependent multiply–adds per lane with little else to overlap it (a
    /// GRU with H=16: the whole step waits on it), so 2 chains of half the length run side by
    /// side. Measured on that GRU (AMD Zen 5, GCC): 76 ns a step with one chain, 70 with 2,
    /// 84 with 4 (which the Rust kernels take up to 32 lanes: GCC then keeps the partial
    /// sums in memory).
    fn split(&self, width: usize, cols: usize) -> usize {
        if self.strategy == Strategy::Unrolled {
            return 1;
        }
        let narrow = self.tiles().saturating_mul(width) <= 64;
        if narrow && cols >= 4 { 2 } else { 1 }
    }

    /// `t * tile + l`: the state row of lane `l` of tile `t`.
    pub(super) fn row(&self) -> String {
        if self.tile == 1 { "t + l".into() } else { format!("t * {} + l", self.tile) }
    }

    /// Opens the loop over the lanes of tile `t` that hold real rows, declaring `j`, the row.
    pub(super) fn open_lanes(&self, c: &mut Code) {
        let (h, t) = (self.cell.spec.hidden, self.tile);
        if self.full_tiles() {
            c.open(format!("for (size_t l = 0; l < {t}; ++l)"));
        } else {
            c.line(format!("const size_t lanes = {h} - t * {t} < {t} ? {h} - t * {t} : {t};"));
            c.open("for (size_t l = 0; l < lanes; ++l)");
        }
        c.line(format!("const size_t j = {};", self.row()));
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
        let g = self.interleave(product.2);
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
        c.open(format!("for (size_t t = {from}; t < {to}; ++t)"));
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
        c.open(format!("for (size_t t0 = {from}; t0 < {to}; t0 += {g})"));
        for i in 0..g {
            self.bind_at(c, &format!("{name}{i}"), slot, &format!("(t0 + {i})"));
        }
        c.line(format!("float acc[{g}][{w}];"));
        c.open(format!("for (size_t l = 0; l < {w}; ++l)"));
        for i in 0..g {
            c.line(format!("acc[{i}][l] = {};", init(&format!("(t0 + {i})"))));
        }
        c.close("");
        c.open(format!("for (size_t k = 0; k < {}; ++k)", self.cell.spec.hidden));
        c.line(format!("const float vk = {v}[k];"));
        for i in 0..g {
            self.lanes_acc(c, &format!("acc[{i}]"), &format!("{name}{i}"), "k", w, "vk");
        }
        c.close("");
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

    /// Tiles whose products of `width` lanes a tiled step computes side by side: a narrow
    /// tile (one AVX-512 register or less) alone is one chain of dependent multiply–adds,
    /// which leaves the FMA units idle; 4 of them keep enough sums in flight (as the Rust
    /// kernels do). 1 for the unrolled strategy, wider tiles, or a cell of one tile.
    fn interleave(&self, width: usize) -> usize {
        if self.strategy == Strategy::Unrolled || width > ROLLED_LANES || self.tiles() < 2 {
            return 1;
        }
        4
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

    fn is_lstm(&self) -> bool {
        self.cell.spec.kind.has_cell_state()
    }

    /// Parameters of `step` after `x`: the previous state(s) and the outputs.
    fn state_params(&self, h: &str) -> String {
        if self.is_lstm() {
            format!("const float h[{h}], const float c[{h}], float out[{h}], float out_c[{h}]")
        } else {
            format!("const float h[{h}], float out[{h}]")
        }
    }

    /// The prototypes, each with its comment, and the macros of the cell, for the header.
    pub(super) fn declare(&self, hd: &mut Code, doc: &str) {
        let s = &self.cell.spec;
        let (i, h) = (s.input, s.hidden);
        let (mi, mh) = (self.n.m("_INPUT_SIZE"), self.n.m("_HIDDEN_SIZE"));
        hd.comment(doc);
        hd.line(format!("#define {mi} {i}"));
        hd.line(format!("#define {mh} {h}"));
        hd.line("");
        if self.has_struct() {
            self.declare_struct(hd);
        }
        let sp = self.self_param();
        let lstm = self.is_lstm();
        hd.comment(if lstm {
            "One step for one row: the next hidden state `out` and cell state `out_c` from the input `x` and the \
             previous states `h` and `c`. The outputs must not overlap the inputs (`feed` updates states in place)."
        } else {
            "One step for one row: the next hidden state `out` from the input `x` and the previous state `h`. `out` \
             must not overlap `x` or `h` (`feed` updates a state in place)."
        });
        hd.line(format!("void {}({sp}const float x[{mi}], {});", self.n.f("_step"), self.state_params(&mh)));
        hd.line("");
        let (arrays, states) = if lstm {
            (
                "`h`, `c`, `out` and `out_c` are",
                "const float *h, size_t h_len, const float *c, size_t c_len, float *out, size_t out_len, float *out_c, size_t out_c_len",
            )
        } else {
            ("`h` and `out` are", "const float *h, size_t h_len, float *out, size_t out_len")
        };
        hd.comment(&format!(
            "The step over a batch: `x` is [batch, {mi}], {arrays} [batch, {mh}], row-major, each with its length in \
             floats. Checks the lengths first: returns {u}_OK, {u}_ERR_PARTIAL_ROW (`x` is not whole rows), \
             {u}_ERR_LENGTH or {u}_ERR_NULL.",
            u = self.upper
        ));
        hd.line(format!("int {}({sp}const float *x, size_t x_len, {states});", self.n.f("_step_batch")));
        hd.line("");
        hd.comment(&format!(
            "Runs the cell over `steps` inputs `xs` ([steps, {mi}]: an audio block, a sensor window), carrying the \
             state{s} in `h`{c} from call to call and writing each step's hidden state to `ys` ([steps, {mh}]). \
             Feeding a sequence in pieces gives the same states as feeding it whole.",
            s = if lstm { "s" } else { "" },
            c = if lstm { " and `c`" } else { "" },
        ));
        let cs = if lstm { format!(", float c[{mh}]") } else { String::new() };
        hd.line(format!(
            "void {}({sp}float h[{mh}]{cs}, const float *xs, float *ys, size_t steps);",
            self.n.f("_feed")
        ));
        hd.line("");
    }

    /// The struct holding the weights given at run time, and its setter's prototype.
    fn declare_struct(&self, hd: &mut Code) {
        let ty = self.n.f("");
        hd.comment(&format!(
            "The weights of cell {} given at run time, packed for the kernel by {}.",
            quoted(&self.cell.name),
            self.n.f("_set_weights")
        ));
        hd.open(format!("typedef struct {ty}"));
        for slot in self.slots().filter(|s| self.is_runtime(s.tensor)) {
            hd.line(format!("{}_ALIGNED float {}[{}];", self.upper, slot.field, self.slot_len(slot)));
        }
        hd.close(&format!(" {ty};"));
        hd.line("");
        let tensors = self.runtime_tensors();
        let lens: Vec<String> = tensors
            .iter()
            .map(|t| format!("{}: {} floats", t.arg().to_ascii_uppercase(), self.declared_len(*t)))
            .collect();
        hd.comment(&format!(
            "Packs the weights given at run time ({}, in the {} layout) into `cell`. Returns {u}_OK, {u}_ERR_LENGTH \
             or {u}_ERR_NULL, and leaves `cell` as it was on an error.",
            lens.join("; "),
            self.cell.layout,
            u = self.upper
        ));
        hd.line(format!("int {}({ty} *cell, {});", self.n.f("_set_weights"), setter_params(&tensors)));
        hd.line("");
    }

    /// The definitions: setter, projections, the kind's `step_projected` (written by
    /// `body`), step, batched step and feed.
    pub(super) fn define(
        &self,
        c: &mut Code,
        helpers: &mut Helpers,
        body: impl FnOnce(&Self, &mut Code, &mut Helpers),
    ) {
        if self.has_struct() {
            self.define_setter(c, helpers);
        }
        self.define_project(c);
        body(self, c, helpers);
        self.define_step(c);
        self.define_step_batch(c);
        self.define_feed(c);
    }

    fn define_setter(&self, c: &mut Code, helpers: &mut Helpers) {
        let (u, h, tile) = (&self.upper, self.cell.spec.hidden, self.tile);
        let tensors = self.runtime_tensors();
        let params = setter_params(&tensors);
        c.function(&format!("int {}({} *cell, {params})", self.n.f("_set_weights"), self.n.f("")));
        c.line(format!("if (cell == NULL) return {u}_ERR_NULL;"));
        for t in &tensors {
            c.line(format!("if ({}_len != {}) return {u}_ERR_LENGTH;", t.arg(), self.declared_len(*t)));
        }
        let nulls: Vec<String> = tensors.iter().map(|t| format!("{} == NULL", t.arg())).collect();
        c.line(format!("if ({}) return {u}_ERR_NULL;", nulls.join(" || ")));
        let mut bias = "b";
        if self.folds_bias() {
            // The declared layout's bias blocks, summed into the kernel's convention.
            bias = "kb";
            c.line(format!("float kb[{}];", self.raw_len(Tensor::B)));
            c.open(format!("for (size_t j = 0; j < {h}; ++j)"));
            for (k, sum) in self.bias_terms().into_iter().enumerate() {
                let at = |g: usize| if g == 0 { "j".to_owned() } else { format!("{} + j", g * h) };
                let terms: String = sum.iter().map(|&(g, coef)| format!(" + {} * b[{}]", float(coef), at(g))).collect();
                c.line(format!("kb[{}] = 0.0f{terms};", at(k)));
            }
            c.close("");
        }
        for slot in self.slots().filter(|s| self.is_runtime(s.tensor)) {
            let src = if slot.tensor == Tensor::B { bias } else { slot.tensor.arg() };
            c.open("");
            match &slot.pack {
                Pack::Panels { sel, cols } => {
                    helpers.pack_panels = true;
                    // The kernel's gates are OpenVINO's; the declared layout may stack them otherwise.
                    let sel: Vec<String> = self.runtime_sel(sel).iter().map(ToString::to_string).collect();
                    c.line(format!("static const size_t sel[{}] = {{{}}};", sel.len(), sel.join(", ")));
                    c.line(format!(
                        "{}_pack_panels(cell->{}, {src}, {h}, {cols}, sel, {}, {tile});",
                        self.prefix,
                        slot.field,
                        sel.len()
                    ));
                }
                Pack::Bias { segs } => {
                    helpers.pack_bias = true;
                    let segs: Vec<String> = segs
                        .iter()
                        .map(|s| match s {
                            Some(0) => src.to_owned(),
                            Some(k) => format!("{src} + {}", k * h),
                            None => "NULL".into(),
                        })
                        .collect();
                    c.line(format!("const float *const segs[{}] = {{{}}};", segs.len(), segs.join(", ")));
                    c.line(format!(
                        "{}_pack_bias(cell->{}, segs, {}, {h}, {tile});",
                        self.prefix,
                        slot.field,
                        segs.len()
                    ));
                }
            }
            c.close("");
        }
        c.line(format!("return {u}_OK;"));
        c.close("");
        c.line("");
    }

    fn define_project(&self, c: &mut Code) {
        let (i, w, tiles, sp) = (self.cell.spec.input, self.width, self.tiles(), self.self_param());
        let nw = tiles * w;
        c.comment(&format!("The input projection of one row: x.W^T plus the input-side biases, [{tiles}][{w}]."));
        c.function(&format!("static void {}({sp}const float *restrict x, float *restrict p)", self.n.f("_project")));
        c.open(format!("for (size_t t = 0; t < {tiles}; ++t)"));
        self.bind(c, "w", &self.input[0]);
        self.bind(c, "b", &self.input[1]);
        self.accumulate(c, ("a", w, "b[l]"), "w", i, "x");
        c.line(format!("for (size_t l = 0; l < {w}; ++l) p[t * {w} + l] = a[l];"));
        c.close("");
        c.close("");
        c.line("");
        // Blocks of steps: each weight loaded serves ROWS rows.
        let lb = if w % LANES == 0 {
            LANES
        } else if w % (LANES / 2) == 0 {
            LANES / 2
        } else {
            w
        };
        c.line(format!("#if {}_FEED_BLOCK > 1", self.upper));
        c.comment(&format!(
            "The projection of {FEED_BLOCK} rows `x` ([{FEED_BLOCK}][{i}]) into `p` ([{FEED_BLOCK}][{nw}]), in blocks \
             of {ROWS} rows x {lb} lanes, so each weight loaded serves {ROWS} rows."
        ));
        c.function(&format!(
            "static void {}({sp}const float *restrict x, float *restrict p)",
            self.n.f("_project_rows")
        ));
        c.open(format!("for (size_t t = 0; t < {tiles}; ++t)"));
        self.bind(c, "w", &self.input[0]);
        self.bind(c, "b", &self.input[1]);
        c.open(format!("for (size_t s = 0; s < {FEED_BLOCK}; s += {ROWS})"));
        c.open(format!("for (size_t lb = 0; lb < {w}; lb += {lb})"));
        let acc: Vec<String> = (0..ROWS).map(|r| format!("a{r}")).collect();
        c.line(format!("float {};", acc.iter().map(|a| format!("{a}[{lb}]")).collect::<Vec<_>>().join(", ")));
        c.line(format!(
            "for (size_t l = 0; l < {lb}; ++l) {} = b[lb + l];",
            acc.iter().map(|a| format!("{a}[l]")).collect::<Vec<_>>().join(" = ")
        ));
        c.open(format!("for (size_t k = 0; k < {i}; ++k)"));
        if self.store == Store::F32 {
            c.line(format!("const float *restrict col = w + k * {w} + lb;"));
        }
        let lanes = rolled(&self.upper, lb);
        for r in 0..ROWS {
            let row = if r == 0 { "s".to_owned() } else { format!("(s + {r})") };
            c.line(format!("const float x{r} = x[{} + k];", mul(&row, i)));
        }
        c.open(format!("{lanes}for (size_t l = 0; l < {lb}; ++l)"));
        let wl = match self.store {
            Store::F32 => "col[l]".to_owned(),
            Store::F16 | Store::Bf16 => {
                c.line(format!("const float wl = {};", self.lane("w", "k", w, "lb + l")));
                "wl".to_owned()
            }
        };
        for r in 0..ROWS {
            c.line(format!("a{r}[l] += {wl} * x{r};"));
        }
        c.close("");
        c.close("");
        c.open(format!("for (size_t l = 0; l < {lb}; ++l)"));
        for r in 0..ROWS {
            let row = if r == 0 { "s".to_owned() } else { format!("(s + {r})") };
            c.line(format!("p[{row} * {nw} + t * {w} + lb + l] = a{r}[l];"));
        }
        c.close("");
        c.close("");
        c.close("");
        c.close("");
        c.close("");
        c.line("#endif");
        c.line("");
    }

    /// The parameters of `step_projected` after `p`.
    pub(super) fn projected_params(&self) -> &'static str {
        if self.is_lstm() {
            "const float *restrict h, const float *restrict c, float *restrict out, float *restrict out_c"
        } else {
            "const float *restrict h, float *restrict out"
        }
    }

    fn define_step(&self, c: &mut Code) {
        let s = &self.cell.spec;
        let (i, h, sp, sa) = (s.input, s.hidden, self.self_param(), self.self_arg());
        let (params, args) = if self.is_lstm() {
            (
                format!(
                    "const float h[restrict {h}], const float c[restrict {h}], float out[restrict {h}], float out_c[restrict {h}]"
                ),
                "h, c, out, out_c",
            )
        } else {
            (format!("const float h[restrict {h}], float out[restrict {h}]"), "h, out")
        };
        c.function(&format!("void {}({sp}const float x[restrict {i}], {params})", self.n.f("_step")));
        c.line(format!("float p[{}];", self.tiles() * self.width));
        c.line(format!("{}({sa}x, p);", self.n.f("_project")));
        c.line(format!("{}({sa}p, {args});", self.n.f("_step_projected")));
        c.close("");
        c.line("");
    }

    fn define_step_batch(&self, c: &mut Code) {
        let s = &self.cell.spec;
        let (i, h, sp, sa, u) = (s.input, s.hidden, self.self_param(), self.self_arg(), &self.upper);
        let lstm = self.is_lstm();
        let states = if lstm {
            "const float *h, size_t h_len, const float *c, size_t c_len, float *out, size_t out_len, float *out_c, size_t out_c_len"
        } else {
            "const float *h, size_t h_len, float *out, size_t out_len"
        };
        c.function(&format!("int {}({sp}const float *x, size_t x_len, {states})", self.n.f("_step_batch")));
        if self.has_struct() {
            c.line(format!("if (cell == NULL) return {u}_ERR_NULL;"));
        }
        if i == 1 {
            c.line("const size_t n = x_len;");
        } else {
            c.line(format!("const size_t n = x_len / {i};"));
            c.line(format!("if (x_len % {i} != 0) return {u}_ERR_PARTIAL_ROW;"));
        }
        let arrays: &[&str] = if lstm { &["h", "c", "out", "out_c"] } else { &["h", "out"] };
        let lens: Vec<String> = arrays.iter().map(|a| format!("{a}_len != {}", mul("n", h))).collect();
        c.line(format!("if ({}) return {u}_ERR_LENGTH;", lens.join(" || ")));
        let nulls: Vec<String> = std::iter::once(&"x").chain(arrays).map(|a| format!("{a} == NULL")).collect();
        c.line(format!("if (n > 0 && ({})) return {u}_ERR_NULL;", nulls.join(" || ")));
        c.open("for (size_t r = 0; r < n; ++r)");
        let (ri, rh) = (mul("r", i), mul("r", h));
        let rows = if lstm {
            format!("x + {ri}, h + {rh}, c + {rh}, out + {rh}, out_c + {rh}")
        } else {
            format!("x + {ri}, h + {rh}, out + {rh}")
        };
        c.line(format!("{}({sa}{rows});", self.n.f("_step")));
        c.close("");
        c.line(format!("return {u}_OK;"));
        c.close("");
        c.line("");
    }

    fn define_feed(&self, c: &mut Code) {
        let s = &self.cell.spec;
        let (i, h, sp, sa, u) = (s.input, s.hidden, self.self_param(), self.self_arg(), &self.upper);
        let nw = self.tiles() * self.width;
        let lstm = self.is_lstm();
        let cs = if lstm { format!(", float c[restrict {h}]") } else { String::new() };
        c.function(&format!(
            "void {}({sp}float h[restrict {h}]{cs}, const float *restrict xs, float *restrict ys, size_t steps)",
            self.n.f("_feed")
        ));
        c.line(format!("float p[{u}_FEED_BLOCK * {nw}];"));
        c.line(format!("float next[{h}];"));
        if lstm {
            c.line(format!("float next_c[{h}];"));
        }
        c.line("size_t t0 = 0;");
        c.open("while (t0 < steps)");
        c.line(format!("const size_t m = steps - t0 < {u}_FEED_BLOCK ? steps - t0 : {u}_FEED_BLOCK;"));
        project_block(c, u, (&self.n, sa), ("xs", i), nw, "m");
        c.open("for (size_t s = 0; s < m; ++s)");
        if lstm {
            c.line(format!("{}({sa}p + s * {nw}, h, c, next, next_c);", self.n.f("_step_projected")));
            c.open(format!("for (size_t j = 0; j < {h}; ++j)"));
            c.line(format!("ys[(t0 + s) * {h} + j] = next[j];"));
            c.line("h[j] = next[j];");
            c.line("c[j] = next_c[j];");
            c.close("");
        } else {
            c.line(format!("{}({sa}p + s * {nw}, h, next);", self.n.f("_step_projected")));
            c.open(format!("for (size_t j = 0; j < {h}; ++j)"));
            c.line(format!("ys[(t0 + s) * {h} + j] = next[j];"));
            c.line("h[j] = next[j];");
            c.close("");
        }
        c.close("");
        c.line("t0 += m;");
        c.close("");
        c.close("");
        c.line("");
    }
}

impl Kern<'_> {
    /// Opens `step_projected`, which the kind emitters fill: the step from the input's
    /// projection `p` ([tiles][width]) and the previous state.
    pub(super) fn open_step_projected(&self, c: &mut Code, doc: &str) {
        c.comment(doc);
        c.function(&format!(
            "static void {}({}const float *restrict p, {})",
            self.n.f("_step_projected"),
            self.self_param(),
            self.projected_params()
        ));
    }
}

/// The C type of an array stored as `store`.
fn c_type(store: Store) -> &'static str {
    match store {
        Store::F32 => "float",
        Store::F16 => "uint16_t",
        Store::Bf16 => "uint32_t",
    }
}

/// The parameters of a `_set_weights` after its target: each runtime tensor and its length.
pub(super) fn setter_params(tensors: &[Tensor]) -> String {
    let params: Vec<String> =
        tensors.iter().map(|t| format!("const float *{a}, size_t {a}_len", a = t.arg())).collect();
    params.join(", ")
}

/// Statements projecting the `m` inputs of `i` floats from `x + t0 * i` into `p` (`nw`
/// floats each) with the kernel `n` (whose functions take `arg` first): all at once when
/// they make a whole feed block, else one by one.
pub(super) fn project_block(
    c: &mut Code,
    upper: &str,
    (n, arg): (&CellNames, &str),
    (x, i): (&str, usize),
    nw: usize,
    m: &str,
) {
    c.line(format!("#if {upper}_FEED_BLOCK > 1"));
    c.open(format!("if ({m} == {upper}_FEED_BLOCK)"));
    c.line(format!("{}({arg}{x} + {}, p);", n.f("_project_rows"), mul("t0", i)));
    c.close(" else");
    c.line("#endif");
    c.open("");
    c.line(format!(
        "for (size_t s = 0; s < {m}; ++s) {}({arg}{x} + {}, p + {});",
        n.f("_project"),
        mul("(t0 + s)", i),
        mul("s", nw)
    ));
    c.close("");
}
