//! What the team's protocol is built from: the standard atomics, threads and clock, or, in
//! a build with `--cfg loom`, loom's models of them, so that the protocol's own code runs
//! under loom's exhaustive scheduler (see `loom_tests`). Only the protocol goes through
//! here; the job's data is reached through the raw pointers `team` checks by its claims.
#[cfg(loom)]
pub(super) use loom::sync::Mutex;
#[cfg(loom)]
pub(super) use loom::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, fence};
#[cfg(loom)]
pub(super) use loom::thread::{self, Thread};

#[cfg(not(loom))]
pub(super) use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, fence};
#[cfg(not(loom))]
pub(super) use std::sync::Mutex;
#[cfg(not(loom))]
pub(super) use std::thread::{self, Thread};

use core::time::Duration;

/// A busy wait's pause: the CPU's spin hint, or, under loom, a yield to the other threads
/// (loom explores a spinning thread's loop only as far as another thread's progress).
#[cfg_attr(not(cellc_unoptimised), inline(always))]
pub(super) fn spin_loop() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    core::hint::spin_loop();
}

/// Spins between two looks at the clock: reading it costs more than a look at a line.
/// Under loom every look is a step of its own.
pub(super) const SPINS_PER_LOOK: u32 = if cfg!(loom) { 1 } else { 64 };

/// When a wait started. Under loom time does not pass by itself: a helper's spin for the
/// next job has lasted past its limit at its first look, so going to sleep is explored
/// beside every order in which the other threads' steps come; and a wait for a claimed part
/// is never late (see [`Since::late`]).
pub(super) struct Since {
    #[cfg(not(loom))]
    start: std::time::Instant,
}

impl Since {
    /// Now.
    pub(super) fn now() -> Since {
        Since {
            #[cfg(not(loom))]
            start: std::time::Instant::now(),
        }
    }

    /// Whether `d` has passed since.
    pub(super) fn passed(&self, d: Duration) -> bool {
        #[cfg(loom)]
        {
            let _ = d;
            true
        }
        #[cfg(not(loom))]
        {
            self.start.elapsed() >= d
        }
    }

    /// Whether a wait for a part another thread claimed has lasted past `d`. Under loom
    /// never: a late part is one whose thread the system preempted for another process,
    /// which loom's threads never are; what a late wait leads to (the caller's next jobs
    /// run alone) is the caller's alone, tested without loom.
    pub(super) fn late(&self, d: Duration) -> bool {
        #[cfg(loom)]
        {
            let _ = d;
            false
        }
        #[cfg(not(loom))]
        {
            self.passed(d)
        }
    }
}

/// A value only the thread holding the team's `busy` flag touches: a plain cell, or loom's,
/// which checks that every access happens after the one before it.
pub(super) struct HeldCell<T> {
    #[cfg(loom)]
    cell: loom::cell::UnsafeCell<T>,
    #[cfg(not(loom))]
    cell: core::cell::UnsafeCell<T>,
}

impl<T> HeldCell<T> {
    pub(super) fn new(v: T) -> HeldCell<T> {
        HeldCell {
            #[cfg(loom)]
            cell: loom::cell::UnsafeCell::new(v),
            #[cfg(not(loom))]
            cell: core::cell::UnsafeCell::new(v),
        }
    }

    /// `f` on the value.
    ///
    /// # Safety
    ///
    /// No other thread touches the value meanwhile, and the last access happens before
    /// this one.
    #[allow(unsafe_code)]
    pub(super) unsafe fn with_mut<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        #[cfg(loom)]
        {
            // SAFETY: the caller's.
            self.cell.with_mut(|p| f(unsafe { &mut *p }))
        }
        #[cfg(not(loom))]
        {
            // SAFETY: the caller's.
            f(unsafe { &mut *self.cell.get() })
        }
    }
}
