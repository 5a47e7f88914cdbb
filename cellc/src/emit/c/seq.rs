//! The Sequence forms in C: a kernel per direction (a cell of its own, with its own
//! functions) and a wrapper whose `run` takes one batch row through every step and whose
//! `run_batch` takes a whole batch in either major order, with the rules of
//! `emit::rust::seq`: zero outputs and a frozen state past a row's length, reverse within
//! the length, forward before reverse, zero final states for a row of length 0.
use super::cell::setter_params;
use super::names::CellNames;
use super::text::{Code, mul, quoted, refusal};
use crate::emit::plan::runtime_tensors;
use crate::ir::{Cell, Seq};

/// A direction's kernel, as the wrapper calls it.
pub(super) struct Dir {
    pub(super) n: CellNames,
    /// The wrapper's field holding the kernel's weights (`forward`, `reverse`).
    pub(super) field: &'static str,
    pub(super) reversed: bool,
    /// Floats of one step's projection.
    pub(super) nw: usize,
    /// Whether its `_step_projected` takes the order of the tiles (see `Plan::snake`).
    pub(super) snake: bool,
    /// Its block of steps where it takes a long one (see `Plan::long_block`).
    pub(super) long: Option<usize>,
}

/// The wrapper of the directions `dirs` of `cell`.
pub(super) struct Wrapper<'a> {
    pub(super) cell: &'a Cell,
    pub(super) q: &'a Seq,
    pub(super) n: &'a CellNames,
    pub(super) dirs: Vec<Dir>,
    /// Whether weights come at run time (then the wrapper is a struct of its kernels).
    pub(super) runtime: bool,
    /// The file's upper-case prefix.
    pub(super) upper: &'a str,
}

impl Wrapper<'_> {
    fn lstm(&self) -> bool {
        self.cell.spec.kind.has_cell_state()
    }

    fn self_param(&self) -> String {
        if self.runtime { format!("const {} *op, ", self.n.f("")) } else { String::new() }
    }

    /// The leading argument of direction `d`'s kernel functions.
    fn dir_arg(&self, d: &Dir) -> String {
        if self.runtime { format!("&op->{}, ", d.field) } else { String::new() }
    }

    fn run_params(&self, restrict: &str) -> String {
        let s = &self.cell.spec;
        let (i, h, l, nd) = (s.input, s.hidden, self.q.steps, self.dirs.len());
        let r = restrict;
        let mut p = format!("const float x[{r}{}], const float h0[{r}{}], ", l * i, nd * h);
        if self.lstm() {
            p.push_str(&format!("const float c0[{r}{}], ", nd * h));
        }
        p.push_str(&format!("size_t len, float y[{r}{}], float ho[{r}{}]", nd * l * h, nd * h));
        if self.lstm() {
            p.push_str(&format!(", float co[{r}{}]", nd * h));
        }
        p
    }

    fn batch_params(&self) -> String {
        let c = if self.lstm() { "float *c, size_t c_len, " } else { "" };
        format!(
            "int major, const float *x, size_t x_len, float *h, size_t h_len, {c}const size_t *lengths, size_t lengths_len, float *y, size_t y_len"
        )
    }

    /// Macros, struct and prototypes, for the header.
    pub(super) fn declare(&self, hd: &mut Code, doc: &str) {
        let s = &self.cell.spec;
        let u = self.upper;
        hd.comment(doc);
        for (m, v) in [
            ("_INPUT_SIZE", s.input),
            ("_HIDDEN_SIZE", s.hidden),
            ("_STEPS", self.q.steps),
            ("_DIRECTIONS", self.dirs.len()),
        ] {
            hd.line(format!("#define {}{m} {v}", self.n.upper));
        }
        hd.line("");
        let sp = self.self_param();
        if self.runtime {
            let ty = self.n.f("");
            hd.comment(&format!("The weights of {}, one kernel per direction.", quoted(&self.cell.name)));
            hd.open(format!("typedef struct {ty}"));
            for d in &self.dirs {
                hd.line(format!("{} {};", d.n.f(""), d.field));
            }
            hd.close(&format!(" {ty};"));
            hd.line("");
            hd.comment(&format!(
                "Packs the weights given at run time, [{}, ...] blocks (one per direction) in the layout the cell was \
                 declared in. Returns {u}_OK, {u}_ERR_LENGTH or {u}_ERR_NULL.",
                self.dirs.len()
            ));
            hd.line(format!(
                "int {}({ty} *op, {});",
                self.n.f("_set_weights"),
                setter_params(&runtime_tensors(self.cell))
            ));
            hd.line("");
        }
        let (states, finals) = if self.lstm() {
            ("initial states `h0` and `c0`", "final states to `ho` and `co`")
        } else {
            ("initial state `h0`", "final state to `ho`")
        };
        hd.comment(&format!(
            "One batch row: inputs `x` ([STEPS, INPUT_SIZE]) and {states} ([DIRECTIONS, HIDDEN_SIZE]); `len` valid \
             steps. Writes every step's hidden state to `y` ([DIRECTIONS, STEPS, HIDDEN_SIZE], zero past `len`) and \
             the {finals}. Outputs must not overlap inputs. Returns {u}_OK, or {u}_ERR_SEQUENCE_LENGTH (`len` past \
             STEPS) before writing anything."
        ));
        hd.line(format!("int {}({sp}{});", self.n.f("_run"), self.run_params("")));
        hd.line("");
        let c = if self.lstm() { " and `c`, each" } else { "" };
        hd.comment(&format!(
            "The whole batch on flat arrays, each with its length in floats. `major` is {u}_BATCH_MAJOR (`x` is \
             [batch, STEPS, INPUT_SIZE]) or {u}_TIME_MAJOR ([STEPS, batch, INPUT_SIZE]); `h`{c} [batch, DIRECTIONS, \
             HIDDEN_SIZE], holds the initial state and receives the final one; `lengths` gives each row's valid steps \
             (NULL: all of them); `y`, unless NULL, receives every step's hidden state in the same order ([batch, \
             DIRECTIONS, STEPS, HIDDEN_SIZE] or [STEPS, batch, DIRECTIONS, HIDDEN_SIZE]), zero past a row's length. \
             Checks every length first: returns {u}_OK, {u}_ERR_PARTIAL_ROW, {u}_ERR_LENGTH, \
             {u}_ERR_SEQUENCE_LENGTH, {u}_ERR_NULL or {u}_ERR_ARGUMENT (an unknown `major`)."
        ));
        hd.line(format!("int {}({sp}{});", self.n.f("_run_batch"), self.batch_params()));
        hd.line("");
    }

    /// The definitions of the setter, `run` and `run_batch`.
    pub(super) fn define(&self, c: &mut Code) {
        if self.runtime {
            self.define_setter(c);
        }
        self.define_run(c);
        self.define_run_batch(c);
    }

    fn define_setter(&self, c: &mut Code) {
        let (u, nd) = (self.upper, self.dirs.len());
        c.function(&format!(
            "int {}({} *op, {})",
            self.n.f("_set_weights"),
            self.n.f(""),
            setter_params(&runtime_tensors(self.cell))
        ));
        let args: Vec<&str> = runtime_tensors(self.cell).iter().map(|t| t.arg()).collect();
        c.refuse(u, "op == NULL", "ERR_NULL");
        if nd > 1 {
            let lens: Vec<String> = args.iter().map(|a| format!("{a}_len % {nd} != 0")).collect();
            c.refuse(u, &lens.join(" || "), "ERR_LENGTH");
        }
        let nulls: Vec<String> = args.iter().map(|a| format!("{a} == NULL")).collect();
        c.refuse(u, &nulls.join(" || "), "ERR_NULL");
        c.line("int status;");
        for (k, d) in self.dirs.iter().enumerate() {
            let parts: Vec<String> = args
                .iter()
                .map(|a| match (nd, k) {
                    (1, _) => format!("{a}, {a}_len"),
                    (_, 0) => format!("{a}, {a}_len / {nd}"),
                    (_, 1) => format!("{a} + {a}_len / {nd}, {a}_len / {nd}"),
                    _ => format!("{a} + {k} * ({a}_len / {nd}), {a}_len / {nd}"),
                })
                .collect();
            c.line(format!("status = {}(&op->{}, {});", d.n.f("_set_weights"), d.field, parts.join(", ")));
            c.line(format!("if (status != {u}_OK) return status;"));
        }
        c.line(format!("return {u}_OK;"));
        c.close("");
        c.line("");
    }

    fn define_run(&self, c: &mut Code) {
        let s = &self.cell.spec;
        let (i, h, l, u) = (s.input, s.hidden, self.q.steps, self.upper);
        let lstm = self.lstm();
        c.function(&format!("int {}({}{})", self.n.f("_run"), self.self_param(), self.run_params("restrict ")));
        c.refuse(u, &format!("len > {l}"), "ERR_SEQUENCE_LENGTH");
        for (k, d) in self.dirs.iter().enumerate() {
            let da = self.dir_arg(d);
            c.comment(if d.reversed {
                "Reverse: backwards from the row's end, a block of steps at a time."
            } else {
                "Forward: the kernel's own feed."
            });
            c.open("");
            c.line(format!("float h[{h}];"));
            if lstm {
                c.line(format!("float c[{h}];"));
            }
            c.open(format!("for (size_t j = 0; j < {h}; ++j)"));
            c.line(format!("h[j] = h0[{}j];", offset(k * h)));
            if lstm {
                c.line(format!("c[j] = c0[{}j];", offset(k * h)));
            }
            c.close("");
            let states = if lstm { "h, c" } else { "h" };
            if d.reversed {
                let nw = d.nw;
                let block = super::cell::block_expr(u, d.long);
                c.line(format!("float p[{block} * {nw}];"));
                c.line(format!("float next[{h}];"));
                if lstm {
                    c.line(format!("float next_c[{h}];"));
                }
                c.line("size_t t1 = len;");
                c.open("while (t1 > 0)");
                c.line(format!("const size_t n = t1 < {block} ? t1 : {block};"));
                c.line("const size_t t0 = t1 - n;");
                super::cell::project_block(c, (u, d.long.is_some()), (&d.n, &da), ("x", i), nw, "n");
                c.open("for (size_t s = n; s-- > 0;)");
                let next = if lstm { "next, next_c" } else { "next" };
                let back = if d.snake { ", (int)(s & 1)" } else { "" };
                c.line(format!("{}({da}p + s * {nw}, {states}, {next}{back});", d.n.f("_step_projected")));
                c.open(format!("for (size_t j = 0; j < {h}; ++j)"));
                c.line(format!("y[{}(t0 + s) * {h} + j] = next[j];", offset(k * l * h)));
                c.line("h[j] = next[j];");
                if lstm {
                    c.line("c[j] = next_c[j];");
                }
                c.close("");
                c.close("");
                c.line("t1 = t0;");
                c.close("");
            } else {
                c.line(format!("{}({da}{states}, x, y{}, len);", d.n.f("_feed"), plus(k * l * h)));
            }
            c.comment("A row of length 0 has zero final states, as OpenVINO computes them.");
            c.open(format!("for (size_t j = 0; j < {h}; ++j)"));
            c.line(format!("ho[{}j] = len > 0 ? h[j] : 0.0f;", offset(k * h)));
            if lstm {
                c.line(format!("co[{}j] = len > 0 ? c[j] : 0.0f;", offset(k * h)));
            }
            c.close("");
            c.close("");
        }
        c.open(format!("for (size_t d = 0; d < {}; ++d)", self.dirs.len()));
        c.open(format!("for (size_t t = len; t < {l}; ++t)"));
        c.line(format!("for (size_t j = 0; j < {h}; ++j) y[(d * {l} + t) * {h} + j] = 0.0f;"));
        c.close("");
        c.close("");
        c.line(format!("return {u}_OK;"));
        c.close("");
        c.line("");
    }

    fn define_run_batch(&self, c: &mut Code) {
        let s = &self.cell.spec;
        let (i, h, l, nd, u) = (s.input, s.hidden, self.q.steps, self.dirs.len(), self.upper);
        let lstm = self.lstm();
        c.function(&format!("int {}({}{})", self.n.f("_run_batch"), self.self_param(), self.batch_params()));
        if self.runtime {
            c.refuse(u, "op == NULL", "ERR_NULL");
        }
        c.line(format!("const size_t n = h_len / {};", nd * h));
        c.refuse(u, &format!("major != {u}_BATCH_MAJOR && major != {u}_TIME_MAJOR"), "ERR_ARGUMENT");
        c.refuse(u, &format!("h_len % {} != 0", nd * h), "ERR_PARTIAL_ROW");
        if lstm {
            c.refuse(u, &format!("c_len != n * {}", nd * h), "ERR_LENGTH");
        }
        c.refuse(u, &format!("x_len != n * {}", l * i), "ERR_LENGTH");
        c.open("if (lengths != NULL)");
        c.refuse(u, "lengths_len != n", "ERR_LENGTH");
        c.line(format!(
            "for (size_t r = 0; r < n; ++r) {}",
            refusal(u, &format!("lengths[r] > {l}"), "ERR_SEQUENCE_LENGTH")
        ));
        c.close("");
        c.refuse(u, &format!("y != NULL && y_len != n * {}", nd * l * h), "ERR_LENGTH");
        let c_null = if lstm { " || c == NULL" } else { "" };
        c.refuse(u, &format!("n > 0 && (x == NULL || h == NULL{c_null})"), "ERR_NULL");
        c.open("for (size_t r = 0; r < n; ++r)");
        c.line(format!("const size_t len = lengths != NULL ? lengths[r] : {l};"));
        for (k, d) in self.dirs.iter().enumerate() {
            let da = self.dir_arg(d);
            let row = match (nd, k) {
                (1, _) => "r".to_owned(),
                (_, 0) => format!("{nd} * r"),
                _ => format!("{nd} * r + {k}"),
            };
            c.open("");
            c.line(format!("float *restrict hr = h + ({row}) * {h};"));
            if lstm {
                c.line(format!("float *restrict cr = c + ({row}) * {h};"));
            }
            c.line(format!("float hs[{h}], next[{h}];"));
            if lstm {
                c.line(format!("float cs[{h}], next_c[{h}];"));
            }
            c.open(format!("for (size_t j = 0; j < {h}; ++j)"));
            c.line("hs[j] = hr[j];");
            if lstm {
                c.line("cs[j] = cr[j];");
            }
            c.close("");
            c.open("for (size_t s = 0; s < len; ++s)");
            c.line(if d.reversed { "const size_t t = len - 1 - s;" } else { "const size_t t = s;" });
            c.line(format!("const size_t xi = major == {u}_BATCH_MAJOR ? r * {l} + t : t * n + r;"));
            if lstm {
                c.line(format!("{}({da}x + {}, hs, cs, next, next_c);", d.n.f("_step"), mul("xi", i)));
            } else {
                c.line(format!("{}({da}x + {}, hs, next);", d.n.f("_step"), mul("xi", i)));
            }
            c.open("if (y != NULL)");
            c.line(format!("float *restrict yt = y + {} * {h};", y_index(u, nd, k, l)));
            c.line(format!("for (size_t j = 0; j < {h}; ++j) yt[j] = next[j];"));
            c.close("");
            c.open(format!("for (size_t j = 0; j < {h}; ++j)"));
            c.line("hs[j] = next[j];");
            if lstm {
                c.line("cs[j] = next_c[j];");
            }
            c.close("");
            c.close("");
            c.open("if (y != NULL)");
            c.open(format!("for (size_t t = len; t < {l}; ++t)"));
            c.line(format!("float *restrict yt = y + {} * {h};", y_index(u, nd, k, l)));
            c.line(format!("for (size_t j = 0; j < {h}; ++j) yt[j] = 0.0f;"));
            c.close("");
            c.close("");
            c.open(format!("for (size_t j = 0; j < {h}; ++j)"));
            c.line("hr[j] = len > 0 ? hs[j] : 0.0f;");
            if lstm {
                c.line("cr[j] = len > 0 ? cs[j] : 0.0f;");
            }
            c.close("");
            c.close("");
        }
        c.close("");
        c.line(format!("return {u}_OK;"));
        c.close("");
        c.line("");
    }
}

/// Where step `t` of direction `d` of row `r` goes in `y`, in the order `major` says.
fn y_index(u: &str, nd: usize, d: usize, l: usize) -> String {
    let (batch, time) = match (nd, d) {
        (1, _) => (format!("r * {l} + t"), "t * n + r".to_owned()),
        (_, 0) => (format!("{nd} * r * {l} + t"), format!("{nd} * (t * n + r)")),
        _ => (format!("({nd} * r + {d}) * {l} + t"), format!("{nd} * (t * n + r) + {d}")),
    };
    format!("(major == {u}_BATCH_MAJOR ? {batch} : {time})")
}

/// `k + ` for an index offset, nothing for 0.
fn offset(k: usize) -> String {
    if k == 0 { String::new() } else { format!("{k} + ") }
}

/// ` + k` after a pointer, nothing for 0.
fn plus(k: usize) -> String {
    if k == 0 { String::new() } else { format!(" + {k}") }
}
