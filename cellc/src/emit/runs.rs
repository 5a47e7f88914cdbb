//! How both languages write a gather by a table ([`crate::ir::steps::Pick`]), decided here
//! once ([`GatherForm`]): value by value from the table; or, where the table is mostly
//! runs of adjacent source values (a convolution's windows over channels-last data, a
//! padding, a crop), run by run — each run a copy or a fill of its own when there are few,
//! else from a table of a few values per run; or, where it is mostly fill (a transposed
//! convolution's zeros between the inputs), the fill written over the whole entry first and
//! then the values taken.
use crate::ir::steps::Pick;

/// Values a run must hold on average for a table to be written as runs.
const MIN_MEAN_RUN: usize = 6;

/// A gather of up to `INLINE_RUNS` runs copies each in a loop (or a slice copy) of its own:
/// a copy whose length the compiler knows becomes vector moves, where a loop over a table of
/// runs copies value by value (a model of 34 such gathers in C, AMD Zen 3: 5.55 against
/// 4.48 µs).
const INLINE_RUNS: usize = 16;

/// A gather at least `1 / FILLED_PICK` fill writes the fill everywhere first: a choice per
/// value mispredicts (AMD Zen 3, C, a table of 8568 values three quarters fill: 8 µs).
const FILLED_PICK: usize = 4;

/// How a gather is written, the same in both languages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum GatherForm {
    /// A few runs `[destination start, source start (or `Pick::NONE`: the fill), length]`,
    /// each written out as its own copy or fill.
    InlineRuns(Vec<[u32; 3]>),
    /// Runs as in [`GatherForm::InlineRuns`], read from a table of three values a run.
    Runs(Vec<[u32; 3]>),
    /// The fill over the whole entry, then `[destination, source]` for each value taken.
    FillThenPairs(Vec<[u32; 2]>),
    /// The table itself: a source (or the fill) for each value.
    Table,
}

impl GatherForm {
    /// The form of a gather by `table`.
    pub(crate) fn of(table: &[u32]) -> GatherForm {
        if let Some(runs) = runs(table) {
            return if runs.len() <= INLINE_RUNS { GatherForm::InlineRuns(runs) } else { GatherForm::Runs(runs) };
        }
        let fills = table.iter().filter(|&&i| i == Pick::NONE).count();
        if fills > 0 && fills.saturating_mul(FILLED_PICK) >= table.len() {
            // A table holds at most `MAX_PICK_TABLE` (2^22) values: its positions fit.
            let pairs = (0..).zip(table).filter(|&(_, &v)| v != Pick::NONE).map(|(i, &v)| [i, v]).collect();
            return GatherForm::FillThenPairs(pairs);
        }
        GatherForm::Table
    }

    /// The index values the generated code holds for a gather by `table` of this form.
    pub(crate) fn index_values(&self, table: &[u32]) -> usize {
        match self {
            GatherForm::InlineRuns(_) => 0,
            GatherForm::Runs(r) => r.len().saturating_mul(3),
            GatherForm::FillThenPairs(p) => p.len().saturating_mul(2),
            GatherForm::Table => table.len(),
        }
    }
}

/// The table as runs `[destination start, source start (or `Pick::NONE`: the fill), length]`,
/// when they average at least [`MIN_MEAN_RUN`] values.
fn runs(table: &[u32]) -> Option<Vec<[u32; 3]>> {
    let runs = split(table);
    (runs.len().saturating_mul(MIN_MEAN_RUN) <= table.len()).then_some(runs)
}

/// The table cut into runs of adjacent source values and runs of fills.
fn split(table: &[u32]) -> Vec<[u32; 3]> {
    let mut runs: Vec<[u32; 3]> = Vec::new();
    for (i, &s) in table.iter().enumerate() {
        if let Some(last) = runs.last_mut() {
            let [_, s0, n] = *last;
            let follows =
                if s == Pick::NONE { s0 == Pick::NONE } else { s0 != Pick::NONE && s0.checked_add(n) == Some(s) };
            if follows {
                last[2] += 1;
                continue;
            }
        }
        // A table holds at most `MAX_PICK_TABLE` (2^22) values: its positions fit.
        runs.push([i as u32, s, 1]);
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_follow_adjacent_sources_and_fills() {
        let n = Pick::NONE;
        let table = [n, n, 5, 6, 7, 8, 9, 10, 2, 3, 4, 5, 6, 7, 8, n];
        assert_eq!(split(&table), vec![[0, n, 2], [2, 5, 6], [8, 2, 7], [15, n, 1]]);
        // Four runs of 16 values average 4: too short to be worth it; of 24, written as runs.
        assert_eq!(runs(&table), None);
        let long: Vec<u32> = (0..24).chain([n; 6]).chain(100..110).chain(50..98).collect();
        assert_eq!(runs(&long), Some(vec![[0, 0, 24], [24, n, 6], [30, 100, 10], [40, 50, 48]]));
        // Scattered values are left to the table.
        assert_eq!(split(&[3, 1, 4, 1]).len(), 4);
    }

    #[test]
    fn each_table_takes_the_form_its_values_make() {
        let n = Pick::NONE;
        // Four long runs: each its own copy or fill.
        let long: Vec<u32> = (0..24).chain([n; 6]).chain(100..110).chain(50..98).collect();
        assert!(matches!(GatherForm::of(&long), GatherForm::InlineRuns(r) if r.len() == 4));
        // Many runs of 8: a table of runs.
        let many: Vec<u32> = (0..40u32).flat_map(|r| r * 20..r * 20 + 8).collect();
        let form = GatherForm::of(&many);
        assert!(matches!(&form, GatherForm::Runs(r) if r.len() == 40));
        assert_eq!(form.index_values(&many), 120);
        // Every other value of a third, the rest fill: pairs after the fill.
        let sparse: Vec<u32> = (0..12).map(|i| if i % 3 == 0 { 7 * i } else { n }).collect();
        assert_eq!(GatherForm::of(&sparse), GatherForm::FillThenPairs(vec![[0, 0], [3, 21], [6, 42], [9, 63]]));
        // Scattered sources: the table.
        let scattered = [3, 1, 4, 1, 5, 9, 2, 6];
        assert_eq!(GatherForm::of(&scattered), GatherForm::Table);
        assert_eq!(GatherForm::Table.index_values(&scattered), 8);
    }
}
