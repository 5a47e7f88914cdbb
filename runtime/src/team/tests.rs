//! The job protocol under many threads, jobs and nestings: every part run once per stage, stages in order.
use super::*;
use std::string::String;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::time::Instant;
use std::vec;

/// `n` rounds of a loop, or 4 under Miri (which interprets each one some 10⁴ times slower,
/// checking every access of the team's shared rows and job records; `.ci/run` runs it over
/// several seeds of its scheduler instead).
fn rounds(n: usize) -> usize {
    if cfg!(miri) { n.min(4) } else { n }
}

/// A two-stage job over `n` units in `parts` parts: stage 0 writes `a[j] = x[j]²`,
/// stage 1 writes `b[j] = Σa + j + local`, each part's local counting its stages.
fn job(parts: usize, x: &[f32]) -> (Vec<f32>, Vec<f32>, Vec<u32>) {
    job_on(team(), parts, x, &AtomicUsize::new(0))
}

/// [`job`] on `team`, counting in `on_helper` the parts that ran on a helper.
fn job_on(team: &'static Team, parts: usize, x: &[f32], on_helper: &AtomicUsize) -> (Vec<f32>, Vec<f32>, Vec<u32>) {
    let n = x.len();
    let bounds: Vec<usize> = (0..=parts).map(|k| k * n / parts).collect();
    let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
    let mut locals = vec![0u32; parts];
    let lo = |k: usize| bounds[k];
    run_on(team, &bounds, 2, &mut locals, &mut [Shared::new(&mut a, 1, 0), Shared::new(&mut b, 1, 1)], |s| {
        *s.local += 1;
        // Long enough for an awake helper to claim its part before the caller is done with
        // its own, even on a slow build (ThreadSanitizer's).
        let t = Instant::now();
        while t.elapsed() < Duration::from_micros(20) {}
        if thread::current().name().is_some_and(|n| n.starts_with("cellc-team-")) {
            on_helper.fetch_add(1, Ordering::Relaxed);
        }
        match s.index {
            0 => {
                for (j, v) in s.mine[0].iter_mut().enumerate() {
                    *v = x[lo(s.part) + j] * x[lo(s.part) + j];
                }
                assert!(s.done[0].is_empty() && s.mine[1].is_empty());
            }
            _ => {
                let sum: f32 = s.done[0].iter().sum();
                for (j, v) in s.mine[0].iter_mut().enumerate() {
                    *v = sum + (lo(s.part) + j) as f32 + *s.local as f32;
                }
            }
        }
    });
    (a, b, locals)
}

#[test]
fn parts_compute_what_one_thread_computes() {
    // A team of this test's own: the other tests' jobs, contending for the process's team,
    // would run most of these alone.
    let team: &'static Team = Box::leak(Box::new(Team::new()));
    let on_helper = AtomicUsize::new(0);
    let x: Vec<f32> = (0..37).map(|j| j as f32 * 0.25).collect();
    let alone = job(1, &x);
    assert_eq!(alone.2, [2]);
    for parts in [2, 3, 5] {
        for _ in 0..rounds(2000) {
            let (a, b, locals) = job_on(team, parts, &x, &on_helper);
            assert_eq!((&a, &b), (&alone.0, &alone.1), "{parts} parts");
            assert!(locals.iter().all(|&l| l == 2), "each part ran each stage once: {locals:?}");
        }
    }
    assert!(on_helper.load(Ordering::Relaxed) > 0, "some parts ran on helpers");
}

/// `steps` steps of a two-stage recurrence over `n` units in `parts` parts, one job:
/// stage 2t writes row t of `a` (`a[j] = Σ previous state + j`), stage 2t + 1 writes row
/// t of `s` (`s[j] = a[j] · 0.5 − Σa / n`), the state being the last row of `s` (or `init`).
fn sequence(parts: usize, n: usize, steps: usize) -> (Vec<f32>, Vec<f32>) {
    let bounds: Vec<usize> = (0..=parts).map(|k| k * n / parts).collect();
    let (mut a, mut s) = (vec![0.0; n * steps], vec![0.0; n * steps]);
    let init: Vec<f32> = (0..n).map(|j| j as f32 * 0.01).collect();
    let lo = |k: usize| bounds[k];
    let mut shared = [Shared::rows(&mut a, 1, 0, 2), Shared::rows(&mut s, 1, 1, 2)];
    run(&bounds, 2 * steps, &mut vec![(); parts], &mut shared, |st| {
        let t = st.index / 2;
        let [mine_a, mine_s, ..] = st.mine;
        let [da, ds, ..] = st.done;
        if st.index % 2 == 0 {
            assert_eq!((da.len(), ds.len()), (t * n, t * n), "rows written before stage {}", st.index);
            let state = if t == 0 { &init[..] } else { &ds[(t - 1) * n..] };
            let sum: f32 = state.iter().sum();
            for (j, v) in mine_a.iter_mut().enumerate() {
                *v = sum + (lo(st.part) + j) as f32;
            }
            assert!(mine_s.is_empty(), "stage {} writes no row of s", st.index);
        } else {
            assert_eq!((da.len(), ds.len()), ((t + 1) * n, t * n), "rows written before stage {}", st.index);
            let row = &da[t * n..];
            let sum: f32 = row.iter().sum();
            for (j, v) in mine_s.iter_mut().enumerate() {
                *v = row[lo(st.part) + j] * 0.5 - sum / n as f32;
            }
            assert!(mine_a.is_empty(), "stage {} writes no row of a", st.index);
        }
    });
    (a, s)
}

#[test]
fn rows_give_each_stage_its_row_and_the_rows_before() {
    let alone = sequence(1, 19, 7);
    assert!(alone.1.iter().all(|v| v.is_finite()) && alone.1.iter().any(|&v| v != 0.0));
    for parts in [2, 3] {
        for _ in 0..rounds(500) {
            assert_eq!(sequence(parts, 19, 7), alone, "{parts} parts");
        }
    }
    let mut v = vec![0.0f32; 6];
    let caught = catch_unwind(AssertUnwindSafe(|| {
        run(&[0, 2, 4], 1, &mut [(), ()], &mut [Shared::rows(&mut v, 1, 0, 1)], |_| {})
    }));
    assert!(caught.is_err(), "6 values are not a whole number of 4-value rows");
}

#[test]
fn concurrent_and_nested_jobs_run_alone_with_the_same_results() {
    let x: Vec<f32> = (0..64).map(|j| j as f32).collect();
    let alone = job(1, &x);
    let nested = AtomicUsize::new(0);
    thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                for _ in 0..rounds(300) {
                    assert_eq!(job(2, &x).1, alone.1);
                }
            });
        }
        s.spawn(|| {
            for _ in 0..rounds(100) {
                run(&[0, 1, 2], 1, &mut [(), ()], &mut [], |_| {
                    assert_eq!(job(2, &x).1, alone.1);
                    nested.fetch_add(1, Ordering::Relaxed);
                });
            }
        });
    });
    assert_eq!(nested.load(Ordering::Relaxed), 2 * rounds(100));
}

#[test]
fn a_panicking_part_panics_the_caller_and_the_team_goes_on() {
    for bad in [0, 1] {
        let caught = catch_unwind(|| {
            run(&[0, 1, 2], 2, &mut [(), ()], &mut [], |s| {
                if s.part == bad && s.index == 0 {
                    panic!("part {bad}");
                }
            })
        });
        let payload = caught.expect_err("the part's panic reaches the caller");
        assert_eq!(payload.downcast_ref::<String>().map(String::as_str), Some(std::format!("part {bad}").as_str()));
        let x = [1.0, 2.0, 3.0];
        assert_eq!(job(2, &x).1, job(1, &x).1);
    }
}

#[test]
fn sleeping_helpers_wake_for_the_next_job() {
    // A team of this test's own, whose helpers sleep as soon as they are idle (the other
    // tests' helpers spin as usual).
    let team: &'static Team = Box::leak(Box::new(Team::new()));
    team.spin_ns.store(0, Ordering::Relaxed);
    let x = [0.5f32; 9];
    let alone = job(1, &x);
    for _ in 0..rounds(20) {
        thread::sleep(Duration::from_millis(1));
        assert_eq!(job_on(team, 2, &x, &AtomicUsize::new(0)).1, alone.1);
    }
}

#[test]
#[cfg_attr(miri, ignore = "timing: needs a helper that sleeps past LATE while the caller waits")]
fn a_late_helper_makes_the_next_jobs_run_alone() {
    // A team of this test's own, so that no other test's jobs come between.
    let team: &'static Team = Box::leak(Box::new(Team::new()));
    let caller = thread::current().id();
    let ran_alone = |jobs: u32| {
        (0..jobs).all(|_| {
            let others = AtomicUsize::new(0);
            run_on(team, &[0, 1, 2], 2, &mut [(), ()], &mut [], |_| {
                if thread::current().id() != caller {
                    others.fetch_add(1, Ordering::Relaxed);
                }
            });
            others.load(Ordering::Relaxed) == 0
        })
    };
    // Jobs whose part 1 ran (and slept) on a helper: a machine busy with other work may
    // give few of them, and what they show is then too little to conclude anything.
    let mut slept = 0;
    for _ in 0..200 {
        // Part 1 outlasts `LATE` on a helper, and part 0 waits for it to start there, so
        // that the caller waits for a claimed part.
        let (started, on_helper) = (AtomicBool::new(false), AtomicBool::new(false));
        run_on(team, &[0, 1, 2], 1, &mut [(), ()], &mut [], |s| {
            if s.part == 1 {
                started.store(true, Ordering::Release);
                if thread::current().id() != caller {
                    on_helper.store(true, Ordering::Relaxed);
                    thread::sleep(LATE * 3);
                }
            } else {
                let t = Instant::now();
                while !started.load(Ordering::Acquire) && t.elapsed() < Duration::from_millis(20) {
                    core::hint::spin_loop();
                }
            }
        });
        if team.started.load(Ordering::Relaxed) == 0 {
            return; // one core: no helper to be late
        }
        slept += usize::from(on_helper.load(Ordering::Relaxed));
        // SAFETY: no job of this team runs, and this thread ran the last one.
        #[allow(unsafe_code)]
        let left = unsafe { team.alone.with_mut(|a| a.left) };
        // The wait was late unless part 1 ran on the caller, or the caller itself was off its
        // core while the helper slept.
        if left > 0 {
            assert!(on_helper.load(Ordering::Relaxed), "only a helper's part is late");
            assert_eq!(left, FIRST_ALONE);
            assert!(ran_alone(FIRST_ALONE), "the jobs after a late one run on the caller alone");
            return;
        }
    }
    // Each job whose part 1 slept on a helper made the caller wait late, unless the caller
    // was itself off its core meanwhile: not 10 times in a row.
    assert!(slept < 10, "no late wait in {slept} jobs whose part 1 slept 3 × LATE on a helper");
}
