//! The C of the steps around the cells: strided copies, elementwise chains, matrix
//! products, softmaxes, reductions, row gathers and pools over windows read in place, as
//! loops over indices fixed at compile time (the counterpart of the Rust emitter's
//! `steps.rs`); gathers by a table are `gather`'s.
use super::helpers::Helpers;
use super::model::ModelEmitter;
use super::text::{Code, float, mul};
use crate::ir::steps::{Arg, Copy, Map, MapFn, MatMul, Pool, Reduce, RowCopy, Softmax, Take, TopK};
use crate::ir::{Home, Operand};
use crate::ops::{Binary, Compare, ReduceKind, Unary};
use crate::vocab::Pooling;

/// The longest sum of a matrix product written out term by term instead of as a loop.
const UNROLLED_SUM: usize = 16;

impl ModelEmitter<'_> {
    /// Opens `for` loops over `counts` (indices `i0`, `i1`, …); returns how many it opened.
    pub(super) fn open_nest(c: &mut Code, counts: &[usize]) -> usize {
        for (k, n) in counts.iter().enumerate() {
            c.open(format!("for (size_t i{k} = 0; i{k} < {n}; ++i{k})"));
        }
        counts.len()
    }

    pub(super) fn close_nest(c: &mut Code, n: usize) {
        for _ in 0..n {
            c.close("");
        }
    }

    pub(super) fn reduce_step(&self, c: &mut Code, r: &Reduce) {
        self.bind(c, "src", &r.src, false);
        self.bind(c, "dst", &r.dst, true);
        let named = |p: &str, v: &[usize]| -> String {
            let t: Vec<String> =
                v.iter().enumerate().filter(|(_, s)| **s != 0).map(|(k, &s)| mul(&format!("{p}{k}"), s)).collect();
            if t.is_empty() { "0".into() } else { t.join(" + ") }
        };
        // Across rows (see `Reduce::across_rows`), the last kept axis's loop is innermost.
        let across = r.across_rows();
        let kept = r.outer.len() - usize::from(across.is_some());
        for (k, a) in r.outer[..kept].iter().enumerate() {
            c.open(format!("for (size_t o{k} = 0; o{k} < {}; ++o{k})", a[0]));
        }
        let n = r.inner.iter().map(|a| a[0]).product::<usize>();
        let (init, step, fin) = match r.kind {
            ReduceKind::Sum => ("0.0f", "acc += v;", "acc".to_owned()),
            ReduceKind::Mean => ("0.0f", "acc += v;", format!("acc / {}", float(n as f32))),
            ReduceKind::Prod => ("1.0f", "acc *= v;", "acc".to_owned()),
            ReduceKind::Max => ("-INFINITY", "if (v > acc) acc = v;", "acc".to_owned()),
            ReduceKind::Min => ("INFINITY", "if (v < acc) acc = v;", "acc".to_owned()),
            ReduceKind::L1 => ("0.0f", "acc += fabsf(v);", "acc".to_owned()),
            ReduceKind::L2 => ("0.0f", "acc += v * v;", "sqrtf(acc)".to_owned()),
            // The index, counted as the values go by (`k`), of the first (or last) extreme.
            ReduceKind::Arg { max, last } => {
                let step = match (max, last) {
                    (true, false) => "if (v > acc || k == 0) { acc = v; at = k; } ++k;",
                    (true, true) => "if (v >= acc || k == 0) { acc = v; at = k; } ++k;",
                    (false, false) => "if (v < acc || k == 0) { acc = v; at = k; } ++k;",
                    (false, true) => "if (v <= acc || k == 0) { acc = v; at = k; } ++k;",
                };
                (if max { "-INFINITY" } else { "INFINITY" }, step, "(float)at".to_owned())
            }
        };
        if let Some(len) = across {
            // A row of outputs at a time, reduced in place in `dst`.
            let od: Vec<usize> = r.outer[..kept].iter().map(|a| a[2]).collect();
            let from = |base: &str, at: Vec<String>| {
                let at: Vec<String> = at.into_iter().filter(|t| t != "0").collect();
                if at.is_empty() { base.to_owned() } else { format!("{base} + {}", at.join(" + ")) }
            };
            c.line(format!("float *const row = {};", from("dst", vec![named("o", &od)])));
            c.line(format!("for (size_t l = 0; l < {len}; ++l) row[l] = {init};"));
            for (j, a) in r.inner.iter().enumerate() {
                c.open(format!("for (size_t i{j} = 0; i{j} < {}; ++i{j})", a[0]));
            }
            let os: Vec<usize> = r.outer[..kept].iter().map(|a| a[1]).collect();
            let is: Vec<usize> = r.inner.iter().map(|a| a[1]).collect();
            c.line(format!("const float *const s = {};", from("src", vec![named("o", &os), named("i", &is)])));
            c.open(format!("for (size_t l = 0; l < {len}; ++l)"));
            c.line("const float v = s[l];");
            c.line("float acc = row[l];");
            c.line(step);
            c.line("row[l] = acc;");
            c.close("");
            for _ in &r.inner {
                c.close("");
            }
            if matches!(r.kind, ReduceKind::Mean | ReduceKind::L2) {
                c.line(format!("for (size_t l = 0; l < {len}; ++l) {{ const float acc = row[l]; row[l] = {fin}; }}"));
            }
            for _ in &r.outer[..kept] {
                c.close("");
            }
            return;
        }
        c.line(format!("float acc = {init};"));
        if matches!(r.kind, ReduceKind::Arg { .. }) {
            c.line("size_t k = 0, at = 0;");
        }
        for (k, a) in r.inner.iter().enumerate() {
            c.open(format!("for (size_t i{k} = 0; i{k} < {}; ++i{k})", a[0]));
        }
        let os: Vec<usize> = r.outer.iter().map(|a| a[1]).collect();
        let is: Vec<usize> = r.inner.iter().map(|a| a[1]).collect();
        c.line(format!("const float v = src[{} + {}];", named("o", &os), named("i", &is)));
        c.line(step);
        for _ in &r.inner {
            c.close("");
        }
        let od: Vec<usize> = r.outer.iter().map(|a| a[2]).collect();
        c.line(format!("dst[{}] = {fin};", named("o", &od)));
        for _ in &r.outer {
            c.close("");
        }
    }

    /// A gather by indices computed at run time, each index brought into the axis as
    /// `Take::position` defines (from the end when negative, clamped, NaN to 0).
    pub(super) fn take_step(&self, c: &mut Code, t: &Take) {
        self.bind(c, "src", &t.src, false);
        self.bind(c, "idx", &t.idx, false);
        self.bind(c, "dst", &t.dst, true);
        let counts: Vec<usize> = t.axes.iter().map(|a| a[0]).collect();
        let opened = Self::open_nest(c, &counts);
        let col = |k: usize| index(&t.axes.iter().map(|a| a[k]).collect::<Vec<_>>());
        let n = float(t.len as f32);
        c.line(format!("float i = idx[{}];", col(2)));
        c.line(format!("if (i < 0.0f) i += {n};"));
        c.line(format!("const size_t p = i >= {n} ? {} : i >= 0.0f ? (size_t)i : 0;", t.len - 1));
        c.line(format!("dst[{}] = src[{} + p * {}];", col(3), col(1), t.stride));
        Self::close_nest(c, opened);
    }

    /// The `k` extreme values along an axis: `k` passes over it, each taking the first value
    /// after the one before in `TopK::before`'s order (NaN last).
    pub(super) fn top_k_step(&self, c: &mut Code, t: &TopK) {
        self.bind(c, "src", &t.src, false);
        self.bind(c, "vals", &t.values, true);
        self.bind(c, "idxs", &t.indices, true);
        let counts: Vec<usize> = t.outer.iter().map(|a| a[0]).collect();
        let opened = Self::open_nest(c, &counts);
        let col = |k: usize| index(&t.outer.iter().map(|a| a[k]).collect::<Vec<_>>());
        let gt = if t.largest { ">" } else { "<" };
        // Whether value a at index ai comes before b at bi.
        let before = |a: &str, ai: &str, b: &str, bi: &str| {
            format!(
                "(({a} == {a}) && (({b} != {b}) || {a} {gt} {b} || ({a} == {b} && {ai} < {bi}))) || (({a} != {a}) && ({b} != {b}) && {ai} < {bi})"
            )
        };
        c.line(format!("const size_t s = {}, d = {};", col(1), col(2)));
        c.line("float pv = 0.0f;");
        c.line("size_t pi = 0;");
        c.open(format!("for (size_t t = 0; t < {}; ++t)", t.k));
        c.line("float bv = 0.0f;");
        c.line("size_t bi = 0;");
        c.line("int found = 0;");
        c.open(format!("for (size_t i = 0; i < {}; ++i)", t.len));
        c.line(format!("const float v = src[s + i * {}];", t.stride));
        c.line(format!("if (t > 0 && !({})) continue;", before("pv", "pi", "v", "i")));
        c.open(format!("if (!found || {})", before("v", "i", "bv", "bi")));
        c.line("bv = v;");
        c.line("bi = i;");
        c.line("found = 1;");
        c.close("");
        c.close("");
        c.line(format!("vals[d + t * {}] = bv;", t.dst_stride));
        c.line(format!("idxs[d + t * {}] = (float)bi;", t.dst_stride));
        c.line("pv = bv;");
        c.line("pi = bi;");
        c.close("");
        Self::close_nest(c, opened);
    }

    pub(super) fn copy_step(&self, c: &mut Code, s: &Copy, helpers: &mut Helpers) {
        self.bind(c, "src", &s.src, false);
        self.bind(c, "dst", &s.dst, true);
        if let Some(t) = s.transposed() {
            // The shared transpose function, a call per index of the outer axes.
            helpers.transpose = true;
            helpers.vectors = true;
            let counts: Vec<usize> = t.outer.iter().map(|a| a[0]).collect();
            let opened = Self::open_nest(c, &counts);
            let at = |k: usize| {
                let i = index(&t.outer.iter().map(|a| a[k]).collect::<Vec<_>>());
                if i == "0" { String::new() } else { format!(" + {i}") }
            };
            c.line(format!(
                "{}_transpose(src{}, dst{}, {}, {}, {}, {});",
                self.prefix,
                at(1),
                at(2),
                t.m,
                t.n,
                t.ss,
                t.ds
            ));
            Self::close_nest(c, opened);
            return;
        }
        let axes = &s.axes;
        let counts: Vec<usize> = axes.iter().map(|a| a[0]).collect();
        let opened = Self::open_nest(c, &counts);
        let si = index(&axes.iter().map(|a| a[1]).collect::<Vec<_>>());
        let di = index(&axes.iter().map(|a| a[2]).collect::<Vec<_>>());
        c.line(format!("dst[{di}] = src[{si}];"));
        Self::close_nest(c, opened);
    }

    /// A pool over windows read in place: each position's channels reduced in a local
    /// array (which the compiler keeps in vector registers), tap by tap, the taps in the
    /// padding skipped.
    pub(super) fn pool_step(&self, c: &mut Code, s: &Pool) {
        let w = &s.win;
        let ch = w.channels;
        self.bind(c, "src", &s.src, false);
        self.bind(c, "dst", &s.dst, true);
        let (start, take) = match s.kind {
            Pooling::Max => (float(f32::MIN), "acc[k] = v > acc[k] ? v : acc[k];"),
            Pooling::Sum => (float(0.0), "acc[k] += v;"),
        };
        c.open(format!("for (size_t e = 0; e < {}; ++e)", s.entries));
        c.open(format!("for (size_t p = 0; p < {}; ++p)", w.positions()));
        c.line(format!("const size_t oh = p / {ow}, ow = p % {ow};", ow = w.output[1]));
        c.line(format!("float acc[{ch}];"));
        c.line(format!("for (size_t k = 0; k < {ch}; ++k) acc[k] = {start};"));
        // A tap is skipped in the padding: before the data only where there are pads before
        // it, past its end only where a window reaches that far.
        let skip = |c: &mut Code, a: usize, i: &str| {
            let (p, n) = (w.pads[a], w.input[a]);
            let past = w.reach(a).is_none_or(|r| r >= p.saturating_add(n));
            let cond = match (p > 0, past) {
                (true, true) => format!("{i} < {p} || {i} - {p} >= {n}"),
                (true, false) => format!("{i} < {p}"),
                (false, true) => format!("{i} >= {n}"),
                (false, false) => return,
            };
            c.line(format!("if ({cond}) continue;"));
        };
        c.open(format!("for (size_t kh = 0; kh < {}; ++kh)", w.kernel[0]));
        c.line(format!("const size_t ih = oh * {} + kh * {};", w.strides[0], w.dilations[0]));
        skip(c, 0, "ih");
        c.open(format!("for (size_t kw = 0; kw < {}; ++kw)", w.kernel[1]));
        c.line(format!("const size_t iw = ow * {} + kw * {};", w.strides[1], w.dilations[1]));
        skip(c, 1, "iw");
        c.line(format!(
            "const float *const run = src + e * {} + ((ih - {}) * {} + (iw - {})) * {ch};",
            w.input_len(),
            w.pads[0],
            w.input[1],
            w.pads[1]
        ));
        c.line(format!("for (size_t k = 0; k < {ch}; ++k) {{ const float v = run[k]; {take} }}"));
        c.close("");
        c.close("");
        c.line(format!("float *const out = dst + (e * {} + p) * {ch};", w.positions()));
        c.line(format!("for (size_t k = 0; k < {ch}; ++k) out[k] = acc[k];"));
        c.close("");
        c.close("");
    }

    pub(super) fn map_step(&self, c: &mut Code, s: &Map, helpers: &mut Helpers) {
        for (k, a) in s.args.iter().enumerate() {
            self.bind(c, &format!("a{k}"), a, false);
        }
        self.bind_dst(c, "dst", &s.dst, &s.args);
        let counts: Vec<usize> = s.axes.iter().map(|a| a[0]).collect();
        // The loops but the innermost, then the operands that stay put along it read once
        // before it: a value GCC sees as a known constant, read inside the loop, keeps the
        // loop from vectorising (a depthwise convolution's weight per channel: 5× slower).
        let outer = counts.len().saturating_sub(1);
        let mut opened = Self::open_nest(c, &counts[..outer]);
        let at = |k: usize| index(&s.axes.iter().map(|a| a[k + 2]).collect::<Vec<_>>());
        let read = |k: usize| s.f.instrs.iter().any(|i| i.args.contains(&Arg::Input(k)));
        let still: Vec<bool> =
            (0..s.args.len()).map(|k| read(k) && s.axes.last().is_some_and(|a| a[k + 2] == 0)).collect();
        for k in (0..s.args.len()).filter(|&k| still[k]) {
            c.line(format!("const float v{k} = a{k}[{}];", at(k)));
        }
        // A chain that ends in a square root, into rows of `dst`: the roots taken by the row
        // function (see `helpers`) over each row, after the loop that computes what they
        // are roots of (straight from the operand when that is all the chain does).
        let row = |k: usize| index(&s.axes[..outer].iter().map(|a| a[k]).collect::<Vec<_>>());
        let root = match (s.f.instrs.last(), counts.last(), s.axes.last()) {
            (Some(last), Some(&n), Some(inner)) if last.f == MapFn::Unary(Unary::Sqrt) && inner[1] == 1 => {
                helpers.sqrt_row = true;
                if let (1, [Arg::Input(k)]) = (s.f.instrs.len(), last.args.as_slice())
                    && inner[k + 2] == 1
                {
                    c.line(format!("{}_sqrt_row(&dst[{}], &a{k}[{}], {n});", self.prefix, row(1), row(k + 2)));
                    Self::close_nest(c, opened);
                    return;
                }
                Some(format!("{}_sqrt_row(&dst[{}], &dst[{}], {n});", self.prefix, row(1), row(1)))
            }
            _ => None,
        };
        if let Some(&n) = counts.last() {
            c.open(format!("for (size_t i{outer} = 0; i{outer} < {n}; ++i{outer})"));
            opened += 1;
        }
        let reads: Vec<String> =
            (0..s.args.len()).map(|k| if still[k] { format!("v{k}") } else { format!("a{k}[{}]", at(k)) }).collect();
        let arg = |a: &Arg| match *a {
            Arg::Input(k) => reads.get(k).cloned().unwrap_or_default(),
            Arg::Temp(i) => format!("t{i}"),
        };
        let computed = s.f.instrs.len() - usize::from(root.is_some());
        for (j, instr) in s.f.instrs[..computed].iter().enumerate() {
            let args: Vec<String> = instr.args.iter().map(arg).collect();
            let e = self.map_expr(instr.f, &args, helpers);
            c.line(format!("const float t{j} = {e};"));
        }
        let di = index(&s.axes.iter().map(|a| a[1]).collect::<Vec<_>>());
        let value = match (&root, s.f.instrs.last()) {
            (Some(_), Some(last)) => last.args.first().map(arg).unwrap_or_default(),
            _ => format!("t{}", s.f.instrs.len().saturating_sub(1)),
        };
        c.line(format!("dst[{di}] = {value};"));
        if let Some(root) = root {
            c.close("");
            opened -= 1;
            c.line(root);
        }
        Self::close_nest(c, opened);
    }

    fn map_expr(&self, f: MapFn, args: &[String], helpers: &mut Helpers) -> String {
        map_expr(self.prefix, f, args, helpers)
    }

    pub(super) fn matmul_step(&self, c: &mut Code, s: &MatMul, helpers: &mut Helpers) {
        self.bind(c, "a", &s.a, false);
        self.bind(c, "b", &s.b, false);
        self.bind(c, "dst", &s.dst, true);
        if s.by_kernel() {
            // The shared product function, a call per matrix of the batch.
            helpers.product = true;
            helpers.vectors = true;
            let live: Vec<(usize, [usize; 4])> =
                s.batch.iter().copied().enumerate().filter(|(_, a)| a[0] > 1).collect();
            let at = |k: usize| -> String {
                let t: Vec<String> =
                    live.iter().filter(|(_, a)| a[k] != 0).map(|(i, a)| mul(&format!("i{i}"), a[k])).collect();
                if t.is_empty() { String::new() } else { format!(" + {}", t.join(" + ")) }
            };
            for (i, a) in &live {
                c.open(format!("for (size_t i{i} = 0; i{i} < {}; ++i{i})", a[0]));
            }
            let ([a0, a1], kb) = (s.a_strides, s.b_strides[0]);
            c.line(format!(
                "{}_product(a{}, b{}, dst{}, {}, {}, {}, {a0}, {a1}, {kb}, {});",
                self.prefix,
                at(1),
                at(2),
                at(3),
                s.m,
                s.k,
                s.n,
                s.dst_row
            ));
            Self::close_nest(c, live.len());
            return;
        }
        let mut axes: Vec<[usize; 4]> = s.batch.clone();
        axes.push([s.m, s.a_strides[0], 0, s.dst_row]);
        axes.push([s.n, 0, s.b_strides[1], 1]);
        // Axes of one element need no loop.
        let live: Vec<(usize, [usize; 4])> = axes.into_iter().enumerate().filter(|(_, a)| a[0] > 1).collect();
        // Index `k` of the operands (1: a, 2: b, 3: dst), plus `q` times `qs`.
        let idx = |k: usize, qs: usize| -> String {
            let mut t: Vec<String> =
                live.iter().filter(|(_, a)| a[k] != 0).map(|(i, a)| mul(&format!("i{i}"), a[k])).collect();
            if qs != 0 {
                t.push(mul("q", qs));
            }
            if t.is_empty() { "0".into() } else { t.join(" + ") }
        };
        for (i, a) in &live {
            c.open(format!("for (size_t i{i} = 0; i{i} < {}; ++i{i})", a[0]));
        }
        c.line("float acc = 0.0f;");
        let (sa, sb) = (s.a_strides[1], s.b_strides[0]);
        if s.k <= UNROLLED_SUM {
            // Written out, in the same order: GCC then vectorises the loop around it, as
            // LLVM does the Rust (a grouped convolution with 9 taps, AMD Zen 3: the rolled
            // sum took 9% of the model's time, written out 2.5%).
            c.line(format!("const float *const ar = a + {}, *const br = b + {};", idx(1, 0), idx(2, 0)));
            for q in (0..s.k).collect::<Vec<_>>().chunks(4) {
                let terms: Vec<String> =
                    q.iter().map(|&q| format!("acc += ar[{}] * br[{}];", q * sa, q * sb)).collect();
                c.line(terms.join(" "));
            }
        } else {
            c.line(format!("for (size_t q = 0; q < {}; ++q) acc += a[{}] * b[{}];", s.k, idx(1, sa), idx(2, sb)));
        }
        c.line(format!("dst[{}] = acc;", idx(3, 0)));
        Self::close_nest(c, live.len());
    }

    pub(super) fn rows_step(&self, c: &mut Code, r: &RowCopy) {
        let whole = |o: &Operand| match o.home {
            Home::Param(i) => format!("inputs[{}]", self.m.arg_index(i)),
            Home::Output(k) => format!("outputs[{k}]"),
            _ => self.ptr(o),
        };
        c.line(format!("const float *const src = {};", whole(&r.src)));
        c.line(format!("float *const dst = {};", whole(&r.dst)));
        let inner = r.inner;
        let (si, di) = if r.into_row {
            (format!("(o * batch + n) * {inner}"), format!("o * {inner}"))
        } else {
            (format!("o * {inner}"), format!("(o * batch + n) * {inner}"))
        };
        c.open(format!("for (size_t o = 0; o < {}; ++o)", r.outer));
        c.line(format!("for (size_t j = 0; j < {inner}; ++j) dst[{di} + j] = src[{si} + j];"));
        c.close("");
    }

    pub(super) fn softmax_step(&self, c: &mut Code, s: &Softmax, helpers: &mut Helpers) {
        self.bind(c, "src", &s.src, false);
        self.bind(c, "dst", &s.dst, true);
        let counts: Vec<usize> = s.outer.iter().map(|x| x[0]).collect();
        let opened = Self::open_nest(c, &counts);
        let st = s.stride;
        c.line(format!("const size_t o = {};", index(&s.outer.iter().map(|x| x[1]).collect::<Vec<_>>())));
        c.line("float max = src[o];");
        c.line("float sum = 0.0f;");
        c.line(format!(
            "for (size_t q = 1; q < {}; ++q) if (src[o + {}] > max) max = src[o + {}];",
            s.len,
            mul("q", st),
            mul("q", st)
        ));
        c.open(format!("for (size_t q = 0; q < {}; ++q)", s.len));
        let e = helpers.exp(self.prefix, &format!("src[o + {}] - max", mul("q", st)));
        c.line(format!("const float e = {e};"));
        c.line(format!("dst[o + {}] = e;", mul("q", st)));
        c.line("sum += e;");
        c.close("");
        if s.log {
            let ls = helpers.ln(self.prefix, "sum");
            c.line(format!("const float ls = {ls};"));
            c.line(format!(
                "for (size_t q = 0; q < {}; ++q) dst[o + {}] = (src[o + {}] - max) - ls;",
                s.len,
                mul("q", st),
                mul("q", st)
            ));
        } else {
            c.line(format!("for (size_t q = 0; q < {}; ++q) dst[o + {}] /= sum;", s.len, mul("q", st)));
        }
        Self::close_nest(c, opened);
    }
}

/// `i0 * s0 + i1 * s1 + …` (`0` without axes).
fn index(strides: &[usize]) -> String {
    let terms: Vec<String> =
        strides.iter().enumerate().filter(|(_, s)| **s != 0).map(|(k, &s)| mul(&format!("i{k}"), s)).collect();
    if terms.is_empty() { "0".into() } else { terms.join(" + ") }
}

/// `min(max(x + 3, 0), 6)` (NaN stays NaN, as in the Rust kernels).
fn clamp_0_6(p: &str, x: &str, helpers: &mut Helpers) -> String {
    clamp(p, &format!("({x} + 3.0f)"), "0.0f", "6.0f", helpers)
}

/// `x` clamped to `[lo, hi]`, NaN staying NaN.
fn clamp(p: &str, x: &str, lo: &str, hi: &str, helpers: &mut Helpers) -> String {
    let upper = helpers.select(p, &format!("{x} > {hi}"), hi, x);
    helpers.select(p, &format!("{x} < {lo}"), lo, &upper)
}

/// The C expression of an elementwise function of `args` (helpers named after `p`).
pub(super) fn map_expr(p: &str, f: MapFn, args: &[String], helpers: &mut Helpers) -> String {
    use crate::ir::Activation as A;
    let a = &args[0];
    let act = |h: &mut Helpers, act: A| h.act(p, &act, None, a);
    match f {
        MapFn::Unary(u) => match u {
            Unary::Relu => act(helpers, A::Relu),
            Unary::Sigmoid => act(helpers, A::Sigmoid),
            Unary::Tanh => act(helpers, A::Tanh),
            Unary::Elu { alpha } => act(helpers, A::Elu { alpha: alpha as f32 }),
            Unary::SoftPlus => act(helpers, A::Softplus),
            Unary::SoftSign => act(helpers, A::Softsign),
            Unary::Exp => helpers.exp(p, a),
            Unary::Abs => format!("fabsf({a})"),
            Unary::Negative => format!("(-{a})"),
            Unary::Clamp { min, max } => clamp(p, a, &float(min as f32), &float(max as f32), helpers),
            Unary::Log => helpers.ln(p, a),
            Unary::Sqrt => format!("sqrtf({a})"),
            Unary::Floor => format!("floorf({a})"),
            Unary::Ceiling => format!("ceilf({a})"),
            Unary::Sign => {
                let rest = helpers.select(p, &format!("{a} < 0.0f"), "-1.0f", &format!("{a} * 0.0f"));
                helpers.select(p, &format!("{a} > 0.0f"), "1.0f", &rest)
            }
            Unary::LogicalNot => format!("({a} == 0.0f ? 1.0f : 0.0f)"),
            Unary::HSigmoid => format!("({} / 6.0f)", clamp_0_6(p, a, helpers)),
            Unary::HSwish => format!("({a} * {} / 6.0f)", clamp_0_6(p, a, helpers)),
            Unary::Swish { beta } => {
                let bx = format!("({} * {a})", float(beta as f32));
                format!("({a} * {})", helpers.act(p, &A::Sigmoid, None, &bx))
            }
            Unary::HardSigmoid { alpha, beta } => {
                act(helpers, A::HardSigmoid { alpha: alpha as f32, beta: beta as f32 })
            }
            Unary::Selu { alpha, lambda } => {
                format!("({} * {})", float(lambda as f32), act(helpers, A::Elu { alpha: alpha as f32 }))
            }
            Unary::Mish => {
                let sp = act(helpers, A::Softplus);
                format!("({a} * {})", helpers.act(p, &A::Tanh, None, &sp))
            }
            Unary::Math(f) => format!("{}f({a})", f.name()),
            Unary::Trunc => format!("truncf({a})"),
            Unary::Gelu { tanh: false } => {
                format!("(0.5f * {a} * (1.0f + erff({a} * {})))", float(core::f32::consts::FRAC_1_SQRT_2))
            }
            Unary::Gelu { tanh: true } => {
                let k = float((2.0f64 / core::f64::consts::PI).sqrt() as f32);
                let inner = format!("({k} * ({a} + 0.044715f * {a} * {a} * {a}))");
                format!("(0.5f * {a} * (1.0f + {}))", helpers.act(p, &A::Tanh, None, &inner))
            }
            // `rintf` rounds halves to even in the default rounding mode, which C99 code
            // that never calls `fesetround` keeps.
            Unary::Round { even: true } => format!("rintf({a})"),
            Unary::Round { even: false } => format!("roundf({a})"),
        },
        MapFn::Binary(bf) => {
            let b = &args[1];
            match bf {
                Binary::Add => format!("({a} + {b})"),
                Binary::Subtract => format!("({a} - {b})"),
                Binary::Multiply => format!("({a} * {b})"),
                Binary::Divide { .. } => format!("({a} / {b})"),
                // As `fmaxf`/`fminf` compute them (a NaN loses to a number), written as a
                // select that vectorises: the library calls do not without fast-math (528
                // values of a PReLU's minimum and maximum: 2.8 µs on an Intel Xeon, GCC -O3).
                Binary::Maximum => helpers.select(p, &format!("{a} > {b} || {b} != {b}"), a, b),
                Binary::Minimum => helpers.select(p, &format!("{a} < {b} || {b} != {b}"), a, b),
                Binary::SquaredDifference => format!("(({a} - {b}) * ({a} - {b}))"),
                Binary::PRelu => helpers.select(p, &format!("{a} >= 0.0f"), a, &format!("{a} * {b}")),
                Binary::Power => format!("powf({a}, {b})"),
                Binary::LogicalAnd => format!("({a} != 0.0f && {b} != 0.0f ? 1.0f : 0.0f)"),
                Binary::LogicalOr => format!("({a} != 0.0f || {b} != 0.0f ? 1.0f : 0.0f)"),
                Binary::LogicalXor => format!("(({a} != 0.0f) != ({b} != 0.0f) ? 1.0f : 0.0f)"),
                Binary::Mod { fmod: true } => format!("fmodf({a}, {b})"),
                Binary::Mod { fmod: false } => {
                    // fmodf, moved by the divisor when the signs differ (C compilers compute
                    // the one remainder once: fmodf is a pure builtin).
                    let m = format!("fmodf({a}, {b})");
                    helpers.select(
                        p,
                        &format!("{m} != 0.0f && ({m} < 0.0f) != ({b} < 0.0f)"),
                        &format!("({m} + {b})"),
                        &m,
                    )
                }
            }
        }
        MapFn::Compare(cmp) => {
            let b = &args[1];
            let op = match cmp {
                Compare::Equal => "==",
                Compare::NotEqual => "!=",
                Compare::Less => "<",
                Compare::LessEqual => "<=",
                Compare::Greater => ">",
                Compare::GreaterEqual => ">=",
            };
            format!("({a} {op} {b} ? 1.0f : 0.0f)")
        }
        MapFn::Select => helpers.select(p, &format!("{a} != 0.0f"), &args[1], &args[2]),
    }
}
