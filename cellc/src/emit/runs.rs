//! How both languages write a gather by a table ([`crate::ir::steps::Pick`]): value by
//! value from the table, or, where the table is mostly runs of adjacent source values (a
//! convolution's windows over channels-last data, a padding, a crop), run by run: a copy or
//! a fill per run, and a table of a few values per run instead of one per value.
use crate::ir::steps::Pick;

/// Values a run must hold on average for a table to be written as runs.
const MIN_MEAN_RUN: usize = 6;

/// The table as runs `[destination start, source start (or `Pick::NONE`: the fill), length]`,
/// when they average at least [`MIN_MEAN_RUN`] values.
pub(crate) fn runs(table: &[u32]) -> Option<Vec<[u32; 3]>> {
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
}
