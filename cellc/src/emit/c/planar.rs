//! A convolution's dense layer run by the planar kernel in C (see
//! `cellc_runtime::__private::kernel::dense_planar_then`, whose copy of the input,
//! `cellc_pack::Planar`, it shares): each entry copied into `work`, then blocks of a group
//! of outputs × a row of positions in vectors of GCC's extensions, each weight broadcast.
//! Its input and outputs are laid out channels first.
use super::helpers::Helpers;
use super::names::CellNames;
use super::text::{Code, float};
use crate::emit::dense::{describe, planar_bias, planar_groups, planar_weights};
use crate::emit::dense_plan::DensePlan;
use crate::ir::steps::MapFn;
use crate::ir::{Dense, DenseAct};
use crate::vocab::{Binary, Windows};
use cellc_pack::Planar;

/// The vector variants: the condition on the target's vectors, lanes a vector (0: plain
/// loops over 4 positions), the outputs a block takes (`sub`, dividing the group's `nb`) and
/// its vectors of positions, so that the `sub · vectors` sums fit the registers (24 of
/// AVX-512's 32, 12 of AVX's 16). SSE2 broadcasts a weight by a shuffle (one a weight and
/// block, on one port) and its multiplies overwrite an operand (a copy a product): its
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
    let (nb, groups) = planar_groups(d.n);
    let decl = |name: &str| format!("{upper}_ALIGNED static const float {name}");
    let texts: Vec<String> = planar_weights(d, plan.store).into_iter().map(float).collect();
    super::dense::table(tables, &decl(&wt), &texts, &format!("Its weights, in groups of {nb} outputs."));
    let texts: Vec<String> = planar_bias(d).into_iter().map(float).collect();
    super::dense::table(tables, &decl(&b), &texts, "Its bias, in the same groups.");
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
    body.line(format!("{upper}_CONTRACT"));
    body.open(format!("static void {}(const float *xs, float *ys, size_t all_rows, float *work)", n.f("_run")));
    body.open(format!("for (size_t e = 0; e < all_rows / {}; ++e)", w.positions()));
    body.line(format!("const float *const x = xs + e * {};", w.input_len()));
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
        let layer = Layer { d, geo: &geo, prefix, wt: &wt, b: &b, nb, sub: *sub, groups, acts: &acts };
        layer.rows(body, *lanes, *per);
        body.close("");
    }
    body.line("#endif");
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
    body.open(format!("for (size_t i = 0; i < {}; ++i)", win.channels * height));
    body.line(format!("float *restrict row = work + i * {row};"));
    body.line(format!("const float *restrict src = x + i * {width};"));
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
        // Input column `iw` at padded column `q`: phase `q mod stride`, value `q / stride`.
        let s = geo.phases;
        body.line(format!("__builtin_memset(row, 0, {row} * sizeof *row);"));
        body.open(format!("for (size_t iw = 0; iw < {width}; ++iw)"));
        body.line(format!("const size_t q = iw + {};", win.pads[1]));
        body.line(format!("if (q / {s} < {len}) row[q % {s} * {len} + q / {s}] = src[iw];"));
        body.close("");
    }
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
    groups: usize,
    /// The activation of output `j` at `a[k][i]` and at `s[k][i]`.
    acts: &'a [String; 2],
}

impl Layer<'_> {
    /// Every group and output row: blocks of `per` vectors of `lanes` positions while whole
    /// ones fit the row (rounded up to the vector), then single vectors; without vectors,
    /// blocks of 4 positions in arrays.
    fn rows(&self, c: &mut Code, lanes: usize, per: usize) {
        let win = &self.geo.win;
        let [oh, ow] = win.output;
        let step = lanes.max(4);
        let end = ow.next_multiple_of(step);
        // No block wider than the row.
        let per = per.min(end / step).max(1);
        let (nb, sub) = (self.nb, self.sub);
        c.open(format!("for (size_t g = 0; g < {}; ++g)", self.groups));
        c.line(format!("const float *restrict wg = {} + g * {};", self.wt, self.d.k * nb));
        // Outputs `q..q + sub` of the group: its weights `q` on in each row of `nb`.
        if sub < nb {
            c.open(format!("for (size_t q = 0; q < {nb}; q += {sub})"));
        }
        c.open(format!("for (size_t oh = 0; oh < {oh}; ++oh)"));
        c.line("size_t o = 0;");
        if lanes == 0 {
            c.open(format!("for (; o < {ow}; o += 4)"));
            self.block(c, 0, 1);
            c.close("");
        } else {
            if per > 1 {
                c.open(format!("for (; o + {} <= {end}; o += {})", per * lanes, per * lanes));
                self.block(c, lanes, per);
                c.close("");
            }
            c.open(format!("for (; o < {ow}; o += {lanes})"));
            self.block(c, lanes, 1);
            c.close("");
        }
        c.close("");
        if sub < nb {
            c.close("");
        }
        c.close("");
    }

    /// ` + q`, the first output of a block within its group, where blocks take part of it.
    fn q(&self) -> &'static str {
        if self.sub < self.nb { " + q" } else { "" }
    }

    /// The `sub` outputs `q..` of group `g` at the `per · lanes` positions of row `oh` from
    /// `o` (`lanes` 0: 4 positions in arrays).
    fn block(&self, c: &mut Code, lanes: usize, per: usize) {
        let (geo, nb, sub, prefix, q) = (self.geo, self.nb, self.sub, self.prefix, self.q());
        let win = &geo.win;
        let (ch, [kh, kw]) = (win.channels, win.kernel);
        let width = if lanes == 0 { 4 } else { per * lanes };
        let ty = format!("{prefix}_v{lanes}");
        let sums: Vec<(usize, usize)> = (0..sub).flat_map(|j| (0..per).map(move |v| (j, v))).collect();
        if lanes == 0 {
            c.line(format!("float s[{sub}][4];"));
            c.line(format!(
                "for (size_t j = 0; j < {sub}; ++j) for (size_t l = 0; l < 4; ++l) s[j][l] = {}[g * {nb}{q} + j];",
                self.b
            ));
        } else {
            let init: Vec<String> =
                sums.iter().map(|(j, v)| format!("s{j}_{v} = ({ty}){{0}} + {}[g * {nb}{q} + {j}]", self.b)).collect();
            c.line(format!("{ty} {};", init.join(", ")));
        }
        c.open(format!("for (size_t kh = 0; kh < {kh}; ++kh)"));
        // Channel 0's row of the copy and how far the next channel's is; the row of zeros
        // in the padding.
        let r = format!("(ptrdiff_t)({} + {})", mul("oh", win.strides[0]), mul("kh", win.dilations[0]));
        let r = if win.pads[0] == 0 { r } else { format!("{r} - {}", win.pads[0]) };
        c.line(format!("const ptrdiff_t r = {r};"));
        c.line(format!("const int inside = r >= 0 && r < {};", win.input[0]));
        c.line(format!("const float *const base = work + (inside ? (size_t)r * {} : {});", geo.row_len(), geo.zeros()));
        c.line(format!("const size_t step = inside ? {} : 0;", win.input[0] * geo.row_len()));
        c.open(format!("for (size_t kw = 0; kw < {kw}; ++kw)"));
        let (d, s) = (win.dilations[1], geo.phases);
        // Tap column `kw` reads phase `kw·dilation mod stride` from value `kw·dilation / stride`.
        let column = if s == 1 { mul("kw", d) } else { format!("kw * {d} % {s} * {} + kw * {d} / {s}", geo.len) };
        c.line(format!("const float *const xk = base + {column} + o;"));
        c.line(format!("const float *restrict wk = wg + ({} + kw) * {};", mul("kh", kw), ch * nb));
        c.open(format!("for (size_t c = 0; c < {ch}; ++c)"));
        c.line("const float *restrict xc = xk + c * step;");
        c.line(format!("const float *restrict wc = wk + c * {nb}{q};"));
        if lanes == 0 {
            c.line(format!(
                "for (size_t j = 0; j < {sub}; ++j) for (size_t l = 0; l < 4; ++l) s[j][l] += wc[j] * xc[l];"
            ));
        } else {
            let xs: Vec<String> = (0..per).map(|v| format!("x{v}")).collect();
            c.line(format!("{ty} {};", xs.join(", ")));
            for v in 0..per {
                c.line(format!("__builtin_memcpy(&x{v}, xc + {}, sizeof x{v});", v * lanes));
            }
            for j in 0..sub {
                let line: Vec<String> = (0..per).map(|v| format!("s{j}_{v} += x{v} * wc[{j}];")).collect();
                c.line(line.join(" "));
            }
        }
        c.close("");
        c.close("");
        c.close("");
        // The sums to the outputs (those below `n`, the positions inside the row), mapped.
        let [_, ow] = win.output;
        c.line(format!("const size_t count = {ow} - o < {width} ? {ow} - o : {width};"));
        // Without vectors the sums are the array `s` already; vectors are stored to `a`.
        if lanes != 0 {
            c.line(format!("float a[{sub}][{width}];"));
            for j in 0..sub {
                let stores: Vec<String> = (0..per)
                    .map(|v| format!("__builtin_memcpy(a[{j}] + {}, &s{j}_{v}, sizeof s{j}_{v});", v * lanes))
                    .collect();
                c.line(stores.join(" "));
            }
        }
        c.open(format!("for (size_t k = 0; k < {sub} && g * {nb}{q} + k < {}; ++k)", self.d.n));
        c.line(format!("const size_t j = g * {nb}{q} + k;"));
        c.line(format!("float *restrict yj = y + j * {} + {} + o;", win.positions(), mul("oh", ow)));
        c.line(format!("for (size_t i = 0; i < count; ++i) yj[i] = {};", self.acts[usize::from(lanes == 0)]));
        c.close("");
    }
}

/// `var · k` as a C expression, without multiplying by 1.
fn mul(var: &str, k: usize) -> String {
    if k == 1 { var.to_owned() } else { format!("{var} * {k}") }
}
