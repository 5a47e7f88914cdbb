//! The C of a model's gathers by a table ([`Pick`]), in the form the plan gives each
//! ([`GatherForm`]); the tables at file scope, so that the copies of `PREFIX_steps` for
//! wider processors share them.
use super::model::ModelEmitter;
use super::text::{Code, float};
use crate::emit::runs::GatherForm;
use crate::ir::steps::Pick;

/// A gather's form, decided once ([`GatherForm::of`] reads the whole table), and the name of
/// its table at file scope where the form reads one (`name` gives it).
pub(super) fn form_and_table(s: &Pick, name: impl FnOnce() -> String) -> (GatherForm, Option<String>) {
    let form = GatherForm::of(&s.table);
    let reads = match &form {
        GatherForm::InlineRuns(_) => false,
        GatherForm::FillThenPairs(pairs) => !pairs.is_empty(),
        GatherForm::Runs(_) | GatherForm::Table => true,
    };
    (form, reads.then(name))
}

/// `static const uint32_t name[N]` (or `[N][W]`, `W` the width of each item), `per_line`
/// items a line.
fn table(c: &mut Code, name: &str, width: &str, items: &[String], per_line: usize) {
    c.open(format!("static const uint32_t {name}[{}]{width} =", items.len()));
    for line in items.chunks(per_line) {
        c.line(format!("{},", line.join(", ")));
    }
    c.close(";");
    c.line("");
}

impl ModelEmitter<'_> {
    /// A gather by a table, in its `form`; its table `name`, if the form has one, at file
    /// scope (see [`ModelEmitter::gather_tables`]).
    pub(super) fn pick_step(&self, c: &mut Code, s: &Pick, (form, name): &(GatherForm, Option<String>)) {
        let name = name.as_deref().unwrap_or_default();
        match form {
            GatherForm::InlineRuns(runs) => self.inline_runs(c, s, runs),
            GatherForm::Runs(runs) => self.table_of_runs(c, s, name, runs.len()),
            GatherForm::FillThenPairs(pairs) => self.fill_then_pairs(c, s, name, pairs.len()),
            GatherForm::Table => self.table_pick(c, s, name),
        }
    }

    /// The tables of the model's gathers, each a `static const` array, shared by the copies
    /// of `PREFIX_steps` for wider processors.
    pub(super) fn gather_tables(&self, c: &mut Code) {
        for (&k, (form, name)) in &self.gathers {
            let (Some(name), Some(crate::ir::Step::Pick(s))) = (name, self.m.steps.get(k)) else { continue };
            match form {
                GatherForm::InlineRuns(_) => {}
                GatherForm::Runs(runs) => {
                    let items: Vec<String> = runs.iter().map(|[d, f, l]| format!("{{{d}u, {f}u, {l}u}}")).collect();
                    table(c, name, "[3]", &items, 6);
                }
                GatherForm::FillThenPairs(pairs) => {
                    let items: Vec<String> = pairs.iter().map(|[i, v]| format!("{{{i}u, {v}u}}")).collect();
                    table(c, name, "[2]", &items, 8);
                }
                GatherForm::Table => {
                    let items: Vec<String> = s.table.iter().map(|&i| format!("{i}u")).collect();
                    table(c, name, "", &items, 16);
                }
            }
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
