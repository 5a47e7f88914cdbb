//! A convolution's dense layer run by the planar kernel in C (see
//! `cellc_runtime::__private::kernel::dense_planar_then`, whose copy of the input,
//! `cellc_pack::Planar`, it shares): each entry copied into `work`, then blocks of a group
//! of outputs × a row of positions in vectors of GCC's extensions, each weight broadcast.
//! Its input and outputs are laid out channels first.
use super::helpers::Helpers;
use super::names::CellNames;
use super::text::{Code, float};
use crate::emit::dense::{describe, planar_bias, planar_blocks, planar_weights};
use crate::emit::dense_plan::DensePlan;
use crate::ir::steps::MapFn;
use crate::ir::{Dense, DenseAct};
use crate::vocab::{Binary, Windows};
use cellc_pack::Planar;

/// The vector variants: the condition on the target's vectors, lanes a vector (0: plain
/// loops over 4 positions), the outputs a block takes (`sub`, dividing the group's `nb`) and
/// its vectors of positions, so that the `sub · vectors` sums fit the registers (24 of
/// AVX-512's 32, 12 of AVX's 16). (Blocks of 4 outputs × 2 vectors, the runtime's at AVX2,
/// GCC compiled with sums on the stack: swift-f0's 12→12 layers 1.4–1.9× as long.) SSE2
/// broadcasts a weight by a shuffle (one a weight and block, on one port) and its
/// multiplies overwrite an operand (a copy a product): its
/// blocks take 2 outputs × 4 vectors, or 1 × 6, each weight serving 4 or 6 vectors, their
/// sums, loads, weight and product within its 16 registers. (swift-f0 at `-O2`, Intel Xeon:
/// its 12-output layers at 17.9 GFLOP/s in blocks of 12 outputs × 1 vector, a shuffle a
/// product; 16.5 in 4 × 3, a sum kept in memory.)
fn variants(upper: &str, nb: usize) -> Vec<(String, usize, usize, usize)> {
    let fit = |sums: usize, sub: usize| (sums / sub).clamp(1, 8);
    let (narrow, per) = if nb.is_multiple_of(2) { (2, 4) } else { (1, 6) };
    vec![
        (format!("{upper}_VECTORS >= 16"), 16, nb, fit(24, nb)),
        (format!("{upper}_VECTORS >= 8"), 8, nb, fit(12, nb)),
        (format!("{upper}_VECTORS == 4"), 4, narrow, per),
        (String::new(), 0, nb, 1),
    ]
}

/// Emits the tables and the function `names.f("_run")` of dense layer `d` over windows
/// `w` run by the planar kernel: `(xs, ys, all_rows, work)`.
pub(super) fn emit(
    (d, w, plan): (&Dense, &Windows, &DensePlan),
    n: &CellNames,
    prefix: &str,
    tables: &mut Code,
    body: &mut Code,
    helpers: &mut Helpers,
) {
    let Some(geo) = Planar::of(w) else { return };
    let upper = prefix.to_ascii_uppercase();
    let (wt, b, slope) = (n.m("_W"), n.m("_B"), n.m("_S"));
    let (nb, panels) = planar_blocks(d);
    let decl = |name: &str| format!("{upper}_ALIGNED static const float {name}");
    let texts: Vec<String> = planar_weights(d, plan.store).into_iter().map(float).collect();
    super::dense::table(tables, &decl(&wt), &texts, &format!("Its weights, in panels of {nb} outputs."));
    let texts: Vec<String> = planar_bias(d).into_iter().map(float).collect();
    super::dense::table(tables, &decl(&b), &texts, "Its bias, in the same panels.");
    if let Some(DenseAct::PRelu(s)) = &d.act {
        let texts: Vec<String> = s.iter().copied().map(float).collect();
        super::dense::table(tables, &decl(&slope), &texts, "Its PReLU's slopes, one per output.");
    }
    helpers.fma();
    helpers.vectors = true;
    body.comment(&format!(
        "{} Run by the planar kernel: its input and outputs laid out channels first, each entry copied into `work` with its padding, a vector of positions along a row per load.",
        describe(d, plan.tiling, plan.store)
    ));
    body.kernel(&upper, &n.f("_run"), "const float *xs, float *ys, size_t all_rows, float *work");
    // The copy from the work area's first value on a cache line (`Planar::skip`).
    body.line(format!(
        "work += ({line} - (uintptr_t)work / sizeof *work % {line}) % {line};",
        line = cellc_pack::planar::LINE
    ));
    body.open(format!("for (size_t e = 0; e < all_rows / {}; ++e)", w.positions()));
    let groups = d.groups;
    if groups == 1 {
        body.line(format!("const float *const x = xs + e * {};", w.input_len()));
    } else {
        // Group by group: its channels copied, then its outputs.
        body.open(format!("for (size_t gr = 0; gr < {groups}; ++gr)"));
        body.line(format!("const float *const x = xs + (e * {groups} + gr) * {};", w.input_len()));
    }
    body.line(format!("float *const y = ys + e * {};", w.positions() * d.n));
    copy(body, &geo);
    let act = |v: &str, helpers: &mut Helpers| match &d.act {
        Some(DenseAct::Unary(a)) => super::steps::map_expr(prefix, MapFn::Unary(*a), &[v.to_owned()], helpers),
        Some(DenseAct::PRelu(_)) => {
            let s = format!("{slope}[j]");
            super::steps::map_expr(prefix, MapFn::Binary(Binary::PRelu), &[v.to_owned(), s], helpers)
        }
        None => v.to_owned(),
    };
    // Its sums read from `a` (a block of vectors, stored) or `s` (plain loops' arrays).
    let acts = [act("a[k][i]", helpers), act("s[k][i]", helpers)];
    let vars = variants(&upper, nb);
    let last = vars.len() - 1;
    for (i, (cond, lanes, sub, per)) in vars.iter().enumerate() {
        match i {
            0 => body.line(format!("#if {cond}")),
            _ if i == last => body.line("#else"),
            _ => body.line(format!("#elif {cond}")),
        }
        body.open("");
        let layer = Layer { d, geo: &geo, prefix, wt: &wt, b: &b, nb, sub: *sub, per_group: panels, acts: &acts };
        layer.rows(body, *lanes, *per);
        body.close("");
    }
    body.line("#endif");
    if groups > 1 {
        body.close("");
    }
    body.close("");
    body.close("");
    body.line("");
}

/// Entry `x` copied into `work` as `cellc_pack::Planar` lays it out.
fn copy(body: &mut Code, geo: &Planar) {
    let win = &geo.win;
    let [height, width] = win.input;
    let (len, row) = (geo.len, geo.row_len());
    let pad = win.pads[1].min(row);
    let run = width.min(row - pad);
    // Channel by channel, each in a plane of its own (`Planar::plane`).
    body.open(format!("for (size_t c = 0; c < {}; ++c)", win.channels));
    body.open(format!("for (size_t i = 0; i < {height}; ++i)"));
    body.line(format!("float *restrict row = work + {} + i * {row};", mul("c", geo.plane())));
    body.line(format!("const float *restrict src = x + ({} + i) * {width};", mul("c", height)));
    if geo.phases == 1 {
        // The padding's zeros, the data, the zeros past it.
        if pad > 0 {
            body.line(format!("__builtin_memset(row, 0, {pad} * sizeof *row);"));
        }
        body.line(format!("__builtin_memcpy(row + {pad}, src, {run} * sizeof *row);"));
        if pad + run < row {
            body.line(format!("__builtin_memset(row + {}, 0, {} * sizeof *row);", pad + run, row - pad - run));
        }
    } else {
        // Each phase: every `stride`-th input column from its first (`Planar::phase_run`),
        // zeros around them.
        // With a stride of 2 the columns both phases share a value of are split in pairs.
        let s = geo.phases;
        body.line(format!("__builtin_memset(row, 0, {row} * sizeof *row);"));
        let (at, first, pairs) = geo.pairs().unwrap_or((0, 0, 0));
        if pairs > 0 {
            body.open(format!("for (size_t t = 0; t < {pairs}; ++t)"));
            body.line(format!("row[{}t] = src[{}2 * t];", plus(at), plus(first)));
            body.line(format!("row[{}t] = src[{}2 * t];", plus(len + at), plus(first + 1)));
            body.close("");
        }
        for phase in 0..s {
            let (start, from, n) = geo.phase_run(phase);
            // The values the pairs did not write: before them and after them.
            for js in [start..at.clamp(start, start + n), (at + pairs).max(start)..start + n] {
                if !js.is_empty() {
                    body.line(format!(
                        "for (size_t j = 0; j < {}; ++j) row[{}j] = src[{}j * {s}];",
                        js.len(),
                        plus(phase * len + js.start),
                        plus(from + (js.start - start) * s)
                    ));
                }
            }
        }
    }
    body.close("");
    body.close("");
    body.line(format!("__builtin_memset(work + {}, 0, {row} * sizeof *work);", geo.zeros()));
}

/// What a variant's loops read.
struct Layer<'a> {
    d: &'a Dense,
    geo: &'a Planar,
    prefix: &'a str,
    wt: &'a str,
    b: &'a str,
    nb: usize,
    /// Outputs a block takes: `nb`, or a divisor of it.
    sub: usize,
    /// Panels a group.
    per_group: usize,
    /// The activation of output `j` at `a[k][i]` and at `s[k][i]`.
    acts: &'a [String; 2],
}

impl Layer<'_> {
    /// Every panel and output row: blocks of `per` vectors of `lanes` positions while whole
    /// ones fit the row (rounded up to the vector), then single vectors — or, where a row
    /// holds fewer than `per` vectors, one vector in each of `per` rows; without vectors,
    /// blocks of 4 positions in arrays.
    fn rows(&self, c: &mut Code, lanes: usize, per: usize) {
        let win = &self.geo.win;
        let [oh, ow] = win.output;
        let step = lanes.max(4);
        let end = ow.next_multiple_of(step);
        // A narrow layer's sums an output in as many rows (one would wait on each
        // multiply–add before the next) where it has half as many rows or more; no block
        // wider than the row.
        let (per, rv) =
            if lanes > 0 && end / step < per && 2 * oh >= per { (1, per) } else { (per.min(end / step).max(1), 1) };
        let (nb, sub) = (self.nb, self.sub);
        c.open(format!("for (size_t g = 0; g < {}; ++g)", self.per_group));
        c.line(format!("const float *restrict wg = {} + {} * {};", self.wt, self.panel(), self.d.k * nb));
        // Outputs `q..q + sub` of the panel: its weights `q` on in each row of `nb`.
        if sub < nb {
            c.open(format!("for (size_t q = 0; q < {nb}; q += {sub})"));
        }
        c.open(format!(
            "for (size_t oh = 0; oh < {oh}; {})",
            if rv == 1 { "++oh".to_owned() } else { format!("oh += {rv}") }
        ));
        c.line("size_t o = 0;");
        if lanes == 0 {
            c.open(format!("for (; o < {ow}; o += 4)"));
            self.block(c, 0, (1, 1));
            c.close("");
        } else {
            if per > 1 {
                c.open(format!("for (; o + {} <= {end}; o += {})", per * lanes, per * lanes));
                self.block(c, lanes, (per, 1));
                c.close("");
            }
            c.open(format!("for (; o < {ow}; o += {lanes})"));
            self.block(c, lanes, (1, rv));
            c.close("");
        }
        c.close("");
        if sub < nb {
            c.close("");
        }
        c.close("");
    }

    /// ` + q`, the first output of a block within its panel, where blocks take part of it.
    fn q(&self) -> &'static str {
        if self.sub < self.nb { " + q" } else { "" }
    }

    /// Panel `g` of the group counted over every group's: `g`, or `(gr · panels + g)`.
    fn panel(&self) -> String {
        if self.d.groups == 1 { "g".to_owned() } else { format!("({} + g)", mul("gr", self.per_group)) }
    }

    /// The `sub` outputs `q..` of panel `g` at the `per · lanes` positions of rows
    /// `oh..oh + rv` from `o` (`lanes` 0: 4 positions in arrays); rows past the output
    /// compute the last one again and store nothing.
    fn block(&self, c: &mut Code, lanes: usize, (per, rv): (usize, usize)) {
        let (geo, nb, sub, prefix, q) = (self.geo, self.nb, self.sub, self.prefix, self.q());
        let win = &geo.win;
        let (ch, [kh, kw], [oh, ow]) = (win.channels, win.kernel, win.output);
        let width = if lanes == 0 { 4 } else { per * lanes };
        let ty = format!("{prefix}_v{lanes}");
        let panel = self.panel();
        // Sum `t = i·per + v`: vector `v` of row `i`; a row's names end in `i` where rows are
        // blocked.
        let slots = per * rv;
        let at = |i: usize| if rv == 1 { String::new() } else { i.to_string() };
        if lanes == 0 {
            c.line(format!("float s[{sub}][4];"));
            c.line(format!(
                "for (size_t j = 0; j < {sub}; ++j) for (size_t l = 0; l < 4; ++l) s[j][l] = {}[{panel} * {nb}{q} + j];",
                self.b
            ));
        } else {
            let init: Vec<String> = (0..sub)
                .flat_map(|j| (0..slots).map(move |t| (j, t)))
                .map(|(j, t)| format!("s{j}_{t} = ({ty}){{0}} + {}[{panel} * {nb}{q} + {j}]", self.b))
                .collect();
            c.line(format!("{ty} {};", init.join(", ")));
        }
        c.open(format!("for (size_t kh = 0; kh < {kh}; ++kh)"));
        // Channel 0's row of the copy and how far the next channel's is; the row of zeros
        // in the padding.
        for i in 0..rv {
            let row = if rv == 1 { "oh".to_owned() } else { format!("(oh + {i} < {oh} ? oh + {i} : {})", oh - 1) };
            let r = format!("(ptrdiff_t)({} + {})", mul(&row, win.strides[0]), mul("kh", win.dilations[0]));
            let r = if win.pads[0] == 0 { r } else { format!("{r} - {}", win.pads[0]) };
            let i = at(i);
            c.line(format!("const ptrdiff_t r{i} = {r};"));
            c.line(format!("const int inside{i} = r{i} >= 0 && r{i} < {};", win.input[0]));
            c.line(format!(
                "const float *const base{i} = work + (inside{i} ? (size_t)r{i} * {} : {});",
                geo.row_len(),
                geo.zeros()
            ));
            c.line(format!("const size_t step{i} = inside{i} ? {} : 0;", geo.plane()));
        }
        c.open(format!("for (size_t kw = 0; kw < {kw}; ++kw)"));
        let (d, s) = (win.dilations[1], geo.phases);
        // Tap column `kw` reads phase `kw·dilation mod stride` from value `kw·dilation / stride`.
        let column = if s == 1 { mul("kw", d) } else { format!("kw * {d} % {s} * {} + kw * {d} / {s}", geo.len) };
        for i in (0..rv).map(at) {
            c.line(format!("const float *const xk{i} = base{i} + {column} + o;"));
        }
        c.line(format!("const float *restrict wk = wg + ({} + kw) * {};", mul("kh", kw), ch * nb));
        c.open(format!("for (size_t c = 0; c < {ch}; ++c)"));
        for i in (0..rv).map(at) {
            c.line(format!("const float *restrict xc{i} = xk{i} + c * step{i};"));
        }
        c.line(format!("const float *restrict wc = wk + c * {nb}{q};"));
        if lanes == 0 {
            c.line(format!(
                "for (size_t j = 0; j < {sub}; ++j) for (size_t l = 0; l < 4; ++l) s[j][l] += wc[j] * xc[l];"
            ));
        } else {
            let xs: Vec<String> = (0..slots).map(|t| format!("x{t}")).collect();
            c.line(format!("{ty} {};", xs.join(", ")));
            for t in 0..slots {
                c.line(format!("__builtin_memcpy(&x{t}, xc{} + {}, sizeof x{t});", at(t / per), t % per * lanes));
            }
            for j in 0..sub {
                let line: Vec<String> = (0..slots).map(|t| format!("s{j}_{t} += x{t} * wc[{j}];")).collect();
                c.line(line.join(" "));
            }
        }
        c.close("");
        c.close("");
        c.close("");
        // The sums to the outputs (those below the group's, the rows and positions inside
        // the output), mapped.
        c.line(format!("const size_t count = {ow} - o < {width} ? {ow} - o : {width};"));
        for i in 0..rv {
            if rv > 1 {
                c.open(format!("if (oh + {i} < {oh})"));
            }
            self.store(c, (lanes, per, width), i);
            if rv > 1 {
                c.close("");
            }
        }
    }

    /// Row `i` of a block's sums (vectors `i·per..` of `s{j}_`, or the array `s`) to the
    /// outputs, each mapped by the activation.
    fn store(&self, c: &mut Code, (lanes, per, width): (usize, usize, usize), i: usize) {
        let (nb, sub, q) = (self.nb, self.sub, self.q());
        let win = &self.geo.win;
        // Without vectors the sums are the array `s` already; vectors are stored to `a`, lane
        // by lane (a loop GCC makes one store): a sum whose address is taken (a `memcpy` from
        // it) is kept in memory by GCC in the loops before, each multiply–add a load and a
        // store (swift-f0's 12-output layers at 25 % of the FMA peak, -O3 -march=native, Zen 3).
        if lanes != 0 {
            c.line(format!("float a[{sub}][{width}];"));
            for j in 0..sub {
                let stores: Vec<String> = (0..per)
                    .map(|v| {
                        let t = i * per + v;
                        format!("a[{j}][{}l] = s{j}_{t}[l];", plus(v * lanes))
                    })
                    .collect();
                c.line(format!("for (size_t l = 0; l < {lanes}; ++l) {{ {} }}", stores.join(" ")));
            }
        }
        let m = self.d.group_outputs();
        c.open(format!("for (size_t k = 0; k < {sub} && g * {nb}{q} + k < {m}; ++k)"));
        let first = if self.d.groups == 1 { String::new() } else { format!("{} + ", mul("gr", m)) };
        c.line(format!("const size_t j = {first}g * {nb}{q} + k;"));
        let row = if i == 0 { "oh".to_owned() } else { format!("(oh + {i})") };
        c.line(format!("float *restrict yj = y + j * {} + {} + o;", win.positions(), mul(&row, win.output[1])));
        let act = &self.acts[usize::from(lanes == 0)];
        if self.d.act.is_none() {
            // A copy of a whole block's run at a constant length: at `count`, GCC makes it
            // `rep movs`, which costs more than the block's multiply–adds (swift-f0's 12→12
            // 3×1 layers 1.6× as long as the same layers with a relu, Zen 3). (With an
            // activation, the two loops made those 1.1× as long.)
            c.line(format!(
                "if (count == {width}) {{ for (size_t i = 0; i < {width}; ++i) yj[i] = {act}; }} else {{ for (size_t i = 0; i < count; ++i) yj[i] = {act}; }}"
            ));
        } else {
            c.line(format!("for (size_t i = 0; i < count; ++i) yj[i] = {act};"));
        }
        c.close("");
    }
}

/// `k + ` as the start of a C sum, nothing for 0.
fn plus(k: usize) -> String {
    if k == 0 { String::new() } else { format!("{k} + ") }
}

/// `var · k` as a C expression, without multiplying by 1.
fn mul(var: &str, k: usize) -> String {
    if k == 1 { var.to_owned() } else { format!("{var} * {k}") }
}
