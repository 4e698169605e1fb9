//! `--progress` and `--quiet`: how a command shows long work on stderr. The library reports
//! through `mixgc_core::Progress`; this module draws it, for the `mixgc` binary and the
//! studies alike (one mechanism). Nothing here writes to stdout.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mixgc_core::{Progress, Reporter, Unit};

use super::thousands;

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProgressMode {
    /// A bar when stderr is a terminal, nothing otherwise.
    Auto,
    /// Always a bar.
    Bar,
    /// One line per second, for logs.
    Plain,
    /// Nothing.
    None,
}

/// The flags that say what a command prints on stderr while it works.
#[derive(Args, Clone, Debug)]
pub struct Feedback {
    /// Progress on stderr: auto (a bar when stderr is a terminal), bar, plain (a line per
    /// second, for logs) or none.
    #[arg(long, value_enum, default_value = "auto", value_name = "MODE")]
    pub progress: ProgressMode,
    /// Print nothing on stderr but `listening on ADDR`, warnings and errors.
    #[arg(long)]
    pub quiet: bool,
}

impl Feedback {
    /// The reporter the library should call for this command's work.
    pub fn reporter(&self) -> Reporter {
        let mode = match (self.quiet, self.progress) {
            (true, _) | (_, ProgressMode::None) => return Reporter::none(),
            (false, ProgressMode::Auto) if !std::io::stderr().is_terminal() => return Reporter::none(),
            (false, ProgressMode::Auto) => ProgressMode::Bar,
            (false, mode) => mode,
        };
        match mode {
            ProgressMode::Plain => Reporter::new(Arc::new(Lines::default())),
            _ => Reporter::new(Arc::new(Bar::new())),
        }
    }

    /// A reporter already in a phase of `total` [`Unit::Steps`] named `what`: the studies'
    /// runs and cases, advanced by one per step and annotated with [`Reporter::note`].
    pub fn steps(&self, what: &str, total: u64) -> Reporter {
        let reporter = self.reporter();
        reporter.begin(what, Some(total), Unit::Steps);
        reporter
    }

    /// Prints a summary line on stderr unless `--quiet`.
    pub fn summary(&self, line: &str) {
        if !self.quiet {
            eprintln!("{line}");
        }
    }
}

/// An indicatif bar: done of total, rate and ETA; a running counter when the total is
/// unknown; a clock when nothing is counted. One bar per phase.
struct Bar {
    bar: Mutex<ProgressBar>,
    /// The current phase's name, which a note is appended to.
    what: Mutex<String>,
}

impl Bar {
    fn new() -> Bar {
        Bar {
            bar: Mutex::new(ProgressBar::hidden()),
            what: Mutex::new(String::new()),
        }
    }

    fn current(&self) -> Option<ProgressBar> {
        self.bar.lock().ok().map(|b| b.clone())
    }
}

impl Progress for Bar {
    fn begin(&self, what: &str, total: Option<u64>, unit: Unit) {
        let name = unit.name();
        let template = match (unit, total) {
            (Unit::Time, _) => "{spinner} {msg} {elapsed}".to_string(),
            (Unit::Steps, _) => "{bar:30} {pos}/{len} {elapsed:>4} {msg}".to_string(),
            (_, Some(_)) => {
                format!("{{msg}} {{bar:30}} {{human_pos}}/{{human_len}} {name} {{per_sec}} ETA {{eta}}")
            }
            (_, None) => format!("{{msg}} {{human_pos}} {name} {{per_sec}} {{elapsed}}"),
        };
        let style = ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar());
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr_with_hz(4))
            .with_style(style)
            .with_message(what.to_string());
        // Without a total, the clock keeps the line alive.
        if total.is_none() {
            bar.enable_steady_tick(Duration::from_millis(250));
        }
        if let Ok(mut current) = self.bar.lock() {
            current.finish_and_clear();
            *current = bar;
        }
        if let Ok(mut name) = self.what.lock() {
            *name = what.to_string();
        }
    }

    fn note(&self, now: &str) {
        if let (Some(bar), Ok(what)) = (self.current(), self.what.lock()) {
            bar.set_message(format!("{what}: {now}"));
        }
    }

    fn advance(&self, n: u64) {
        if let Some(bar) = self.current() {
            bar.inc(n);
        }
    }

    fn end(&self) {
        if let Some(bar) = self.current() {
            bar.finish_and_clear();
        }
    }
}

/// One line per second on stderr (`what: done/total unit (rate/s)`, or the time spent when
/// there is nothing to count), from a ticker thread, so a phase that never advances still
/// shows it is alive.
#[derive(Default)]
struct Lines {
    shared: Arc<Shared>,
    ticker: Mutex<Option<std::thread::JoinHandle<()>>>,
}

#[derive(Default)]
struct Shared {
    done: AtomicU64,
    phase: Mutex<Option<Phase>>,
    stop: std::sync::Condvar,
}

struct Phase {
    what: String,
    /// The latest [`Progress::note`], shown after the count.
    now: Option<String>,
    total: Option<u64>,
    unit: Unit,
    start: Instant,
}

impl Phase {
    fn line(&self, done: u64) -> String {
        let secs = self.start.elapsed().as_secs_f64();
        let now = self.now.as_deref().map(|n| format!(", {n}")).unwrap_or_default();
        if self.unit == Unit::Time {
            return format!("{}: {secs:.1} s{now}", self.what);
        }
        let of = self
            .total
            .map(|t| format!("/{}", thousands(t)))
            .unwrap_or_default();
        if self.unit == Unit::Steps {
            return format!("{}: {done}{of} steps, {secs:.1} s{now}", self.what);
        }
        format!(
            "{}: {}{of} {} ({}/s)",
            self.what,
            thousands(done),
            self.unit.name(),
            thousands((done as f64 / secs.max(1e-9)) as u64)
        )
    }
}

impl Lines {
    fn stop_ticker(&self) {
        if let Ok(mut phase) = self.shared.phase.lock() {
            if let Some(phase) = phase.take() {
                // A phase that counted work ends with its final count, however fast it was
                // (a log then always says how much was done); a timed one only if it took
                // over a second.
                let done = self.shared.done.load(Ordering::Relaxed);
                if done > 0 || phase.start.elapsed() >= Duration::from_secs(1) {
                    eprintln!("{}", phase.line(done));
                }
            }
        }
        self.shared.stop.notify_all();
        if let Some(ticker) = self.ticker.lock().ok().and_then(|mut t| t.take()) {
            let _ = ticker.join();
        }
    }
}

impl Progress for Lines {
    fn begin(&self, what: &str, total: Option<u64>, unit: Unit) {
        self.stop_ticker();
        self.shared.done.store(0, Ordering::Relaxed);
        if let Ok(mut phase) = self.shared.phase.lock() {
            *phase = Some(Phase {
                what: what.to_string(),
                now: None,
                total,
                unit,
                start: Instant::now(),
            });
        }
        let shared = self.shared.clone();
        let ticker = std::thread::spawn(move || {
            let Ok(mut phase) = shared.phase.lock() else {
                return;
            };
            // The phase is taken under the lock before the stop is signalled, so checking it
            // before each wait never misses the stop.
            while phase.is_some() {
                let Ok((guard, wait)) = shared.stop.wait_timeout(phase, Duration::from_secs(1)) else {
                    return;
                };
                phase = guard;
                if let (Some(p), true) = (phase.as_ref(), wait.timed_out()) {
                    eprintln!("{}", p.line(shared.done.load(Ordering::Relaxed)));
                }
            }
        });
        if let Ok(mut t) = self.ticker.lock() {
            *t = Some(ticker);
        }
    }

    fn advance(&self, n: u64) {
        self.shared.done.fetch_add(n, Ordering::Relaxed);
    }

    fn end(&self) {
        self.stop_ticker();
    }

    fn note(&self, now: &str) {
        if let Ok(mut phase) = self.shared.phase.lock() {
            if let Some(phase) = phase.as_mut() {
                phase.now = Some(now.to_string());
            }
        }
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        self.stop_ticker();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phase(what: &str, total: Option<u64>, unit: Unit, now: Option<&str>) -> Phase {
        Phase {
            what: what.to_string(),
            now: now.map(str::to_string),
            total,
            unit,
            start: Instant::now(),
        }
    }

    #[test]
    fn plain_lines_say_count_total_unit_and_the_latest_note() {
        let ands = phase("garbling", Some(2_000_000), Unit::Ands, None).line(1_500_000);
        assert!(ands.starts_with("garbling: 1,500,000/2,000,000 ANDs ("), "{ands}");
        assert!(ands.ends_with("/s)"), "{ands}");
        let running = phase("evaluating", None, Unit::Ands, None).line(12);
        assert!(running.starts_with("evaluating: 12 ANDs ("), "{running}");
        let steps = phase("bench", Some(6), Unit::Steps, Some("run 2/3")).line(4);
        assert!(
            steps.starts_with("bench: 4/6 steps, ") && steps.ends_with(" s, run 2/3"),
            "{steps}"
        );
        let timed = phase("synthesizing with Yosys", None, Unit::Time, None).line(0);
        assert!(
            timed.starts_with("synthesizing with Yosys: ") && timed.ends_with(" s"),
            "{timed}"
        );
    }

    #[test]
    fn quiet_and_none_report_nowhere() {
        for (quiet, progress) in [
            (true, ProgressMode::Plain),
            (true, ProgressMode::Bar),
            (false, ProgressMode::None),
        ] {
            let feedback = Feedback { progress, quiet };
            assert!(!feedback.reporter().is_on());
            assert!(!feedback.steps("x", 3).is_on());
        }
        let plain = Feedback {
            progress: ProgressMode::Plain,
            quiet: false,
        };
        assert!(plain.reporter().is_on());
    }
}
