//! What every generated C cell shares, whatever its kind: its macros and prototypes, its
//! weight tables (or the struct that holds weights given at run time, and the setter that
//! packs them), the input projection, and the public step, batched step and streaming
//! `feed` around the kind's `step_projected`.
use super::helpers::Helpers;
use super::kern::{Kern, LANES, ROWS, rolled};
use super::names::CellNames;
use super::text::{Code, float, mul, quoted};
use crate::emit::plan::{Pack, Store, Tensor};

impl Kern<'_> {
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
        // The products fused where the target has FMA, as the runtime's kernels fuse them at
        // their levels with FMA (`UPPER_CONTRACT`, from the vector types' block). Measured
        // side by side (AMD Zen 4, GCC 12, `-O3 -march=native`): a step of GRU H=128 I=16
        // 2,044 → 2,023 ns, GRU lbr 2,112 → 2,082 ns, LSTM H=128 2,855 → 2,761 ns; whole
        // models, hey_mycroft 58.4 → 55.6 µs, PT-KWS 16.2 → 15.5 µs.
        helpers.vectors = true;
        self.define_project(c);
        self.define_project_rows(c, helpers);
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
        c.refuse(u, "cell == NULL", "ERR_NULL");
        for t in &tensors {
            c.refuse(u, &format!("{}_len != {}", t.arg(), self.declared_len(*t)), "ERR_LENGTH");
        }
        let nulls: Vec<String> = tensors.iter().map(|t| format!("{} == NULL", t.arg())).collect();
        c.refuse(u, &nulls.join(" || "), "ERR_NULL");
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
        c.comment(&format!("The input projection of one row: x.W^T plus the input-side biases, [{tiles}][{w}]."));
        c.kernel(&self.upper, &self.n.f("_project"), &format!("{sp}const float *restrict x, float *restrict p"));
        c.open(format!("for (size_t t = 0; t < {tiles}; ++t)"));
        self.bind(c, "w", &self.input[0]);
        self.bind(c, "b", &self.input[1]);
        self.accumulate(c, ("a", w, "b[l]"), "w", i, "x");
        c.line(format!("for (size_t l = 0; l < {w}; ++l) p[t * {w} + l] = a[l];"));
        c.close("");
        c.close("");
        c.line("");
    }

    /// `_project_rows`, the projection of a block of steps (`n` rows, at most a feed
    /// block): over GCC's vector extensions where the weights are f32 and a tile is whole
    /// vectors (see [`vector_block`]), else in blocks of [`ROWS`] rows x [`LANES`] lanes
    /// (the rows left over one at a time), so that each weight loaded serves [`ROWS`] rows.
    fn define_project_rows(&self, c: &mut Code, helpers: &mut Helpers) {
        let (i, w, tiles, sp, sa) =
            (self.cell.spec.input, self.width, self.tiles(), self.self_param(), self.self_arg());
        let nw = tiles * w;
        let vectors = if self.store == Store::F32 { vector_block(w) } else { None };
        let lb = if w % LANES == 0 {
            LANES
        } else if w % (LANES / 2) == 0 {
            LANES / 2
        } else {
            w
        };
        // A cell of long blocks projects blocks of rows at every level (`Plan::long_block`).
        let long = self.long_block(None);
        let (guard, most) = (long.is_none(), long.unwrap_or(crate::emit::plan::FEED_BLOCK));
        if guard {
            c.line(format!("#if {}_FEED_BLOCK > 1", self.upper));
        }
        let how = match vectors {
            Some((rows, per)) => format!(
                "in blocks of {rows} rows x {per} vectors of 8 lanes (GCC's vector extensions, kept in registers; the \
                 rows left over in smaller blocks) or, without them, "
            ),
            None => String::new(),
        };
        c.comment(&format!(
            "The projection of `n` rows `x` ([n][{i}], n at most {most}) into `p` ([n][{nw}]), {how}in \
             blocks of {ROWS} rows x {lb} lanes (the rows left over one by one), so each weight loaded serves {ROWS} \
             rows."
        ));
        c.kernel(
            &self.upper,
            &self.n.f("_project_rows"),
            &format!("{sp}const float *restrict x, float *restrict p, size_t n"),
        );
        if let Some((rows, per)) = vectors {
            helpers.vectors = true;
            c.line(format!("#if {}_VECTORS >= {VECTOR}", self.upper));
            self.project_rows_vectors(c, rows, per);
            c.line("#else");
        }
        c.open(format!("for (size_t t = 0; t < {tiles}; ++t)"));
        self.bind(c, "w", &self.input[0]);
        self.bind(c, "b", &self.input[1]);
        c.open(format!("for (size_t s = 0; s + {ROWS} <= n; s += {ROWS})"));
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
        // An int8 row's scale, read once for the rows' inputs.
        let scale = match self.input_scale("w", "k", w) {
            Some(s) => {
                c.line(format!("const float sk = {s};"));
                " * sk"
            }
            None => "",
        };
        for r in 0..ROWS {
            let row = if r == 0 { "s".to_owned() } else { format!("(s + {r})") };
            c.line(format!("const float x{r} = x[{} + k]{scale};", mul(&row, i)));
        }
        c.open(format!("{lanes}for (size_t l = 0; l < {lb}; ++l)"));
        let wl = match self.store {
            Store::F32 => "col[l]".to_owned(),
            Store::F16 | Store::Bf16 | Store::I8 => {
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
        c.line(format!(
            "for (size_t s = n - n % {ROWS}; s < n; ++s) {}({sa}x + {}, p + {});",
            self.n.f("_project"),
            mul("s", i),
            mul("s", nw)
        ));
        if vectors.is_some() {
            c.line("#endif");
        }
        c.close("");
        if guard {
            c.line("#endif");
        }
        c.line("");
    }

    /// The loops of `_project_rows` over vectors of 8 lanes: blocks of `rows` rows x `per`
    /// vectors of sums, each a variable of its own, which GCC keeps in registers (arrays of
    /// lanes it keeps in memory: a load and a store per multiply-add); the rows left over
    /// in blocks of half as many, down to one.
    fn project_rows_vectors(&self, c: &mut Code, rows: usize, per: usize) {
        c.open(format!("for (size_t t = 0; t < {}; ++t)", self.tiles()));
        self.bind(c, "w", &self.input[0]);
        self.bind(c, "b", &self.input[1]);
        c.line("size_t s = 0;");
        c.open(format!("for (; s + {rows} <= n; s += {rows})"));
        self.vector_rows(c, rows, per);
        c.close("");
        let mut r = rows / 2;
        while r >= 1 {
            c.open(if r == 1 { "if (s < n)".to_owned() } else { format!("if (s + {r} <= n)") });
            self.vector_rows(c, r, per);
            if r > 1 {
                c.line(format!("s += {r};"));
            }
            c.close("");
            r /= 2;
        }
        c.close("");
    }

    /// One register block of `_project_rows`, in the scope its caller opens: rows `s` to
    /// `s + rows - 1`, every vector of the tile `t`, `per` at a time.
    fn vector_rows(&self, c: &mut Code, rows: usize, per: usize) {
        let (i, w) = (self.cell.spec.input, self.width);
        let nw = self.tiles() * w;
        let (v8, whole) = (format!("{}_v8", self.prefix), w / VECTOR);
        let list = |f: &dyn Fn(usize) -> String, n: usize| (0..n).map(f).collect::<Vec<_>>().join(", ");
        let at = |base: &str, j: usize| if j == 0 { base.to_owned() } else { format!("{base} + {}", j * VECTOR) };
        let row = |r: usize| if r == 0 { "s".to_owned() } else { format!("(s + {r})") };
        // Vector `j` of the tile: `j0 + j`, or `j` where one block spans the tile.
        let (lanes, per_tile) = if per < whole {
            c.open(format!("for (size_t j0 = 0; j0 < {whole}; j0 += {per})"));
            (format!("j0 * {VECTOR}"), false)
        } else {
            ("0".to_owned(), true)
        };
        let base = |ptr: &str| if per_tile { ptr.to_owned() } else { format!("{ptr} + {lanes}") };
        c.line(format!("{v8} {};", list(&|j| format!("bv{j}"), per)));
        for j in 0..per {
            c.line(format!("__builtin_memcpy(&bv{j}, {}, sizeof bv{j});", at(&base("b"), j)));
        }
        let sums: Vec<String> = (0..rows).flat_map(|r| (0..per).map(move |j| format!("s{r}_{j} = bv{j}"))).collect();
        c.line(format!("{v8} {};", sums.join(", ")));
        c.open(format!("for (size_t k = 0; k < {i}; ++k)"));
        for r in 0..rows {
            c.line(format!("const float x{r} = x[{} + k];", mul(&row(r), i)));
        }
        c.line(format!("{v8} {};", list(&|j| format!("wv{j}"), per)));
        let keep = |c: &mut Code, j: usize| {
            c.line(format!("__builtin_memcpy(&wv{j}, {}, sizeof wv{j});", at(&base(&format!("w + k * {w}")), j)));
            if rows > 1 {
                c.line(format!("{}_KEEP(wv{j});", self.prefix.to_ascii_uppercase()));
            }
        };
        if per > rows {
            // More vectors of weights than rows: each used for every row as soon as it is
            // loaded, so that one register holds it, not `per` (6 vectors × 2 rows held 12
            // sums, 6 weights and 2 inputs in AVX2's 16 registers, and GCC spilled sums
            // to the stack every column).
            for j in 0..per {
                keep(c, j);
                c.line((0..rows).map(|r| format!("s{r}_{j} += wv{j} * x{r};")).collect::<Vec<_>>().join(" "));
            }
        } else {
            for j in 0..per {
                keep(c, j);
            }
            for r in 0..rows {
                c.line((0..per).map(|j| format!("s{r}_{j} += wv{j} * x{r};")).collect::<Vec<_>>().join(" "));
            }
        }
        c.close("");
        for r in 0..rows {
            let to = base(&format!("p + {} + t * {w}", mul(&row(r), nw)));
            for j in 0..per {
                c.line(format!("__builtin_memcpy({}, &s{r}_{j}, sizeof s{r}_{j});", at(&to, j)));
            }
        }
        if !per_tile {
            c.close("");
        }
    }

    /// The parameters of `step_projected` after `p`.
    pub(super) fn projected_params(&self) -> String {
        let states = if self.is_lstm() {
            "const float *restrict h, const float *restrict c, float *restrict out, float *restrict out_c"
        } else {
            "const float *restrict h, float *restrict out"
        };
        // The order of the recurrent tiles, from the last when `back` (see `Plan::snake`).
        let order = if self.snake() { ", int back" } else { "" };
        format!("{states}{order}")
    }

    /// `_step_projected`'s last argument, `back` (`expr`), when it takes one.
    pub(super) fn back_arg(&self, expr: &str) -> String {
        if self.snake() { format!(", {expr}") } else { String::new() }
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
        c.line(format!("{}({sa}p, {args}{});", self.n.f("_step_projected"), self.back_arg("0")));
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
            c.refuse(u, "cell == NULL", "ERR_NULL");
        }
        if i == 1 {
            c.line("const size_t n = x_len;");
        } else {
            c.line(format!("const size_t n = x_len / {i};"));
            c.refuse(u, &format!("x_len % {i} != 0"), "ERR_PARTIAL_ROW");
        }
        let arrays: &[&str] = if lstm { &["h", "c", "out", "out_c"] } else { &["h", "out"] };
        let lens: Vec<String> = arrays.iter().map(|a| format!("{a}_len != {}", mul("n", h))).collect();
        c.refuse(u, &lens.join(" || "), "ERR_LENGTH");
        let nulls: Vec<String> = std::iter::once(&"x").chain(arrays).map(|a| format!("{a} == NULL")).collect();
        c.refuse(u, &format!("n > 0 && ({})", nulls.join(" || ")), "ERR_NULL");
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
        // Steps alternate the order of the tiles (see `Plan::snake`).
        let back = self.back_arg("(int)(s & 1)");
        let cs = if lstm { format!(", float c[restrict {h}]") } else { String::new() };
        c.function(&format!(
            "void {}({sp}float h[restrict {h}]{cs}, const float *restrict xs, float *restrict ys, size_t steps)",
            self.n.f("_feed")
        ));
        let long = self.long_block(None);
        let block = block_expr(u, long);
        c.line(format!("float p[{block} * {nw}];"));
        c.line(format!("float next[{h}];"));
        if lstm {
            c.line(format!("float next_c[{h}];"));
        }
        c.line("size_t t0 = 0;");
        c.open("while (t0 < steps)");
        c.line(format!("const size_t m = steps - t0 < {block} ? steps - t0 : {block};"));
        project_block(c, (u, long.is_some()), (&self.n, sa), ("xs", i), nw, "m");
        c.open("for (size_t s = 0; s < m; ++s)");
        if lstm {
            c.line(format!("{}({sa}p + s * {nw}, h, c, next, next_c{back});", self.n.f("_step_projected")));
            c.open(format!("for (size_t j = 0; j < {h}; ++j)"));
            c.line(format!("ys[(t0 + s) * {h} + j] = next[j];"));
            c.line("h[j] = next[j];");
            c.line("c[j] = next_c[j];");
            c.close("");
        } else {
            c.line(format!("{}({sa}p + s * {nw}, h, next{back});", self.n.f("_step_projected")));
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
        let params = format!("{}const float *restrict p, {}", self.self_param(), self.projected_params());
        c.kernel(&self.upper, &self.n.f("_step_projected"), &params);
    }
}

/// The parameters of a `_set_weights` after its target: each runtime tensor and its length.
pub(super) fn setter_params(tensors: &[Tensor]) -> String {
    let params: Vec<String> =
        tensors.iter().map(|t| format!("const float *{a}, size_t {a}_len", a = t.arg())).collect();
    params.join(", ")
}

/// The block of steps of a feed, as a C constant: the plan's long block where the cell
/// takes one (see `Plan::long_block`), else the target's `_FEED_BLOCK`.
pub(super) fn block_expr(upper: &str, long: Option<usize>) -> String {
    match long {
        Some(n) => n.to_string(),
        None => format!("{upper}_FEED_BLOCK"),
    }
}

/// Statements projecting the `m` inputs of `i` floats from `x + t0 * i` into `p` (`nw`
/// floats each) with the kernel `n` (whose functions take `arg` first): in blocks of rows
/// where the target has feed blocks or the cell a long block (`long`), else one by one.
pub(super) fn project_block(
    c: &mut Code,
    (upper, long): (&str, bool),
    (n, arg): (&CellNames, &str),
    (x, i): (&str, usize),
    nw: usize,
    m: &str,
) {
    if long {
        c.line(format!("{}({arg}{x} + {}, p, {m});", n.f("_project_rows"), mul("t0", i)));
        return;
    }
    c.line(format!("#if {upper}_FEED_BLOCK > 1"));
    c.line(format!("{}({arg}{x} + {}, p, {m});", n.f("_project_rows"), mul("t0", i)));
    c.line("#else");
    c.line(format!(
        "for (size_t s = 0; s < {m}; ++s) {}({arg}{x} + {}, p + {});",
        n.f("_project"),
        mul("(t0 + s)", i),
        mul("s", nw)
    ));
    c.line("#endif");
}

/// Lanes of the vectors of `_project_rows`: 256 bits, which AVX2 and AVX-512 targets take at
/// once.
const VECTOR: usize = 8;

/// The register block of `_project_rows` over a tile of `width` lanes, `(rows, vectors)`:
/// the whole tile up to 8 vectors, else the most vectors up to 8 that divide it, with as
/// many rows as keep the sums within 12 of AVX2's 16 registers: 4 rows up to 3 vectors, 2
/// up to 6, else 1 (the blocks the runtime's kernels take; hey_mycroft's LSTMs, tiles of 8
/// vectors, AMD Zen 3: 73 against 88 µs in blocks of 8 rows x 16 lanes of arrays). `None`
/// where the tile is not whole vectors.
fn vector_block(width: usize) -> Option<(usize, usize)> {
    if width == 0 || !width.is_multiple_of(VECTOR) {
        return None;
    }
    let whole = width / VECTOR;
    let per = (1..=whole.min(8)).rev().find(|p| whole.is_multiple_of(*p))?;
    let rows = match per {
        1..=3 => 4,
        4..=6 => 2,
        _ => 1,
    };
    Some((rows, per))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::plan::FEED_BLOCK;

    #[test]
    fn vector_blocks_fit_the_registers_and_the_block_of_steps() {
        assert_eq!(vector_block(64), Some((1, 8)));
        assert_eq!(vector_block(16), Some((4, 2)));
        assert_eq!(vector_block(48), Some((2, 6)));
        assert_eq!(vector_block(96), Some((2, 6)));
        assert_eq!(vector_block(12), None);
        for width in (VECTOR..=1024).step_by(VECTOR) {
            let (rows, per) = vector_block(width).expect("whole vectors");
            assert!(rows * per <= 12, "{width}: {rows} x {per} sums");
            assert!((width / VECTOR).is_multiple_of(per) && FEED_BLOCK.is_multiple_of(rows), "{width}");
        }
    }
}
