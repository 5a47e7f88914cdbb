//! The job protocol under loom: every order in which the caller and a helper may take their
//! steps (within a bound on preemptions), the atomics' every allowed value, each checked
//! for the parts' results, for every part run once per stage, and, through loom's cells,
//! for a part's reading what an earlier stage's part wrote only after that write happened.
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p cellc-runtime --release --lib team::loom`.
use super::*;
use loom::cell::UnsafeCell;
use std::boxed::Box;

/// A value per part that stage 0 writes and stage 1 reads, each access checked by loom.
struct Cells([UnsafeCell<f32>; 2]);

// SAFETY: the protocol under test is what orders the accesses; loom reports any two that
// it leaves unordered.
#[allow(unsafe_code)]
unsafe impl Sync for Cells {}

/// A fresh team for one execution, with `helpers` helpers (0 or 1) of its own serving until
/// the epoch `until`.
fn team_with(helpers: usize, until: u64) -> (&'static Team, Option<loom::thread::JoinHandle<()>>) {
    let team: &'static Team = Box::leak(Box::new(Team::new()));
    team.started.store(helpers, Ordering::Relaxed);
    team.at_most.store(true, Ordering::Relaxed);
    let helper = (helpers == 1).then(|| {
        loom::thread::spawn(move || {
            team.helpers.lock().unwrap_or_else(PoisonError::into_inner).push(thread::current());
            team.serve(1, Some(until));
        })
    });
    (team, helper)
}

/// Two parts, two stages: stage 0's part `k` writes `a[k] = x[k]²` (and its cell), stage
/// 1's part `k` writes `b[k] = a[0] + a[1] + k`, reading both parts' cells.
fn job(team: &'static Team, x: [f32; 2]) -> [f32; 2] {
    let cells = Cells([UnsafeCell::new(0.0), UnsafeCell::new(0.0)]);
    let (mut a, mut b) = ([0.0f32; 2], [0.0f32; 2]);
    let mut runs = [0u32; 2];
    // The whole `Cells` (`Sync`), not its field, in the closure.
    let cells = &cells;
    run_on(team, &[0, 1, 2], 2, &mut runs, &mut [Shared::new(&mut a, 1, 0), Shared::new(&mut b, 1, 1)], |s| {
        *s.local += 1;
        let k = s.part;
        if s.index == 0 {
            s.mine[0][0] = x[k] * x[k];
            cells.0[k].with_mut(|v| {
                // SAFETY: loom checks this write against every other access to the cell.
                #[allow(unsafe_code)]
                unsafe {
                    *v = x[k] * x[k];
                }
            });
        } else {
            // SAFETY: as above, for the reads.
            #[allow(unsafe_code)]
            let sum: f32 = cells.0.iter().map(|c| c.with(|v| unsafe { *v })).sum();
            assert_eq!(sum, s.done[0][0] + s.done[0][1], "the cells and the shared vector agree");
            s.mine[1][0] = sum + k as f32;
        }
    });
    assert_eq!(runs, [2, 2], "each part ran each stage once");
    assert_eq!(a, [x[0] * x[0], x[1] * x[1]]);
    b
}

/// Explores `f` with at most `preemptions` preemptions an execution.
fn check(preemptions: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(preemptions);
    builder.check(f);
}

/// Jobs one after the other (inputs and expected outputs), with a helper serving them.
fn jobs_with_a_helper(preemptions: usize, jobs: &'static [([f32; 2], [f32; 2])]) {
    check(preemptions, move || {
        let (team, helper) = team_with(1, 2 * jobs.len() as u64);
        for &(x, want) in jobs {
            assert_eq!(job(team, x), want);
        }
        if let Some(h) = helper {
            h.join().expect("the helper ends");
        }
    });
}

#[test]
fn loom_one_job_with_a_helper() {
    jobs_with_a_helper(3, &[([1.0, 2.0], [5.0, 6.0])]);
}

#[test]
fn loom_two_jobs_in_a_row_with_a_helper() {
    jobs_with_a_helper(1, &[([1.0, 2.0], [5.0, 6.0]), ([3.0, 0.5], [9.25, 10.25])]);
}

#[test]
fn loom_two_callers_share_the_team_or_run_alone() {
    check(3, || {
        let (team, _) = team_with(0, 0);
        let other = loom::thread::spawn(move || job(team, [2.0, 1.0]));
        assert_eq!(job(team, [1.0, 2.0]), [5.0, 6.0]);
        assert_eq!(other.join().expect("the other caller ends"), [5.0, 6.0]);
        // Each job that held the team took its own stage numbers.
        // SAFETY: both callers are done.
        #[allow(unsafe_code)]
        let next = unsafe { team.next_stage.with_mut(|n| *n) };
        assert!(next <= 4 && next % 2 == 0, "{next}");
    });
}
