//! Persistent worker threads that run one job on every thread at once, the calling thread
//! included: how a core spreads a parallel block. Starting threads per block would cost
//! more than most blocks take, so workers live as long as the core and wait between jobs,
//! spinning briefly (blocks follow each other quickly) and then parking.

use std::cell::UnsafeCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle, Thread};
use std::time::{Duration, Instant};

/// How long a waiting thread spins before it parks.
const SPIN: Duration = Duration::from_micros(50);

/// A job: thread `i` of the pool calls `f(i)`.
type JobFn = dyn Fn(usize) + Sync;

/// Worker threads and the job they share.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

struct Job {
    /// The job's closure, its lifetime erased; valid until `running` drops to 0.
    f: *const JobFn,
    /// The thread waiting for the job to finish.
    owner: Thread,
}

struct Shared {
    /// Bumped once per job (and once to stop): a worker runs the job when it changes.
    epoch: AtomicU64,
    /// Written by the owner only between jobs, read by workers only during one.
    job: UnsafeCell<Option<Job>>,
    /// Workers that have not finished the current job.
    running: AtomicUsize,
    panicked: AtomicBool,
    stop: AtomicBool,
}

// SAFETY: `job` is the only field without its own synchronisation. The owner writes it
// only while `running == 0` (every worker is done with the previous job) and before the
// Release increment of `epoch` that announces the job; workers read it only after an
// Acquire load sees that increment and before their Release decrement of `running`. The
// raw closure pointer inside is `Sync` (`JobFn: Sync`) and `Thread` is `Send + Sync`.
unsafe impl Sync for Shared {}
// SAFETY: as above; nothing in `Shared` is tied to the thread that created it.
unsafe impl Send for Shared {}

impl Pool {
    /// A pool of `threads` threads in all: the caller and `threads - 1` workers.
    pub(crate) fn new(threads: usize) -> std::io::Result<Pool> {
        let shared = Arc::new(Shared {
            epoch: AtomicU64::new(0),
            job: UnsafeCell::new(None),
            running: AtomicUsize::new(0),
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

    /// Runs `f(i)` on thread `i` for every `i < threads()`: `f(0)` on the calling thread,
    /// the others on the workers. Returns when all calls have returned; panics if one did.
    pub(crate) fn broadcast(&self, f: &(dyn Fn(usize) + Sync + '_)) {
        let shared = &*self.shared;
        let job = Job {
            f: erase_lifetime(f),
            owner: thread::current(),
        };
        // SAFETY: no worker runs a job (the previous `broadcast` waited for `running == 0`
        // and workers touch `job` only after the epoch below changes).
        unsafe { *shared.job.get() = Some(job) };
        shared.panicked.store(false, Ordering::Relaxed);
        shared.running.store(self.workers.len(), Ordering::Relaxed);
        shared.epoch.fetch_add(1, Ordering::Release);
        for w in &self.workers {
            w.thread().unpark();
        }
        // Waits for the workers even when `f(0)` panics, so none uses `f` after it is gone.
        let done = WaitForWorkers(shared);
        f(0);
        drop(done);
        if shared.panicked.swap(false, Ordering::Relaxed) {
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
            // A worker catches the panics of its jobs, so it cannot end in one.
            let _ = w.join();
        }
    }
}

/// Waits, when dropped, until no worker runs the current job.
struct WaitForWorkers<'a>(&'a Shared);

impl Drop for WaitForWorkers<'_> {
    fn drop(&mut self) {
        spin_then_park(|| self.0.running.load(Ordering::Acquire) == 0);
    }
}

/// A worker's life: wait for a new epoch, run the job, report, until told to stop.
fn work(shared: &Shared, index: usize) {
    let mut seen = 0;
    loop {
        spin_then_park(|| shared.epoch.load(Ordering::Acquire) != seen);
        seen = shared.epoch.load(Ordering::Acquire);
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        // SAFETY: the owner wrote the job before announcing this epoch and leaves it alone
        // until this worker's decrement of `running` below.
        let job = unsafe { (*shared.job.get()).as_ref().expect("a job comes with its epoch") };
        let owner = job.owner.clone();
        // SAFETY: `broadcast` keeps the closure alive until `running` drops to 0.
        let f = unsafe { &*job.f };
        if catch_unwind(AssertUnwindSafe(|| f(index))).is_err() {
            shared.panicked.store(true, Ordering::Relaxed);
        }
        if shared.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            owner.unpark();
        }
    }
}

/// Returns once `done()` holds: spins for up to [`SPIN`], then parks between checks (whoever
/// makes `done()` true unparks this thread afterwards; spurious wake-ups just check again).
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

/// The closure as a raw pointer without its lifetime (see [`Pool::broadcast`] for why it
/// outlives every use).
fn erase_lifetime<'a>(f: &'a (dyn Fn(usize) + Sync + 'a)) -> *const JobFn {
    let f: *const (dyn Fn(usize) + Sync + 'a) = f;
    // SAFETY: only the lifetime bound of the trait object changes (same layout); the
    // pointer is dereferenced only while `broadcast` holds the borrow.
    unsafe { std::mem::transmute::<*const (dyn Fn(usize) + Sync + 'a), *const JobFn>(f) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    #[test]
    fn every_thread_runs_every_job_once() {
        for threads in 1..=4 {
            let pool = Pool::new(threads).unwrap();
            assert_eq!(pool.threads(), threads);
            let counts: Vec<AtomicU32> = (0..threads).map(|_| AtomicU32::new(0)).collect();
            for _ in 0..1000 {
                pool.broadcast(&|i| {
                    counts[i].fetch_add(1, Ordering::Relaxed);
                });
            }
            assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1000));
        }
    }

    #[test]
    fn a_panicking_worker_is_reported_and_the_pool_goes_on() {
        let pool = Pool::new(3).unwrap();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            pool.broadcast(&|i| assert_ne!(i, 2, "worker 2 fails"));
        }));
        assert!(outcome.is_err());
        let sum = AtomicUsize::new(0);
        pool.broadcast(&|i| {
            sum.fetch_add(i, Ordering::Relaxed);
        });
        assert_eq!(sum.load(Ordering::Relaxed), 3);
    }
}
