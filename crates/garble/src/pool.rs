//! Persistent worker threads that share the pieces of one job with the calling thread:
//! how a core spreads a parallel block. Starting threads per block would cost more than
//! most blocks take, so workers live as long as the core and wait between jobs, spinning
//! briefly (blocks follow each other quickly) and then parking.
//!
//! The pieces are dealt out in one stretch per thread, and a thread that is done with its
//! own stretch takes what is left of the others'. So a worker that wakes late (the machine
//! is busy) just does less, and the caller never waits for a worker that has not started,
//! only for pieces under way; and when all threads keep up, thread t works on the same
//! stretch of every block, which in a level-by-level stream touches the same wires level
//! after level: they stay in that core's cache.

use std::cell::UnsafeCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long a waiting thread spins before it parks (or yields, for the caller).
const SPIN: Duration = Duration::from_micros(50);

/// Bit of [`Shared::inside`] set while no job is open.
const CLOSED: usize = 1 << (usize::BITS - 1);

/// A job's pieces: `f(i)` for every `i < pieces`.
type PieceFn = dyn Fn(usize) + Sync;

/// The job of a pool that has run none (it has no pieces, so this is never called).
static NO_PIECE: fn(usize) = |_| {};

/// Worker threads and the job they share.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

#[derive(Clone, Copy)]
struct Job {
    /// The job's closure, its lifetime erased; valid while the job is open or a worker is
    /// inside it.
    f: *const PieceFn,
    pieces: usize,
}

struct Shared {
    /// Bumped once per job (and once to stop): workers look for a job when it changes.
    epoch: AtomicU64,
    /// Written by the owner only while the job is closed and no worker is inside.
    job: UnsafeCell<Job>,
    /// Per thread, the next piece of its stretch to take (counted from the stretch's start).
    next: Vec<Padded>,
    /// Workers inside the current job, plus [`CLOSED`] while it is closed.
    inside: AtomicUsize,
    panicked: AtomicBool,
    stop: AtomicBool,
}

// SAFETY: `job` is the only field without its own synchronisation. The owner writes it
// only while `inside == CLOSED` (the job is closed and no worker is inside, and a worker
// that arrives then sees CLOSED and leaves without reading `job`), before the Release
// `fetch_and` that opens the job; a worker reads it only after its Acquire `fetch_add` on
// `inside` saw the job open, and the owner does not return from `run` (after which `f`
// may be gone) before every worker inside has left. The closure pointer is `Sync`.
unsafe impl Sync for Shared {}
// SAFETY: as above; nothing in `Shared` is tied to the thread that created it.
unsafe impl Send for Shared {}

impl Pool {
    /// A pool of `threads` threads in all: the caller and `threads - 1` workers.
    pub(crate) fn new(threads: usize) -> std::io::Result<Pool> {
        let shared = Arc::new(Shared {
            epoch: AtomicU64::new(0),
            job: UnsafeCell::new(Job {
                f: erase_lifetime(&NO_PIECE),
                pieces: 0,
            }),
            next: (0..threads).map(|_| Padded(AtomicUsize::new(0))).collect(),
            inside: AtomicUsize::new(CLOSED),
            panicked: AtomicBool::new(false),
            stop: AtomicBool::new(false),
        });
        let mut pool = Pool {
            shared,
            workers: Vec::new(),
        };
        for index in 1..threads {
            let shared = pool.shared.clone();
            // On failure, dropping `pool` stops the workers already started.
            let worker = thread::Builder::new()
                .name(format!("mixgc-garble-{index}"))
                .spawn(move || work(&shared, index))?;
            pool.workers.push(worker);
        }
        Ok(pool)
    }

    /// Threads in the pool, the caller included.
    pub(crate) fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Runs `f(i)` once for every `i < pieces`, on the calling thread and whichever
    /// workers join in; thread t starts on the t-th of `threads()` equal stretches. Returns when all pieces are done; panics if one panicked.
    pub(crate) fn run(&self, pieces: usize, f: &(dyn Fn(usize) + Sync + '_)) {
        let shared = &*self.shared;
        debug_assert_eq!(shared.inside.load(Ordering::Relaxed) & CLOSED, CLOSED);
        let job = Job {
            f: erase_lifetime(f),
            pieces,
        };
        // SAFETY: the job is closed with no worker inside (the previous `run` waited for
        // that), and workers read `job` only after the Release below opens it.
        unsafe { *shared.job.get() = job };
        shared.next.iter().for_each(|n| n.0.store(0, Ordering::Relaxed));
        shared.panicked.store(false, Ordering::Relaxed);
        shared.inside.fetch_and(!CLOSED, Ordering::Release);
        shared.epoch.fetch_add(1, Ordering::Release);
        for w in &self.workers {
            w.thread().unpark();
        }
        // Closes the job and waits for the workers inside even when `f` panics here, so
        // none uses `f` after it is gone.
        let close = CloseAndWait(shared);
        take_pieces(shared, job, 0);
        drop(close);
        if shared.panicked.load(Ordering::Relaxed) {
            panic!("a garbling worker thread panicked");
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.shared.epoch.fetch_add(1, Ordering::Release);
        for w in self.workers.drain(..) {
            w.thread().unpark();
            // A worker catches the panics of its pieces, so it cannot end in one.
            let _ = w.join();
        }
    }
}

/// Closes the current job when dropped and waits until no worker is inside.
struct CloseAndWait<'a>(&'a Shared);

impl Drop for CloseAndWait<'_> {
    fn drop(&mut self) {
        let inside = &self.0.inside;
        inside.fetch_or(CLOSED, Ordering::Relaxed);
        // Workers inside are running pieces (or about to find none left): this is short
        // unless one was descheduled, which yielding lets run again.
        let start = Instant::now();
        while inside.load(Ordering::Acquire) != CLOSED {
            if start.elapsed() < SPIN {
                std::hint::spin_loop();
            } else {
                thread::yield_now();
            }
        }
    }
}

/// A counter on a cache line of its own, so threads taking pieces of different stretches
/// do not slow each other down.
#[repr(align(128))]
struct Padded(AtomicUsize);

/// Takes and runs pieces of `job` until none is left: those of stretch `me` first, then
/// those left of the others.
fn take_pieces(shared: &Shared, job: Job, me: usize) {
    let threads = shared.next.len();
    for k in 0..threads {
        let t = (me + k) % threads;
        let stretch = job.pieces * t / threads..job.pieces * (t + 1) / threads;
        loop {
            let i = stretch.start + shared.next[t].0.fetch_add(1, Ordering::Relaxed);
            if i >= stretch.end {
                break;
            }
            // SAFETY: the caller is the owner in `run`, or a worker inside the open job:
            // either way `run` has not returned and the closure is alive.
            unsafe { (*job.f)(i) };
        }
    }
}

/// A worker's life: wait for a new epoch, join the job if it is still open, until told
/// to stop.
fn work(shared: &Shared, me: usize) {
    let mut seen = 0;
    loop {
        spin_then_park(|| shared.epoch.load(Ordering::Acquire) != seen);
        seen = shared.epoch.load(Ordering::Acquire);
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        if shared.inside.fetch_add(1, Ordering::Acquire) & CLOSED == 0 {
            // SAFETY: the job is open and this worker is inside it (see `Shared`).
            let job = unsafe { *shared.job.get() };
            if catch_unwind(AssertUnwindSafe(|| take_pieces(shared, job, me))).is_err() {
                shared.panicked.store(true, Ordering::Relaxed);
                // Nobody else would take the rest of this worker's piece: the owner
                // reports the panic once the other pieces are done.
            }
        }
        shared.inside.fetch_sub(1, Ordering::Release);
    }
}

/// Returns once `done()` holds: spins for up to [`SPIN`], then parks between checks (the
/// pool unparks its workers after changing the epoch; spurious wake-ups just check again).
fn spin_then_park(mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while start.elapsed() < SPIN {
        for _ in 0..64 {
            if done() {
                return;
            }
            std::hint::spin_loop();
        }
    }
    while !done() {
        thread::park();
    }
}

/// The closure as a raw pointer without its lifetime (see [`Shared`] for why it outlives
/// every use).
fn erase_lifetime<'a>(f: &'a (dyn Fn(usize) + Sync + 'a)) -> *const PieceFn {
    let f: *const (dyn Fn(usize) + Sync + 'a) = f;
    // SAFETY: only the lifetime bound of the trait object changes (same layout); the
    // pointer is dereferenced only while `run` holds the borrow.
    unsafe { std::mem::transmute::<*const (dyn Fn(usize) + Sync + 'a), *const PieceFn>(f) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    #[test]
    fn every_piece_runs_once() {
        for threads in 1..=4 {
            let pool = Pool::new(threads).unwrap();
            assert_eq!(pool.threads(), threads);
            for pieces in [0, 1, 3, 16] {
                let counts: Vec<AtomicU32> = (0..pieces).map(|_| AtomicU32::new(0)).collect();
                for _ in 0..500 {
                    pool.run(pieces, &|i| {
                        counts[i].fetch_add(1, Ordering::Relaxed);
                    });
                }
                assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 500));
            }
        }
    }

    /// Each thread starts on its own stretch: with one piece per thread, a piece that waits
    /// for all pieces to have started only finishes if every worker takes part.
    #[test]
    fn workers_take_part_at_the_same_time() {
        for threads in 2..=4 {
            let pool = Pool::new(threads).unwrap();
            for _ in 0..20 {
                let started = AtomicUsize::new(0);
                pool.run(threads, &|_| {
                    started.fetch_add(1, Ordering::SeqCst);
                    while started.load(Ordering::SeqCst) < threads {
                        std::thread::yield_now();
                    }
                });
            }
        }
    }

    #[test]
    fn a_panicking_piece_is_reported_and_the_pool_goes_on() {
        let pool = Pool::new(3).unwrap();
        for _ in 0..20 {
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                pool.run(8, &|i| assert_ne!(i, 5, "piece 5 fails"));
            }));
            assert!(outcome.is_err());
        }
        let sum = AtomicUsize::new(0);
        pool.run(4, &|i| {
            sum.fetch_add(i, Ordering::Relaxed);
        });
        assert_eq!(sum.load(Ordering::Relaxed), 6);
    }
}
