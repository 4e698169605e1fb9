//! How long work reports how far it has come. The library calls a [`Progress`] as work
//! advances (ANDs garbled, gates compiled, bytes written); the front end decides what to
//! show: the CLI draws a bar or a line per second on stderr, a binding forwards it to a
//! callback, tests count it. One mechanism for every protocol.

use std::sync::Arc;

/// What a piece of work counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// AND gates garbled or evaluated.
    Ands,
    /// Gates compiled or written.
    Gates,
    /// Bytes.
    Bytes,
    /// Nothing is counted: the phase shows only the time it takes.
    Time,
    /// Steps of a measurement (runs of a benchmark, cases of a profile).
    Steps,
}

impl Unit {
    /// The unit's name in a sentence ("ANDs", "gates", "bytes").
    pub fn name(self) -> &'static str {
        match self {
            Unit::Ands => "ANDs",
            Unit::Gates => "gates",
            Unit::Bytes => "bytes",
            Unit::Time => "seconds",
            Unit::Steps => "steps",
        }
    }
}

/// Receives progress reports. `advance` may be called very often from the working thread:
/// implementations keep it cheap (an atomic add) and draw on their own schedule.
pub trait Progress: Send + Sync {
    /// A phase named `what` begins, `total` units long when known (programs, for one, do
    /// not know their size in advance).
    fn begin(&self, what: &str, total: Option<u64>, unit: Unit);
    /// `n` more units of the current phase are done.
    fn advance(&self, n: u64);
    /// The current phase is over.
    fn end(&self);
    /// What the current phase is doing now changed (e.g. "run 3/5"), its count unchanged.
    /// Ignored unless the implementation shows it.
    fn note(&self, _now: &str) {}
}

/// A cheap, cloneable handle on an optional [`Progress`]; [`Reporter::none`] (the default)
/// reports nowhere.
#[derive(Clone, Default)]
pub struct Reporter(Option<Arc<dyn Progress>>);

impl Reporter {
    pub fn new(progress: Arc<dyn Progress>) -> Reporter {
        Reporter(Some(progress))
    }

    pub fn none() -> Reporter {
        Reporter(None)
    }

    pub fn begin(&self, what: &str, total: Option<u64>, unit: Unit) {
        if let Some(p) = &self.0 {
            p.begin(what, total, unit);
        }
    }

    #[inline]
    pub fn advance(&self, n: u64) {
        if let Some(p) = &self.0 {
            p.advance(n);
        }
    }

    pub fn end(&self) {
        if let Some(p) = &self.0 {
            p.end();
        }
    }

    /// Says what the current phase is doing now (see [`Progress::note`]).
    pub fn note(&self, now: &str) {
        if let Some(p) = &self.0 {
            p.note(now);
        }
    }

    /// Whether this reporter reports anywhere (work may skip preparing notes otherwise).
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }
}

impl std::fmt::Debug for Reporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Reporter(on)"
        } else {
            "Reporter(none)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Log(Mutex<Vec<String>>);

    impl Progress for Log {
        fn begin(&self, what: &str, total: Option<u64>, unit: Unit) {
            self.0
                .lock()
                .unwrap()
                .push(format!("begin {what} {total:?} {}", unit.name()));
        }
        fn advance(&self, n: u64) {
            self.0.lock().unwrap().push(format!("+{n}"));
        }
        fn end(&self) {
            self.0.lock().unwrap().push("end".into());
        }
        fn note(&self, now: &str) {
            self.0.lock().unwrap().push(format!("note {now}"));
        }
    }

    #[test]
    fn a_reporter_forwards_to_its_progress_and_none_drops_everything() {
        let log = Arc::new(Log::default());
        let r = Reporter::new(log.clone());
        r.clone().begin("garbling", Some(10), Unit::Ands);
        r.advance(4);
        r.note("batch 2");
        r.advance(6);
        r.end();
        assert_eq!(
            *log.0.lock().unwrap(),
            ["begin garbling Some(10) ANDs", "+4", "note batch 2", "+6", "end"]
        );
        assert!(r.is_on() && !Reporter::none().is_on());
        let none = Reporter::none();
        none.begin("x", None, Unit::Bytes);
        none.advance(1);
        none.note("ignored");
        none.end();
        assert_eq!(format!("{none:?} {r:?}"), "Reporter(none) Reporter(on)");
    }
}
