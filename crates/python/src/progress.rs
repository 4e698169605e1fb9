//! A Python progress callback behind the library's progress hook (`mixgc_core::Progress`):
//! `callback(phase, done, total)` with the GIL re-acquired, at most every
//! [`MIN_INTERVAL`] while a phase advances, and always when one begins and ends.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mixgc_core::{Progress, Reporter, Unit};
use pyo3::prelude::*;

/// The shortest time between two calls while a phase advances.
pub const MIN_INTERVAL: Duration = Duration::from_millis(100);

/// The reporter for `callback` (none when `None`), and the handle that holds the first
/// exception it raised.
pub fn reporter(callback: Option<Py<PyAny>>) -> (Reporter, Option<Arc<Callback>>) {
    match callback {
        None => (Reporter::none(), None),
        Some(f) => {
            let cb = Arc::new(Callback {
                f,
                phase: Mutex::new(Phase::default()),
                done: AtomicU64::new(0),
                raised: Mutex::new(None),
            });
            (Reporter::new(cb.clone()), Some(cb))
        }
    }
}

#[derive(Default)]
struct Phase {
    what: String,
    total: Option<u64>,
    last_call: Option<Instant>,
}

/// Forwards progress to a Python callable.
pub struct Callback {
    f: Py<PyAny>,
    phase: Mutex<Phase>,
    done: AtomicU64,
    /// The first exception the callback raised; later calls are skipped and the call that
    /// ran the work raises it when the work is over.
    raised: Mutex<Option<PyErr>>,
}

impl Callback {
    /// The exception the callback raised, if any.
    pub fn take_raised(&self) -> Option<PyErr> {
        self.raised.lock().ok().and_then(|mut r| r.take())
    }

    /// Calls the callback with the phase's state, unless it raised before.
    fn call(&self, force: bool) {
        let Ok(mut phase) = self.phase.lock() else {
            return;
        };
        let now = Instant::now();
        if !force && phase.last_call.is_some_and(|t| now - t < MIN_INTERVAL) {
            return;
        }
        phase.last_call = Some(now);
        let (what, total) = (phase.what.clone(), phase.total);
        drop(phase);
        if self.raised.lock().map(|r| r.is_some()).unwrap_or(true) {
            return;
        }
        let done = self.done.load(Ordering::Relaxed);
        Python::attach(|py| {
            if let Err(e) = self.f.call1(py, (what, done, total)) {
                if let Ok(mut raised) = self.raised.lock() {
                    raised.get_or_insert(e);
                }
            }
        });
    }
}

impl Progress for Callback {
    fn begin(&self, what: &str, total: Option<u64>, _unit: Unit) {
        if let Ok(mut phase) = self.phase.lock() {
            *phase = Phase {
                what: what.to_string(),
                total,
                last_call: None,
            };
        }
        self.done.store(0, Ordering::Relaxed);
        self.call(true);
    }

    fn advance(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
        self.call(false);
    }

    fn end(&self) {
        self.call(true);
    }

    fn note(&self, now: &str) {
        if let Ok(mut phase) = self.phase.lock() {
            let base = phase.what.split(": ").next().unwrap_or_default().to_string();
            phase.what = format!("{base}: {now}");
        }
        self.call(false);
    }
}
