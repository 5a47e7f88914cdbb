//! One step on several cores. A cell compiled for `threads = N` runs its step as a *job*:
//! a few *stages* (one for RNN, LSTM and GRU with `linear_before_reset`, two for GRU), each
//! cut into `N` *parts*, a part being the share of the state's tiles one core computes. All
//! parts of a stage finish before any part of the next starts, and a part writes only its
//! own chunk of the vectors the stage produces, so the result does not depend on which
//! thread ran which part, nor on how many threads there were.
//!
//! The threads are the caller's and helpers that this module starts once per process, the
//! first time a job has more than one part. Part `k` runs on helper `k` when that helper is
//! awake, so each core keeps its share of the weights in its own cache from step to step;
//! any part can also be run by any thread, so a job never waits for a thread that sleeps,
//! is waiting for a core, is busy with another caller's job, or could not be started: a
//! thread that has done its own part of a stage runs at once the parts nobody has claimed.
//! A job runs on the caller alone, stage by stage, when another thread's job holds the
//! helpers or when it is started from inside a part.
//!
//! What a claim cannot undo is a helper that the system preempts in the middle of its part
//! because another process wants the core: the caller then waits for it to be scheduled
//! again, milliseconds. A caller that waited past 100 µs for a claimed part runs its next
//! jobs alone (16, then twice as many after each late job, up to 4096), during which the
//! helpers go to sleep and leave the core to the other process; each job on which a helper
//! does its part in time halves the next such run. On a machine that is busy, a job so
//! costs about what it costs on one thread.
//!
//! A work-stealing pool (rayon and its kind) hands parts to whichever thread is free, so
//! the weights would move between caches, and it parks idle threads at once, so waking
//! them would cost more than the step: a step of the cells this is for takes 1–3 µs. Here
//! a job costs a few cache-line transfers; helpers wait for the next job by spinning for
//! [`spin`] (200 µs unless [`set_spin`] says otherwise), then sleep until a job comes.
use core::sync::atomic::Ordering;
use std::any::Any;
use std::boxed::Box;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{OnceLock, PoisonError};
use std::time::Duration;
use std::vec::Vec;
use sync::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, HeldCell, Mutex, SPINS_PER_LOOK, Since, Thread, thread};

mod sync;

/// Most parts a job may have.
pub const MAX_PARTS: usize = 16;
/// Most vectors a job's stages may write.
pub const MAX_SHARED: usize = 4;
/// How long a caller waits for a part another thread has claimed before it takes that
/// thread for preempted (a part takes microseconds) and the machine for busy.
const LATE: Duration = Duration::from_micros(100);
/// Jobs a caller runs alone after its first late job; twice as many after each late job
/// that follows, up to [`MOST_ALONE`].
const FIRST_ALONE: u32 = 16;
const MOST_ALONE: u32 = 4096;
/// How long helpers spin for a job before sleeping, unless [`set_spin`] says otherwise.
pub const DEFAULT_SPIN: Duration = Duration::from_micros(200);

/// A vector the parts of some stages write, each its own chunk, and the later stages read
/// whole. It is one or more *rows* of `unit * bounds[parts]` values (see [`run`]); row `r`
/// is written during stage `first + r * every`, part `k` writing values
/// `bounds[k] * unit .. bounds[k + 1] * unit` of it.
#[derive(Debug)]
pub struct Shared<'a> {
    data: &'a mut [f32],
    unit: usize,
    first: usize,
    every: usize,
    /// Whether `data` is one row ([`Shared::new`]).
    once: bool,
}

impl<'a> Shared<'a> {
    /// `data`, one row written during stage `stage` in chunks of `unit` values per bound.
    pub fn new(data: &'a mut [f32], unit: usize, stage: usize) -> Self {
        Shared { data, unit, first: stage, every: 1, once: true }
    }

    /// `data` as rows, row `r` written during stage `first + r * every` in chunks of `unit`
    /// values per bound: a sequence's states, one step every `every` stages.
    pub fn rows(data: &'a mut [f32], unit: usize, first: usize, every: usize) -> Self {
        Shared { data, unit, first, every, once: false }
    }
}

/// What one part of one stage sees: its index, its own local value, its chunks of the
/// vectors this stage writes, and the vectors earlier stages wrote, whole.
#[derive(Debug)]
pub struct Stage<'a, L> {
    /// The part, `0..parts`.
    pub part: usize,
    /// The stage, `0..stages`.
    pub index: usize,
    /// This part's element of the job's `locals`.
    pub local: &'a mut L,
    /// For each [`Shared`] in the order given: this part's chunk of the row this stage
    /// writes, or empty if it writes none.
    pub mine: [&'a mut [f32]; MAX_SHARED],
    /// For each [`Shared`]: the rows earlier stages wrote, whole (empty if none), so the
    /// last row written is at its end.
    pub done: [&'a [f32]; MAX_SHARED],
}

/// Runs `f` for every part of every stage: `bounds.len() - 1` parts, part `k` owning units
/// `bounds[k]..bounds[k + 1]` of every [`Shared`], each part given `locals[k]`.
///
/// # Panics
///
/// If `bounds` is not a non-decreasing list from 0 of at most `MAX_PARTS + 1` values, if
/// `locals` does not hold one value per part, if a [`Shared`]'s length is not a whole
/// number of rows (one row for [`Shared::new`]), if one writes every 0 stages, or if there
/// are more than [`MAX_SHARED`] of them; and, after every part has run, if one of them
/// panicked.
pub fn run<L, F>(bounds: &[usize], stages: usize, locals: &mut [L], shared: &mut [Shared<'_>], f: F)
where
    L: Send,
    F: Fn(Stage<'_, L>) + Sync,
{
    run_on(team(), bounds, stages, locals, shared, f);
}

/// [`run`] with the helpers of `team`.
fn run_on<L, F>(team: &'static Team, bounds: &[usize], stages: usize, locals: &mut [L], shared: &mut [Shared<'_>], f: F)
where
    L: Send,
    F: Fn(Stage<'_, L>) + Sync,
{
    let parts = bounds.len().saturating_sub(1);
    assert!((1..=MAX_PARTS).contains(&parts), "team::run: {parts} parts, expected 1..={MAX_PARTS}");
    assert!(bounds[0] == 0 && bounds.is_sorted(), "team::run: bounds {bounds:?} do not rise from 0");
    assert_eq!(locals.len(), parts, "team::run: one local per part");
    assert!(shared.len() <= MAX_SHARED, "team::run: {} shared vectors, at most {MAX_SHARED}", shared.len());
    for s in shared.iter() {
        let row = s.unit.checked_mul(bounds[parts]).expect("team::run: a shared vector's row is too long");
        let rows = if s.once { 1 } else { s.data.len().checked_div(row).unwrap_or(0) };
        assert!(s.every > 0, "team::run: a shared vector written every 0 stages");
        assert_eq!(
            Some(s.data.len()),
            rows.checked_mul(row),
            "team::run: a shared vector's length is a whole number of rows"
        );
    }
    let mut job = Job {
        f,
        locals: locals.as_mut_ptr(),
        bounds: [0; MAX_PARTS + 1],
        shared: [Raw { ptr: core::ptr::NonNull::dangling().as_ptr(), rows: 0, row: 0, unit: 0, first: 0, every: 1 };
            MAX_SHARED],
        panic: Mutex::new(None),
    };
    job.bounds[..=parts].copy_from_slice(bounds);
    for (raw, s) in job.shared.iter_mut().zip(shared.iter_mut()) {
        let row = s.unit * bounds[parts];
        let rows = if s.once { 1 } else { s.data.len().checked_div(row).unwrap_or(0) };
        *raw = Raw { ptr: s.data.as_mut_ptr(), rows, row, unit: s.unit, first: s.first, every: s.every };
    }
    match (parts > 1).then(|| team.acquire()).flatten() {
        Some(held) => held.run(&job, parts, stages),
        None => job.alone(parts, stages),
    }
    let payload = job.panic.into_inner().unwrap_or_else(PoisonError::into_inner);
    if let Some(payload) = payload {
        resume_unwind(payload);
    }
}

/// How long helpers spin for a job before sleeping.
pub fn spin() -> Duration {
    Duration::from_nanos(team().spin_ns.load(Ordering::Relaxed))
}

/// Sets how long helpers spin for the next job before they sleep. Longer keeps the first
/// step after a pause fast, at the price of a busy core while nothing runs: a program that
/// steps every 2 ms (an audio callback) and wants every step split sets a little more than
/// that. Zero makes helpers sleep as soon as they are idle.
pub fn set_spin(d: Duration) {
    let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
    team().spin_ns.store(ns, Ordering::Relaxed);
}

/// A [`Shared`] as the job keeps it: `rows` rows of `row` values.
#[derive(Clone, Copy)]
struct Raw {
    ptr: *mut f32,
    rows: usize,
    row: usize,
    unit: usize,
    first: usize,
    every: usize,
}

impl Raw {
    /// The row stage `index` writes, if any, and how many rows earlier stages wrote.
    fn at(&self, index: usize) -> (Option<usize>, usize) {
        let Some(since) = index.checked_sub(self.first) else { return (None, 0) };
        let (r, rem) = (since / self.every, since % self.every);
        let written = if rem == 0 { r } else { r + 1 };
        ((rem == 0 && r < self.rows).then_some(r), written.min(self.rows))
    }
}

/// A job on the caller's stack: what every part needs. Reached by helpers through the
/// type-erased `call` only after they have claimed a part of it (see `Held::run`).
struct Job<L, F> {
    /// By value, so that a helper finds the closure's captures beside the rest.
    f: F,
    locals: *mut L,
    bounds: [usize; MAX_PARTS + 1],
    shared: [Raw; MAX_SHARED],
    /// The first panic of a part, resumed by `run` once every part has run.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl<L, F: Fn(Stage<'_, L>) + Sync> Job<L, F> {
    /// Runs part `part` of stage `index`, catching its panic.
    ///
    /// Sound only when no other thread runs the same part of the same stage, every part of
    /// the earlier stages has finished (and its writes are visible), and no part of a
    /// later stage has started: what the claims and the `done` words of `Held::run`, or
    /// the order of the caller's loop, ensure.
    fn part(&self, part: usize, index: usize) {
        let (lo, hi) = (self.bounds[part], self.bounds[part + 1]);
        let mut mine: [&mut [f32]; MAX_SHARED] = Default::default();
        let mut done: [&[f32]; MAX_SHARED] = Default::default();
        for ((m, d), raw) in mine.iter_mut().zip(&mut done).zip(&self.shared) {
            let (writes, written) = raw.at(index);
            if let Some(r) = writes {
                // SAFETY: `run` checked that the vector holds `rows` rows of
                // `row == unit * bounds[parts]` values and `r < rows`, so the chunk lies
                // within it; chunks of different parts are disjoint, and this row lies past
                // the rows `done` gives out (`written <= r`), so this is the only
                // reference to these values.
                #[allow(unsafe_code)]
                let chunk = unsafe {
                    core::slice::from_raw_parts_mut(raw.ptr.add(r * raw.row + lo * raw.unit), (hi - lo) * raw.unit)
                };
                *m = chunk;
            }
            // SAFETY: rows `..written` were written in earlier stages, which have finished;
            // no part writes them any more (each row is written in one stage), so shared
            // references to them are sound.
            #[allow(unsafe_code)]
            let before = unsafe { core::slice::from_raw_parts(raw.ptr, written * raw.row) };
            *d = before;
        }
        // SAFETY: `locals` holds one value per part (checked by `run`) and only the thread
        // running this part, of whatever stage, touches element `part` meanwhile.
        #[allow(unsafe_code)]
        let local = unsafe { &mut *self.locals.add(part) };
        let stage = Stage { part, index, local, mine, done };
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| (self.f)(stage))) {
            let mut slot = self.panic.lock().unwrap_or_else(PoisonError::into_inner);
            slot.get_or_insert(payload);
        }
    }

    /// Runs every part of every stage on this thread, in order.
    fn alone(&self, parts: usize, stages: usize) {
        for index in 0..stages {
            for part in 0..parts {
                self.part(part, index);
            }
        }
    }

    /// The entry helpers call this job type's parts through.
    const ENTRY: &'static Entry = &Entry { call: Self::call };

    /// The type-erased `part`, as helpers call it.
    ///
    /// # Safety
    ///
    /// `job` points to a live `Job<L, F>`, and `part`'s conditions hold.
    #[allow(unsafe_code)]
    unsafe fn call(job: *const (), part: usize, index: usize) {
        // SAFETY: the caller's.
        unsafe { &*job.cast::<Self>() }.part(part, index);
    }
}

/// A value alone on its cache line (two lines: the adjacent-line prefetcher pairs them).
#[repr(align(128))]
#[derive(Default)]
struct Line<T>(T);

/// The job helpers are to take part in, all on one cache line, so that a helper reads it in
/// one transfer: a sequence lock whose `epoch` is odd while the holder writes it.
#[repr(C, align(128))]
#[derive(Default)]
struct Post {
    epoch: AtomicU64,
    first_stage: AtomicU64,
    stages: AtomicUsize,
    parts: AtomicUsize,
    job: AtomicPtr<()>,
    entry: AtomicPtr<Entry>,
}

/// A job type's entry point, type-erased: each `Job<L, F>` has one in a constant
/// ([`Job::ENTRY`]), and the post carries a pointer to it (a plain data pointer, no
/// function pointer cast to or from an integer).
struct Entry {
    /// `Job::<L, F>::call`.
    call: unsafe fn(*const (), usize, usize),
}

/// The process's helpers and the job they are on.
struct Team {
    /// Held by the thread whose job the helpers are on.
    busy: AtomicBool,
    post: Post,
    /// For each part, one more than the last global stage number it was claimed for.
    claims: [Line<AtomicU64>; MAX_PARTS],
    /// For each part, one more than the last global stage it was finished for: a stage's
    /// barrier reads the others' lines, each written by one thread, rather than one count
    /// every thread writes.
    done: [Line<AtomicU64>; MAX_PARTS],
    /// The next job's first global stage number; only the holder touches it.
    next_stage: HeldCell<u64>,
    /// The jobs to run alone after late ones; only the holder touches it.
    alone: HeldCell<Alone>,
    /// Helpers started, and those asleep.
    helpers: Mutex<Vec<Thread>>,
    started: AtomicUsize,
    /// Whether no more helpers can start (one for each other core, or a start failed).
    at_most: AtomicBool,
    sleeping: Line<AtomicUsize>,
    spin_ns: AtomicU64,
}

// SAFETY: `next_stage` is only touched by the thread holding `busy` (see `Held`); every
// other field is an atomic or a mutex.
#[allow(unsafe_code)]
unsafe impl Sync for Team {}

/// The process's team.
fn team() -> &'static Team {
    static TEAM: OnceLock<Team> = OnceLock::new();
    TEAM.get_or_init(Team::new)
}

/// A job as a helper reads it.
#[derive(Clone, Copy)]
struct Posted {
    first_stage: u64,
    stages: usize,
    parts: usize,
    job: *const (),
    entry: *const Entry,
}

#[cfg(not(loom))]
std::thread_local! {
    /// Whether this thread is running a part of a job (a job started there runs alone).
    static IN_PART: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}
#[cfg(loom)]
loom::thread_local! {
    static IN_PART: core::cell::Cell<bool> = core::cell::Cell::new(false);
}

/// Spins until `ready()`, yielding the core now and then in case the thread it waits for
/// is not running. Returns whether the wait lasted past [`LATE`] (the clock is read only
/// once it has lasted a while).
fn wait_until(mut ready: impl FnMut() -> bool) -> bool {
    let (mut n, mut since, mut late) = (0u32, None, false);
    while !ready() {
        n = n.wrapping_add(1);
        if n.is_multiple_of(SPINS_PER_LOOK) && !late {
            late = since.get_or_insert_with(Since::now).late(LATE);
        }
        if n.is_multiple_of(SPINS_PER_LOOK * 64) {
            thread::yield_now();
        } else {
            sync::spin_loop();
        }
    }
    late
}

/// How many of the next jobs the caller runs alone, and how many after the next late one.
struct Alone {
    left: u32,
    next: u32,
}

/// The team, held by one caller for one job.
struct Held(&'static Team);

impl Drop for Held {
    fn drop(&mut self) {
        self.0.busy.store(false, Ordering::Release);
    }
}

impl Team {
    /// A team without helpers.
    fn new() -> Team {
        Team {
            busy: AtomicBool::new(false),
            post: Post::default(),
            claims: Default::default(),
            done: Default::default(),
            next_stage: HeldCell::new(0),
            alone: HeldCell::new(Alone { left: 0, next: FIRST_ALONE }),
            helpers: Mutex::new(Vec::new()),
            started: AtomicUsize::new(0),
            at_most: AtomicBool::new(false),
            sleeping: Line::default(),
            spin_ns: AtomicU64::new(u64::try_from(DEFAULT_SPIN.as_nanos()).unwrap_or(u64::MAX)),
        }
    }

    /// The team for one job, unless another thread's job holds it or this thread is
    /// inside a part.
    fn acquire(&'static self) -> Option<Held> {
        if IN_PART.with(|p| p.get()) {
            return None;
        }
        self.busy.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).ok().map(|_| Held(self))
    }

    /// Claims part `part` of global stage `g` for this thread: true once per part and stage.
    fn claim(&self, part: usize, g: u64) -> bool {
        // A look first: a claim of a part already taken would move its line here for
        // nothing, and its owner would pay for that at its next claim (measured: A lbr on
        // two threads 2.1 µs a step with the look, 3.0 µs without). The look only skips
        // claims that would fail (a claim's value never falls), so loom, for which every
        // relaxed load multiplies the orders to explore, checks the protocol without it.
        (cfg!(loom) || self.claims[part].0.load(Ordering::Relaxed) <= g)
            && self.claims[part].0.fetch_max(g + 1, Ordering::AcqRel) <= g
    }

    /// The job posted under `epoch`, if that is still the one posted.
    fn read(&self, epoch: u64) -> Option<Posted> {
        let p = Posted {
            first_stage: self.post.first_stage.load(Ordering::Relaxed),
            stages: self.post.stages.load(Ordering::Relaxed),
            parts: self.post.parts.load(Ordering::Relaxed),
            job: self.post.job.load(Ordering::Relaxed),
            entry: self.post.entry.load(Ordering::Relaxed),
        };
        sync::fence(Ordering::Acquire);
        (self.post.epoch.load(Ordering::Relaxed) == epoch).then_some(p)
    }

    /// Starts helpers until there are `n`, as many as the machine has other cores, or until
    /// one fails to start. More threads than cores would spin against each other.
    fn start_helpers(&'static self, n: usize) {
        let cores = std::thread::available_parallelism().map_or(1, core::num::NonZero::get);
        let n = n.min(cores - 1);
        let mut helpers = self.helpers.lock().unwrap_or_else(PoisonError::into_inner);
        while helpers.len() < n {
            let me = helpers.len() + 1;
            let spawned = thread::Builder::new().name(std::format!("cellc-team-{me}")).spawn(move || self.helper(me));
            match spawned {
                Ok(handle) => helpers.push(handle.thread().clone()),
                Err(_) => {
                    self.at_most.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
        if helpers.len() + 1 >= cores {
            self.at_most.store(true, Ordering::Relaxed);
        }
        self.started.store(helpers.len(), Ordering::Release);
    }

    /// A helper's life: wait for a job, take part in it, and again.
    fn helper(&self, me: usize) {
        self.serve(me, None);
    }

    /// Helper `me`'s loop, until it has seen the epoch `until` (forever without).
    fn serve(&self, me: usize, until: Option<u64>) {
        IN_PART.with(|p| p.set(true));
        let mut seen = self.post.epoch.load(Ordering::Acquire) & !1;
        while until != Some(seen) {
            let epoch = self.next_epoch(seen);
            seen = epoch;
            // A helper with no part of its own leaves the job to the others.
            if let Some(p) = self.read(epoch).filter(|p| me < p.parts) {
                self.take_part(me, epoch, p);
            }
        }
    }

    /// Waits for an epoch other than `seen` with no write in progress: spinning for the
    /// spin time, then asleep.
    fn next_epoch(&self, seen: u64) -> u64 {
        let start = Since::now();
        let mut n = 0u32;
        loop {
            let e = self.post.epoch.load(Ordering::Acquire);
            if e != seen && e & 1 == 0 {
                return e;
            }
            n = n.wrapping_add(1);
            if !n.is_multiple_of(SPINS_PER_LOOK * 16) {
                sync::spin_loop();
                continue;
            }
            if !start.passed(Duration::from_nanos(self.spin_ns.load(Ordering::Relaxed))) {
                continue;
            }
            // Asleep only once the poster can see it. Both sides change `sleeping` (the
            // poster adds 0), so one of the two changes comes first: if this one, the
            // poster reads the increment and wakes this thread; if the poster's, this one
            // reads from it, which makes the new epoch visible to the load below.
            self.sleeping.0.fetch_add(1, Ordering::AcqRel);
            if self.post.epoch.load(Ordering::Acquire) == seen {
                thread::park();
            }
            self.sleeping.0.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// A helper's share of the job `p`: each stage, once the previous one is done.
    fn take_part(&self, me: usize, epoch: u64, p: Posted) {
        let current = || self.post.epoch.load(Ordering::Relaxed) == epoch;
        for index in 0..p.stages {
            let g = p.first_stage + index as u64;
            // The job was posted once every part of the jobs before it was done.
            if index > 0 {
                wait_until(|| self.finished(g - 1, p.parts) || !current());
            }
            if !current() {
                return;
            }
            self.stage(me, g, p.parts, current, |k| {
                // SAFETY: `p.entry` was read with `p.job` under one epoch (`read`), so it is
                // the `Job::ENTRY` of the job's own type, a reference to a constant (valid
                // for the whole program); `stage` calls this only for a part it has
                // claimed, so the job is still running (it ends only when every part of
                // every stage is done, this one included), and no other thread runs this
                // part of this stage; stage `g - 1` is finished, so every earlier one is.
                #[allow(unsafe_code)]
                unsafe {
                    ((*p.entry).call)(p.job, k, index);
                }
            });
        }
    }

    /// Whether every part `0..parts` of global stage `g` is done.
    fn finished(&self, g: u64, parts: usize) -> bool {
        self.done[..parts].iter().all(|d| d.0.load(Ordering::Acquire) > g)
    }

    /// Thread `me`'s share of global stage `g` of `parts` parts: its own part, then those
    /// nobody has claimed by then (their threads are not running: a running thread claims
    /// its part as the stage starts, long before another's part is done), run through
    /// `run`, then the wait for the parts other threads claimed. Returns when the stage is
    /// done or `current()` turns false: how many parts this thread ran, and whether the
    /// wait was late.
    fn stage(&self, me: usize, g: u64, parts: usize, current: impl Fn() -> bool, run: impl Fn(usize)) -> (usize, bool) {
        let ran = core::cell::Cell::new(0);
        let take = |k: usize| {
            if self.claim(k, g) {
                run(k);
                self.done[k].0.store(g + 1, Ordering::Release);
                ran.set(ran.get() + 1);
            }
        };
        if me < parts {
            take(me);
        }
        let finished = || self.finished(g, parts) || !current();
        for k in (0..parts).filter(|&k| k != me) {
            if finished() {
                return (ran.get(), false);
            }
            take(k);
        }
        let late = wait_until(finished);
        (ran.get(), late)
    }
}

impl Held {
    /// Runs `job` with the helpers: posts it, then takes part in each stage as thread 0,
    /// and returns once every part of every stage is done. Runs it alone instead while
    /// late jobs say the machine is busy (see the module's introduction).
    fn run<L, F: Fn(Stage<'_, L>) + Sync>(self, job: &Job<L, F>, parts: usize, stages: usize) {
        let t = self.0;
        // SAFETY: this thread holds `busy`, the only right to touch `alone`, and took it
        // (acquiring) after the last holder released it.
        #[allow(unsafe_code)]
        let alone = unsafe { t.alone.with_mut(|a| a.left.checked_sub(1).map(|left| a.left = left).is_some()) };
        if alone {
            return job.alone(parts, stages);
        }
        if t.started.load(Ordering::Acquire) < parts - 1 && !t.at_most.load(Ordering::Relaxed) {
            t.start_helpers(parts - 1);
        }
        // SAFETY: this thread holds `busy`, the only right to touch `next_stage`, and took
        // it (acquiring) after the last holder released it.
        #[allow(unsafe_code)]
        let first_stage = unsafe {
            t.next_stage.with_mut(|first| {
                let f = *first;
                *first += stages as u64;
                f
            })
        };
        let epoch = t.post.epoch.load(Ordering::Relaxed);
        t.post.epoch.store(epoch + 1, Ordering::Relaxed);
        sync::fence(Ordering::Release);
        t.post.first_stage.store(first_stage, Ordering::Relaxed);
        t.post.stages.store(stages, Ordering::Relaxed);
        t.post.parts.store(parts, Ordering::Relaxed);
        t.post.job.store((job as *const Job<L, F>).cast_mut().cast(), Ordering::Relaxed);
        t.post.entry.store(core::ptr::from_ref(Job::<L, F>::ENTRY).cast_mut(), Ordering::Relaxed);
        t.post.epoch.store(epoch + 2, Ordering::Release);
        // Helpers that sleep take microseconds to wake: their parts are the caller's then.
        // An addition of 0, not a load: see `next_epoch`.
        let asleep = t.sleeping.0.fetch_add(0, Ordering::AcqRel) > 0;
        if asleep {
            for h in t.helpers.lock().unwrap_or_else(PoisonError::into_inner).iter() {
                h.unpark();
            }
        }
        IN_PART.with(|p| p.set(true));
        let (mut ran, mut late) = (0, false);
        for index in 0..stages {
            let g = first_stage + index as u64;
            let (r, l) = t.stage(0, g, parts, || true, |k| job.part(k, index));
            ran += r;
            late |= l;
        }
        IN_PART.with(|p| p.set(false));
        // SAFETY: as above.
        #[allow(unsafe_code)]
        unsafe {
            t.alone.with_mut(|a| {
                if late {
                    a.left = a.next;
                    a.next = a.next.saturating_mul(2).min(MOST_ALONE);
                } else if ran < parts * stages {
                    // A helper did its part in time: the next run alone, if any, half as
                    // long. (Back to the first length at once, the runs stayed short on a
                    // busy machine, where a helper is in time now and then between late
                    // jobs; shortened by a thirty-second, a quiet machine took hundreds of
                    // runs alone to come back to two threads.)
                    a.next = (a.next / 2).max(FIRST_ALONE);
                }
            });
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests;
#[cfg(all(test, not(loom)))]
mod tests;
