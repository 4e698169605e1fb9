//! Helpers for driving the `mixgc` binary from integration tests: spawn processes, read
//! the listener's address from its first stderr line, collect outputs under a deadline
//! (children still running at the deadline are killed, so a broken binary cannot hang a
//! test).

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::SeedableRng;

/// Path of the `mixgc` binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_mixgc");

/// Default deadline for one process or one pair of processes.
pub const DEADLINE: Duration = Duration::from_secs(20);

/// The RNG of a test's random inputs, seeded from `MIXGC_TEST_SEED` or else a fresh
/// seed. The seed goes to stderr, which the harness shows when the test fails, so
/// `MIXGC_TEST_SEED=<seed> cargo test ...` replays the failure.
pub fn test_rng() -> StdRng {
    let seed = match std::env::var("MIXGC_TEST_SEED") {
        Ok(s) => s
            .parse()
            .unwrap_or_else(|_| panic!("MIXGC_TEST_SEED must be a number, not {s:?}")),
        Err(_) => rand::random(),
    };
    eprintln!("random test inputs from MIXGC_TEST_SEED={seed}");
    StdRng::seed_from_u64(seed)
}

/// Path of a shipped circuit, e.g. `circuit("aes_128.txt")`.
pub fn circuit(name: &str) -> String {
    format!("{}/../../circuits/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// What a finished (or killed) process left behind.
#[derive(Debug)]
pub struct Output {
    /// Exit code; `None` if killed by a signal (including by our deadline).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// True if the process was still running at the deadline and was killed.
    pub timed_out: bool,
    /// From spawn to exit (or kill).
    pub elapsed: Duration,
}

impl Output {
    pub fn success(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }

    /// Asserts a clean success: exit 0, no panic.
    pub fn assert_ok(&self, what: &str) -> &Self {
        assert!(self.success(), "{what}: expected success, got {self:#?}");
        assert!(!self.stderr.contains("panicked"), "{what}: panic: {self:#?}");
        self
    }

    /// Asserts a clean failure: it exited by itself (no hang), nonzero, no panic, nothing
    /// on stdout, and an `error: ...` message on stderr that contains every string in `needles`.
    pub fn assert_error(&self, what: &str, needles: &[&str]) -> &Self {
        assert!(!self.timed_out, "{what}: hung until killed: {self:#?}");
        assert!(
            self.code.is_some() && self.code != Some(0),
            "{what}: expected a nonzero exit code: {self:#?}"
        );
        assert!(!self.stderr.contains("panicked"), "{what}: panic: {self:#?}");
        assert!(
            self.stdout.is_empty(),
            "{what}: a failed run printed on stdout: {self:#?}"
        );
        // The message: from the `error: ` line to the end (the parser's errors list the
        // missing arguments on the lines after it).
        let at = if self.stderr.starts_with("error: ") {
            Some(0)
        } else {
            self.stderr.find("\nerror: ").map(|i| i + 1)
        };
        let at = at.unwrap_or_else(|| panic!("{what}: no `error: ...` line on stderr: {self:#?}"));
        let message = &self.stderr[at..];
        let found = internals(&self.stderr);
        assert!(
            found.is_empty(),
            "{what}: Rust internals {found:?} in the messages: {self:#?}"
        );
        for n in needles {
            assert!(
                message.contains(n),
                "{what}: the error does not mention {n:?}: {self:#?}"
            );
        }
        self
    }
}

/// Internal names that must not reach a user, as whole words.
const INTERNAL_WORDS: &[&str] = &[
    "None",
    "Some",
    "Tag",
    "Tables",
    "Preprocessed",
    "Hello",
    "Duration",
    "PartyId",
    "Audience",
    "NetError",
    "SessionError",
    "PeerMisbehaved",
    "Ok",
    "Err",
];

/// Fragments that betray a `Debug` rendering or a panic.
const INTERNAL_FRAGMENTS: &[&str] = &[
    "Some(",
    "None",
    "panicked",
    "Tag(",
    "unknown tag",
    "RUST_BACKTRACE",
];

/// A word with an upper-case letter after a lower-case one (`CircuitHeader`, `ArithTables`).
fn is_camel_case(word: &str) -> bool {
    if ["KiB", "MiB", "GiB", "TiB"].contains(&word) {
        return false;
    }
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && word
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}

/// What in `stderr` looks like a Rust internal, if anything.
pub fn internals(stderr: &str) -> Vec<String> {
    let mut found: Vec<String> = INTERNAL_FRAGMENTS
        .iter()
        .filter(|f| stderr.contains(**f))
        .map(|f| f.to_string())
        .collect();
    let words: Vec<&str> = stderr
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    for (i, w) in words.iter().enumerate() {
        if INTERNAL_WORDS.contains(w) || is_camel_case(w) {
            found.push(w.to_string());
        }
        // A tag number: `tag 7`.
        if w.eq_ignore_ascii_case("tag") && words.get(i + 1).is_some_and(|n| n.parse::<u32>().is_ok()) {
            found.push(format!("{w} {}", words[i + 1]));
        }
    }
    found
}

/// A running `mixgc` process whose stdout and stderr are being collected.
pub struct Proc {
    child: Child,
    started: Instant,
    stdout: Option<JoinHandle<String>>,
    stderr: Option<JoinHandle<String>>,
    first_line: Receiver<String>,
}

/// Spawns `mixgc ARGS` with stdin closed and stdout/stderr captured.
pub fn spawn(args: &[&str]) -> Proc {
    spawn_with(args, true)
}

/// Like [`spawn`]; with `keep_stdout == false` the read end of the stdout pipe is closed
/// at once, so anything the process prints there fails with a broken pipe.
pub fn spawn_with(args: &[&str], keep_stdout: bool) -> Proc {
    let mut command = Command::new(BIN);
    command.args(args);
    spawn_command(command, keep_stdout)
}

/// Like [`spawn`], with `dir` as the working directory (relative paths resolve there).
pub fn spawn_in(dir: &std::path::Path, args: &[&str]) -> Proc {
    let mut command = Command::new(BIN);
    command.args(args).current_dir(dir);
    spawn_command(command, true)
}

fn spawn_command(mut command: Command, keep_stdout: bool) -> Proc {
    let started = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mixgc");
    let out = child.stdout.take().unwrap();
    let stdout = if keep_stdout {
        Some(thread::spawn(move || read_all(out)))
    } else {
        drop(out);
        None
    };
    let err = child.stderr.take().unwrap();
    let (tx, first_line) = mpsc::channel();
    let stderr = thread::spawn(move || {
        let mut r = BufReader::new(err);
        let mut all = String::new();
        let mut line = String::new();
        let mut first = true;
        loop {
            line.clear();
            match r.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if first {
                        let _ = tx.send(line.trim_end().to_string());
                        first = false;
                    }
                    all.push_str(&line);
                }
            }
        }
        all
    });
    Proc {
        child,
        started,
        stdout,
        stderr: Some(stderr),
        first_line,
    }
}

fn read_all(mut r: impl Read) -> String {
    let mut v = Vec::new();
    let _ = r.read_to_end(&mut v);
    String::from_utf8_lossy(&v).into_owned()
}

/// A test that fails between spawning and `finish` leaves no process behind.
impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Proc {
    /// The first stderr line, waiting at most `timeout`; `None` if none came (the process
    /// is then killed by the caller's `finish`).
    pub fn first_stderr_line(&self, timeout: Duration) -> Option<String> {
        self.first_line.recv_timeout(timeout).ok()
    }

    /// Reads the `listening on ADDR` line a `--listen` party prints first and returns ADDR.
    /// Panics (after killing the process) if the first line is something else or late.
    pub fn listening_addr(&mut self) -> String {
        match self.first_stderr_line(Duration::from_secs(10)) {
            Some(line) => match line.strip_prefix("listening on ") {
                Some(addr) => addr.to_string(),
                None => {
                    let rest = self.kill_now();
                    panic!("first stderr line is not `listening on ADDR`: {line:?}; {rest:#?}")
                }
            },
            None => {
                let rest = self.kill_now();
                panic!("no `listening on` line within 10 s: {rest:#?}")
            }
        }
    }

    fn kill_now(&mut self) -> Output {
        let _ = self.child.kill();
        self.collect(true)
    }

    /// Waits for the process to exit until `deadline`; kills it if it is still running.
    pub fn finish(mut self, deadline: Instant) -> Output {
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => return self.collect(false),
                Ok(None) if Instant::now() >= deadline => {
                    let _ = self.child.kill();
                    return self.collect(true);
                }
                Ok(None) => thread::sleep(Duration::from_millis(5)),
                Err(e) => panic!("waiting for mixgc: {e}"),
            }
        }
    }

    fn collect(&mut self, timed_out: bool) -> Output {
        let status = self.child.wait().expect("wait for mixgc");
        let elapsed = self.started.elapsed();
        let stdout = self.stdout.take().map(|h| h.join().unwrap()).unwrap_or_default();
        let stderr = self.stderr.take().map(|h| h.join().unwrap()).unwrap_or_default();
        Output {
            code: status.code(),
            stdout,
            stderr,
            timed_out,
            elapsed,
        }
    }
}

/// Runs `mixgc ARGS` alone to completion (at most [`DEADLINE`]).
pub fn run1(args: &[&str]) -> Output {
    spawn(args).finish(Instant::now() + DEADLINE)
}

/// Runs two parties: `listener` gets `--listen 127.0.0.1:0` appended, `connector` gets
/// `--connect ADDR` with the address from the listener's first stderr line. Returns
/// (listener's output, connector's output); both are killed if still running after
/// [`DEADLINE`].
pub fn pair(listener: &[&str], connector: &[&str]) -> (Output, Output) {
    pair_with(listener, connector, true)
}

/// [`pair`] where the connector's stdout pipe is closed at once if `connector_stdout` is
/// false.
pub fn pair_with(listener: &[&str], connector: &[&str], connector_stdout: bool) -> (Output, Output) {
    let deadline = Instant::now() + DEADLINE;
    let mut l_args = listener.to_vec();
    l_args.extend(["--listen", "127.0.0.1:0"]);
    let mut l = spawn(&l_args);
    let addr = l.listening_addr();
    let mut c_args = connector.to_vec();
    c_args.extend(["--connect", &addr]);
    let c = spawn_with(&c_args, connector_stdout);
    let c_out = c.finish(deadline);
    let l_out = l.finish(deadline);
    (l_out, c_out)
}

/// `run --circuit PATH --role ROLE` plus `extra`, as owned strings.
pub fn run_args(circuit_file: &str, role: &str, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = ["run", "--circuit", circuit_file, "--role", role]
        .iter()
        .map(|s| s.to_string())
        .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

pub fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// One two-party run of `circuit_file` with the garbler listening and the evaluator
/// connecting; `g_extra` / `e_extra` are each party's further flags (e.g. `--input`).
pub fn garbler_listens(circuit_file: &str, g_extra: &[&str], e_extra: &[&str]) -> (Output, Output) {
    let g = run_args(circuit_file, "garbler", g_extra);
    let e = run_args(circuit_file, "evaluator", e_extra);
    pair(&strs(&g), &strs(&e))
}

/// `--input` flag pair for a list of hex values (none: no flag at all).
pub fn input_flag(values: &[String]) -> Vec<String> {
    if values.is_empty() {
        Vec::new()
    } else {
        vec!["--input".to_string(), values.join(",")]
    }
}

/// A scratch file that is removed when dropped.
pub struct TempFile(std::path::PathBuf);

impl TempFile {
    pub fn new(name: &str, contents: &[u8]) -> TempFile {
        let dir = std::env::temp_dir().join(format!("mixgc-cli-tests-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, contents).unwrap();
        TempFile(path)
    }

    pub fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
