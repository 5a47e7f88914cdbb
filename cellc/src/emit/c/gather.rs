//! The C of a model's gathers by a table ([`Pick`]), in the form the plan gives each
//! ([`GatherForm`]); the tables at file scope, so that the copies of `PREFIX_steps` for
//! wider processors share them.
use super::model::ModelEmitter;
use super::text::{Code, float};
use crate::emit::runs::GatherForm;
use crate::ir::steps::Pick;

impl ModelEmitter<'_> {
    /// A gather by a table, in the form the plan gives it ([`GatherForm`]); the table of
    /// step `k`, if its form has one, is `gathers[k]`, at file scope (see
    /// [`ModelEmitter::gather_tables`]).
    pub(super) fn pick_step(&self, c: &mut Code, k: usize, s: &Pick) {
        let form = GatherForm::of(&s.table);
        let table = || self.gathers.get(&k).map_or("", String::as_str);
        match form {
            GatherForm::InlineRuns(runs) => self.inline_runs(c, s, &runs),
            GatherForm::Runs(runs) => self.table_of_runs(c, s, table(), runs.len()),
            GatherForm::FillThenPairs(pairs) => self.fill_then_pairs(c, s, table(), pairs.len()),
            GatherForm::Table => self.table_pick(c, s, table()),
        }
    }

    /// Whether a gather's form reads a table (written at file scope, so that the copies of
    /// `PREFIX_steps` for wider processors share it).
    pub(super) fn has_table(s: &Pick) -> bool {
        match GatherForm::of(&s.table) {
            GatherForm::InlineRuns(_) => false,
            GatherForm::FillThenPairs(pairs) => !pairs.is_empty(),
            GatherForm::Runs(_) | GatherForm::Table => true,
        }
    }

    /// The tables of the model's gathers, each a `static const` array named as
    /// `gathers` names it.
    pub(super) fn gather_tables(&self, c: &mut Code) {
        for (&k, name) in &self.gathers {
            let Some(crate::ir::Step::Pick(s)) = self.m.steps.get(k) else { continue };
            match GatherForm::of(&s.table) {
                GatherForm::InlineRuns(_) => {}
                GatherForm::Runs(runs) => {
                    c.open(format!("static const uint32_t {name}[{}][3] =", runs.len()));
                    for chunk in runs.chunks(6) {
                        let vals: Vec<String> = chunk.iter().map(|[d, f, l]| format!("{{{d}u, {f}u, {l}u}}")).collect();
                        c.line(format!("{},", vals.join(", ")));
                    }
                    c.close(";");
                }
                GatherForm::FillThenPairs(pairs) => {
                    c.open(format!("static const uint32_t {name}[{}][2] =", pairs.len()));
                    for chunk in pairs.chunks(8) {
                        let vals: Vec<String> = chunk.iter().map(|[i, v]| format!("{{{i}u, {v}u}}")).collect();
                        c.line(format!("{},", vals.join(", ")));
                    }
                    c.close(";");
                }
                GatherForm::Table => {
                    c.open(format!("static const uint32_t {name}[{}] =", s.table.len()));
                    for chunk in s.table.chunks(16) {
                        let vals: Vec<String> = chunk.iter().map(|&i| format!("{i}u")).collect();
                        c.line(format!("{},", vals.join(", ")));
                    }
                    c.close(";");
                }
            }
            c.line("");
        }
    }

    /// Each run a loop of its own known length (GCC makes vector moves of them).
    fn inline_runs(&self, c: &mut Code, s: &Pick, runs: &[[u32; 3]]) {
        // A pick of the fill alone (a window wholly in the padding) reads nothing.
        if runs.iter().any(|r| r[1] != Pick::NONE) {
            self.bind(c, "src", &s.src, false);
        }
        self.bind(c, "dst", &s.dst, true);
        c.open(format!("for (size_t e = 0; e < {}; ++e)", s.entries));
        for &[d, from, len] in runs {
            let take =
                if from == Pick::NONE { float(s.fill) } else { format!("src[e * {} + {from} + i]", s.src_stride) };
            c.line(format!("for (size_t i = 0; i < {len}; ++i) dst[e * {} + {d} + i] = {take};", s.dst_stride));
        }
        c.close("");
    }

    /// The runs from the static table `runs` of three values a run.
    fn table_of_runs(&self, c: &mut Code, s: &Pick, runs: &str, n: usize) {
        self.bind(c, "src", &s.src, false);
        self.bind(c, "dst", &s.dst, true);
        c.open(format!("for (size_t e = 0; e < {}; ++e)", s.entries));
        c.open(format!("for (size_t r = 0; r < {n}; ++r)"));
        c.line(format!("float *const out = dst + e * {} + {runs}[r][0];", s.dst_stride));
        c.line(format!("const uint32_t from = {runs}[r][1], len = {runs}[r][2];"));
        c.line(format!("if (from == UINT32_MAX) {{ for (uint32_t i = 0; i < len; ++i) out[i] = {}; }}", float(s.fill)));
        c.line(format!(
            "else {{ const float *const in = src + e * {} + from; for (uint32_t i = 0; i < len; ++i) out[i] = in[i]; }}",
            s.src_stride
        ));
        c.close("");
        c.close("");
    }

    /// Mostly fill (a transposed convolution's zeros between the inputs): the fill written
    /// over the whole entry, then the values taken.
    fn fill_then_pairs(&self, c: &mut Code, s: &Pick, pairs: &str, n_pairs: usize) {
        let n = s.table.len();
        if n_pairs > 0 {
            self.bind(c, "src", &s.src, false);
        }
        self.bind(c, "dst", &s.dst, true);
        c.open(format!("for (size_t e = 0; e < {}; ++e)", s.entries));
        c.line(format!("for (size_t i = 0; i < {n}; ++i) dst[e * {} + i] = {};", s.dst_stride, float(s.fill)));
        if n_pairs > 0 {
            c.line(format!(
                "for (size_t j = 0; j < {n_pairs}; ++j) dst[e * {} + {pairs}[j][0]] = src[e * {} + {pairs}[j][1]];",
                s.dst_stride, s.src_stride
            ));
        }
        c.close("");
    }

    /// A source (or the fill) for each value, from a static table.
    fn table_pick(&self, c: &mut Code, s: &Pick, table: &str) {
        let n = s.table.len();
        self.bind(c, "src", &s.src, false);
        self.bind(c, "dst", &s.dst, true);
        let take = if s.fills() {
            format!("{table}[i] == UINT32_MAX ? {} : src[e * {} + {table}[i]]", float(s.fill), s.src_stride)
        } else {
            format!("src[e * {} + {table}[i]]", s.src_stride)
        };
        c.open(format!("for (size_t e = 0; e < {}; ++e)", s.entries));
        c.line(format!("for (size_t i = 0; i < {n}; ++i) dst[e * {} + i] = {take};", s.dst_stride));
        c.close("");
    }
}
