//! Every failure ends both parties within `--timeout` + 1 s (issue #15): on each
//! two-process path (`run` on a Bristol file and a compiled stream, `preprocess`, `online`,
//! a Boolean and a CRT program), the garbler and the evaluator each stopped (SIGSTOP) and
//! killed (SIGKILL) mid-run; the survivor exits non-zero, saying in words which side
//! stalled and in which phase. `mixgc party` among three processes: party 1 stopped and
//! killed, the others gone within `--timeout` + the mesh's grace + 1 s. A peer that drips
//! bytes, never silent for a whole timeout, is ended by `--deadline`.
//!
//! The parties talk through a proxy in this test: it throttles the circuit paths (a few
//! MiB of tables on loopback would be over before a signal lands), drips for the deadline
//! case, and tells when the garbled tables flow, so a signal always hits a run under way.
//! The cases of a path run two at a time, one path after another (the bound is wall time).

mod common;

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use common::{internals, TempFile, BIN};

/// The `--timeout` of every case.
const TIMEOUT: u64 = 2;
/// `--timeout` plus one second: when a survivor must be gone, counted from the signal
/// (issue #15's target), however long the buffers between the parties still take its bytes
/// (the peer's process acknowledges what it took: `mixgc_net::CreditChannel`).
const BOUND: Duration = Duration::from_secs(TIMEOUT + 1);
/// Tables the garbler has sent through the proxy before a victim is signalled.
const UNDER_WAY: u64 = 1 << 20;
/// How long setting a case up may take on a loaded machine.
const SETUP: Duration = Duration::from_secs(60);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Garbler,
    Evaluator,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Garbler => "garbler",
            Role::Evaluator => "evaluator",
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Signal {
    Stop,
    Kill,
}

/// How the proxy passes bytes on.
#[derive(Clone, Copy)]
enum Pace {
    Full,
    /// At most this many bytes a second in each direction.
    Rate(u64),
    /// One byte per period in each direction.
    Drip(Duration),
    /// The evaluator's bytes are held until a victim is signalled (the garbler's pass at
    /// once): the online phase's one request is in flight when the signal lands.
    Hold,
}

/// What shows that a run is under way, so that a signal lands mid-run.
#[derive(Clone, Copy)]
enum UnderWay {
    /// [`UNDER_WAY`] bytes of garbled tables have passed the proxy.
    TablesFlow,
    /// The evaluator's first bytes (the online request) are held by the proxy.
    RequestHeld,
}

/// A free loopback port (the OS picked it; it is free again once the listener is gone).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A `mixgc` process whose stderr is collected as it comes. Dropping it resumes (if
/// stopped) and kills it, so no stopped or orphaned process outlives a test.
struct Party {
    child: Child,
    stderr: Arc<Mutex<String>>,
    /// When an `error: ` line first came on stderr.
    error_at: Arc<Mutex<Option<Instant>>>,
    reader: Option<thread::JoinHandle<()>>,
}

impl Party {
    fn spawn(args: &[String]) -> Party {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mixgc");
        let stderr = Arc::new(Mutex::new(String::new()));
        let error_at = Arc::new(Mutex::new(None));
        let sink = stderr.clone();
        let error_seen = error_at.clone();
        let pipe = child.stderr.take().unwrap();
        let reader = thread::spawn(move || {
            let mut pipe = pipe;
            let mut bytes = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                match pipe.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        bytes.extend_from_slice(&buf[..n]);
                        let text = String::from_utf8_lossy(&bytes).into_owned();
                        let mut seen = error_seen.lock().unwrap();
                        if seen.is_none() && text.contains("error: ") {
                            *seen = Some(Instant::now());
                        }
                        *sink.lock().unwrap() = text;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        });
        Party {
            child,
            stderr,
            error_at,
            reader: Some(reader),
        }
    }

    /// What it wrote on stderr so far.
    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// All it wrote on stderr, once it has exited.
    fn final_stderr(&mut self) -> String {
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        self.stderr()
    }

    /// Waits until stderr contains `what`; false if the process exits or `SETUP` passes.
    fn wait_for(&mut self, what: &str) -> bool {
        let until = Instant::now() + SETUP;
        while Instant::now() < until {
            if self.stderr().contains(what) {
                return true;
            }
            if let Ok(Some(_)) = self.child.try_wait() {
                return self.stderr().contains(what);
            }
            thread::sleep(Duration::from_millis(5));
        }
        false
    }

    /// When it exited and its exit code (`None`: by a signal), if it did before `until`.
    fn exit_before(&mut self, until: Instant) -> Option<(Instant, Option<i32>)> {
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some((Instant::now(), status.code()));
            }
            if Instant::now() >= until {
                return None;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    fn signal(&mut self, signal: Signal) {
        self.send(match signal {
            Signal::Kill => libc::SIGKILL,
            Signal::Stop => libc::SIGSTOP,
        });
    }

    fn send(&self, signal: libc::c_int) {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: a plain system call on our own child, which is not reaped yet.
        unsafe { libc::kill(pid, signal) };
    }
}

impl Drop for Party {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.send(libc::SIGCONT);
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// The proxy between the parties; see the module docs.
struct Proxy {
    /// Bytes passed from the garbler to the evaluator.
    tables: Arc<AtomicU64>,
    /// Bytes read from the evaluator (passed on, or held).
    requests: Arc<AtomicU64>,
    /// When the last bytes from the garbler and from the evaluator passed.
    last: [Arc<Mutex<Option<Instant>>>; 2],
    /// When both parties were connected.
    connected: Arc<Mutex<Option<Instant>>>,
    /// Whether the proxy listens for the evaluator: `None` not yet, `Some(false)` never
    /// (the garbler was not there, or the port was taken meanwhile).
    listening: Arc<Mutex<Option<bool>>>,
    /// Set once a victim is signalled: from then on bytes pass at full speed, so what the
    /// throttle held back (in the survivor's socket buffers) arrives at once and the
    /// survivor's wait on the victim starts at the signal, as on a direct connection.
    unthrottled: Arc<AtomicBool>,
}

impl Proxy {
    /// Connects to the garbler listening on `garbler_port`, then takes the evaluator's
    /// connection on `evaluator_port` (the evaluator retries until the proxy listens, so
    /// neither party waits on the other long enough to time out however slowly they start).
    fn start(garbler_port: u16, evaluator_port: u16, pace: Pace) -> Proxy {
        let tables = Arc::new(AtomicU64::new(0));
        let requests = Arc::new(AtomicU64::new(0));
        let connected = Arc::new(Mutex::new(None));
        let unthrottled = Arc::new(AtomicBool::new(false));
        let (count, at, full) = (tables.clone(), connected.clone(), unthrottled.clone());
        let asked = requests.clone();
        let listening = Arc::new(Mutex::new(None));
        let listens = listening.clone();
        let last = [Arc::new(Mutex::new(None)), Arc::new(Mutex::new(None))];
        let (from_g, from_e) = (last[0].clone(), last[1].clone());
        // Only the evaluator's direction is held.
        let (to_evaluator, to_garbler) = match pace {
            Pace::Hold => (Pace::Full, Pace::Hold),
            pace => (pace, pace),
        };
        thread::spawn(move || {
            let connected = TcpStream::connect(("127.0.0.1", garbler_port))
                .and_then(|g| Ok((g, TcpListener::bind(("127.0.0.1", evaluator_port))?)));
            *listens.lock().unwrap() = Some(connected.is_ok());
            let Ok((g, listener)) = connected else {
                return;
            };
            let Ok((e, _)) = listener.accept() else {
                return;
            };
            small_buffers(&g);
            small_buffers(&e);
            *at.lock().unwrap() = Some(Instant::now());
            let (g2, e2) = (g.try_clone().unwrap(), e.try_clone().unwrap());
            let full2 = full.clone();
            thread::spawn(move || pump(g2, e2, to_evaluator, &full2, &count, &from_g));
            pump(e, g, to_garbler, &full, &asked, &from_e);
        });
        Proxy {
            tables,
            requests,
            last,
            listening,
            connected,
            unthrottled,
        }
    }

    /// Waits until the proxy listens for the evaluator; false if it never will.
    fn wait_listening(&self) -> bool {
        let until = Instant::now() + SETUP;
        while Instant::now() < until {
            if let Some(listening) = *self.listening.lock().unwrap() {
                return listening;
            }
            thread::sleep(Duration::from_millis(1));
        }
        false
    }

    /// Waits until the run is under way as `sign` tells; false if either party exits first.
    fn wait_under_way(&self, sign: UnderWay, mut parties: [&mut Party; 2]) -> bool {
        let until = Instant::now() + SETUP;
        while Instant::now() < until {
            if parties
                .iter_mut()
                .any(|p| !matches!(p.child.try_wait(), Ok(None)))
            {
                return false;
            }
            let under_way = match sign {
                UnderWay::TablesFlow => self.tables.load(Ordering::Relaxed) >= UNDER_WAY,
                UnderWay::RequestHeld => self.requests.load(Ordering::Relaxed) > 0,
            };
            if under_way {
                return true;
            }
            thread::sleep(Duration::from_millis(5));
        }
        false
    }
}

/// Keeps the proxy's socket buffers small: a stopped victim then blocks the proxy, and
/// through it the survivor, within a fraction of a second even at a throttled pace
/// (large buffers would absorb seconds of a throttled stream, which a direct connection
/// on loopback never does).
fn small_buffers(socket: &TcpStream) {
    use std::os::fd::AsRawFd;
    let size: libc::c_int = 64 << 10;
    for option in [libc::SO_SNDBUF, libc::SO_RCVBUF] {
        // SAFETY: `size` outlives the call, which reads exactly its size.
        unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_SOCKET,
                option,
                (&size as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
    }
}

/// Copies `from` to `to` at `pace`; when either end goes, both are shut, so the other
/// party sees the close at once.
fn pump(
    mut from: TcpStream,
    mut to: TcpStream,
    pace: Pace,
    full: &AtomicBool,
    count: &AtomicU64,
    last: &Mutex<Option<Instant>>,
) {
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let want = match pace {
            Pace::Drip(_) => 1,
            _ => buf.len(),
        };
        let n = match from.read(&mut buf[..want]) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        count.fetch_add(n as u64, Ordering::Relaxed);
        if let Pace::Hold = pace {
            while !full.load(Ordering::Relaxed) {
                thread::sleep(Duration::from_millis(1));
            }
        }
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
        *last.lock().unwrap() = Some(Instant::now());
        match pace {
            _ if full.load(Ordering::Relaxed) => {}
            Pace::Full | Pace::Hold => {}
            Pace::Rate(rate) => thread::sleep(Duration::from_secs_f64(n as f64 / rate as f64)),
            Pace::Drip(period) => thread::sleep(period),
        }
    }
    let _ = from.shutdown(Shutdown::Both);
    let _ = to.shutdown(Shutdown::Both);
}

/// One two-process path: each party's arguments (without role, address and timeout).
struct Path {
    name: &'static str,
    garbler: Vec<String>,
    evaluator: Vec<String>,
    pace: Pace,
    under_way: UnderWay,
    /// For `online`: the circuit each case preprocesses first, into the states
    /// `{dir}/online-{role}-{case}.state` its arguments name.
    preprocess: Option<String>,
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

/// Both parties started and connected through a proxy: the evaluator first (it retries its
/// connect), the garbler once the evaluator is about to connect.
///
/// `{dir}` and `{case}` in the arguments become a scratch folder and `case`'s name.
fn start(path: &Path, case: &str, extra: &[&str]) -> Result<(Party, Party, Proxy), String> {
    let (g_port, e_port) = (free_port(), free_port());
    let timeout = TIMEOUT.to_string();
    let dir = scratch_dir();
    let dir = dir.to_str().unwrap().to_string();
    let with = |args: &[String], role: Role, addr: [&str; 2]| -> Vec<String> {
        let mut v: Vec<String> = args
            .iter()
            .map(|a| a.replace("{dir}", &dir).replace("{case}", case))
            .collect();
        v.extend(["--role", role.name(), addr[0], addr[1], "--timeout", &timeout].map(String::from));
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let e_addr = format!("127.0.0.1:{e_port}");
    let g_addr = format!("127.0.0.1:{g_port}");
    let mut evaluator = Party::spawn(&with(&path.evaluator, Role::Evaluator, ["--connect", &e_addr]));
    // Printed just before it dials. It is held while the garbler starts (on a loaded machine
    // that can outlast its connect retries), and resumed once the proxy listens.
    if !evaluator.wait_for("plain TCP") {
        return Err(format!("the evaluator did not start: {}", evaluator.stderr()));
    }
    evaluator.send(libc::SIGSTOP);
    let mut garbler = Party::spawn(&with(&path.garbler, Role::Garbler, ["--listen", &g_addr]));
    if !garbler.wait_for("listening on") {
        return Err(format!("the garbler did not start: {}", garbler.stderr()));
    }
    let proxy = Proxy::start(g_port, e_port, path.pace);
    let listening = proxy.wait_listening();
    evaluator.send(libc::SIGCONT);
    if !listening {
        return Err(format!("the proxy could not start: garbler {}", garbler.stderr()));
    }
    Ok((garbler, evaluator, proxy))
}

/// The folder of this test run's scratch files (created if need be).
fn scratch_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mixgc-cli-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create the scratch folder");
    dir
}

/// Runs `mixgc preprocess` on `circuit` for `case`, directly between the two parties (no
/// proxy), leaving the states `online` reads: `{dir}/online-{role}-{case}.state`.
fn preprocess_states(circuit: &str, case: &str) -> Result<(), String> {
    let addr = format!("127.0.0.1:{}", free_port());
    let party = |role: Role, endpoint: &str| {
        let state = scratch_dir().join(format!("online-{}-{case}.state", role.name()));
        let args = [
            "preprocess",
            "--circuit",
            circuit,
            "--role",
            role.name(),
            endpoint,
            &addr,
            "--state",
            state.to_str().unwrap(),
            // Generous: this is setup, not a case (the machine may be loaded).
            "--timeout",
            "60",
        ];
        Command::new(BIN)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mixgc preprocess")
    };
    let garbler = party(Role::Garbler, "--listen");
    let evaluator = party(Role::Evaluator, "--connect");
    for (child, role) in [(garbler, Role::Garbler), (evaluator, Role::Evaluator)] {
        let out = child.wait_with_output().expect("wait for mixgc preprocess");
        if !out.status.success() {
            return Err(format!(
                "preprocessing failed at the {}: {}",
                role.name(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    Ok(())
}

/// One case: `victim` gets `signal` mid-run; the other must be gone within [`BOUND`], with
/// a message in words. `Err` describes what went wrong.
fn case(path: &Path, victim: Role, signal: Signal) -> Result<(), String> {
    let what = format!("{}: {} {:?}", path.name, victim.name(), signal);
    let name = format!("{}-{:?}", victim.name(), signal);
    let mut attempt = 1;
    loop {
        let result = signalled_case(path, victim, signal, &what, &name);
        // Scratch files a case's arguments name (the preprocessed states).
        for role in ["garbler", "evaluator"] {
            let dir = scratch_dir();
            for state in ["prep", "online"] {
                let _ = std::fs::remove_file(dir.join(format!("{state}-{role}-{name}.state")));
            }
        }
        match result {
            Ok(()) => return Ok(()),
            Err(CaseError::Failed(e)) => return Err(e),
            Err(CaseError::Setup(e)) if attempt == SETUP_ATTEMPTS => return Err(e),
            Err(CaseError::Setup(e)) => {
                eprintln!("{what}: setting the case up failed, once more: {e}");
                attempt += 1;
            }
        }
    }
}

/// Tries at setting a case up: on a loaded machine a slow start can outlast the
/// evaluator's connect retries or the garbler's wait for its peer, before any signal.
const SETUP_ATTEMPTS: usize = 3;

/// Why a case did not pass.
enum CaseError {
    /// It never got to the signal (the parties did not start or connect in time).
    Setup(String),
    /// What the case checks did not hold.
    Failed(String),
}

impl From<String> for CaseError {
    fn from(e: String) -> CaseError {
        CaseError::Failed(e)
    }
}

fn signalled_case(
    path: &Path,
    victim: Role,
    signal: Signal,
    what: &str,
    name: &str,
) -> Result<(), CaseError> {
    let setup = |e: String| CaseError::Setup(format!("{what}: {e}"));
    if let Some(circuit) = &path.preprocess {
        preprocess_states(circuit, name).map_err(setup)?;
    }
    let (mut garbler, mut evaluator, proxy) = start(path, name, &[]).map_err(setup)?;
    if !proxy.wait_under_way(path.under_way, [&mut garbler, &mut evaluator]) {
        return Err(setup(format!(
            "the run never got under way: garbler {}; evaluator {}",
            garbler.stderr(),
            evaluator.stderr()
        )));
    }
    let (victim, survivor) = match victim {
        Role::Garbler => (&mut garbler, &mut evaluator),
        Role::Evaluator => (&mut evaluator, &mut garbler),
    };
    victim.signal(signal);
    let signalled = Instant::now();
    proxy.unthrottled.store(true, Ordering::Relaxed);
    let exit = survivor.exit_before(signalled + BOUND + Duration::from_secs(10));
    let Some((at, code)) = exit else {
        let stderr = survivor.stderr();
        return Err(format!("{what}: the survivor still ran 10 s past the bound: {stderr}").into());
    };
    let stderr = survivor.final_stderr();
    let took = at - signalled;
    let message = stderr.lines().find(|l| l.starts_with("error: ")).unwrap_or("");
    let expected: &[&str] = match signal {
        // A killed process closes its sockets only once the kernel has ended its pending
        // system call (a disk write) and freed its memory: a survivor may see a stall first.
        Signal::Kill if message.contains("the peer stopped ") => &[" during ", "(timeout)"],
        Signal::Kill => &["the peer closed the connection"],
        // Stopped: it stopped sending, or stopped reading what this side sends.
        Signal::Stop => &["the peer stopped ", " during ", "(timeout)"],
    };
    // Where the time went: until the last bytes each way passed the proxy (the survivor's
    // wait on its peer starts there), and until the error line (printed once the session
    // is torn down; the exit follows).
    let since = |t: Option<Instant>| {
        t.map_or("-".to_string(), |t| {
            format!("{:?}", t.saturating_duration_since(signalled))
        })
    };
    let breakdown = format!(
        "last bytes from the garbler at +{}, from the evaluator at +{}, error line at +{}",
        since(*proxy.last[0].lock().unwrap()),
        since(*proxy.last[1].lock().unwrap()),
        since(*survivor.error_at.lock().unwrap())
    );
    let mut wrong = Vec::new();
    if took > BOUND {
        wrong.push(format!(
            "ended {took:?} after the signal, over the {BOUND:?} bound"
        ));
    }
    if code.is_none() || code == Some(0) {
        wrong.push(format!("exit code {code:?}"));
    }
    if let Some(missing) = expected.iter().find(|n| !message.contains(*n)) {
        wrong.push(format!("the message lacks {missing:?}"));
    }
    let found = internals(&stderr);
    if !found.is_empty() {
        wrong.push(format!("Rust internals {found:?}"));
    }
    if wrong.is_empty() {
        eprintln!("{what}: the survivor ended {took:?} after the signal ({breakdown}): {message}");
        Ok(())
    } else {
        Err(format!(
            "{what}: {}; exit code {code:?} after {took:?} ({breakdown}); stderr: {stderr:?}",
            wrong.join("; ")
        )
        .into())
    }
}

/// One path at a time: the survivors' bound is measured in wall time, and on a shared
/// 2-core machine many concurrent runs would stretch it with CPU the parties do not get.
static ONE_PATH: Mutex<()> = Mutex::new(());

/// The four cases of `path` (each party stopped and killed), two at a time (one stopped
/// victim in each pair), the paths one after another.
fn all_cases(path: Path) {
    let _one = ONE_PATH.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let path = Arc::new(path);
    let pairs = [
        [(Role::Evaluator, Signal::Stop), (Role::Garbler, Signal::Kill)],
        [(Role::Garbler, Signal::Stop), (Role::Evaluator, Signal::Kill)],
    ];
    let mut failed = Vec::new();
    for pair in pairs {
        let runs: Vec<_> = pair
            .into_iter()
            .map(|(victim, signal)| {
                let path = path.clone();
                thread::spawn(move || case(&path, victim, signal))
            })
            .collect();
        failed.extend(
            runs.into_iter()
                .filter_map(|r| r.join().expect("a case panicked").err()),
        );
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// A 100-fold AES chain (640,000 ANDs, 19.5 MiB of tables) as a Bristol file and as a
/// compiled stream.
fn chain_files(test: &str) -> (TempFile, TempFile) {
    let bristol = TempFile::new(&format!("{test}-chain.txt"), b"");
    let stream = TempFile::new(&format!("{test}-chain.mgc"), b"");
    let ok = |args: &[&str]| {
        let out = Command::new(BIN).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
    };
    ok(&["export", "aes-chain", "--size", "100", "--out", bristol.path()]);
    ok(&["compile", bristol.path(), "--out", stream.path()]);
    (bristol, stream)
}

/// 19.5 MiB of tables at 2 MiB/s: about 10 s unless interrupted.
const CIRCUIT_PACE: Pace = Pace::Rate(2 << 20);

#[test]
fn run_on_a_bristol_circuit_ends_within_the_timeout() {
    let (bristol, _) = chain_files("bristol");
    let args = words(&format!("run --circuit {} --input 00", bristol.path()));
    all_cases(Path {
        name: "run (Bristol)",
        garbler: args.clone(),
        evaluator: args,
        pace: CIRCUIT_PACE,
        under_way: UnderWay::TablesFlow,
        preprocess: None,
    });
}

#[test]
fn run_on_a_compiled_stream_ends_within_the_timeout() {
    let (_, stream) = chain_files("stream");
    let args = words(&format!("run --circuit {} --input 00", stream.path()));
    all_cases(Path {
        name: "run (compiled stream)",
        garbler: args.clone(),
        evaluator: args,
        pace: CIRCUIT_PACE,
        under_way: UnderWay::TablesFlow,
        preprocess: None,
    });
}

#[test]
fn preprocess_ends_within_the_timeout() {
    let (bristol, _) = chain_files("prep");
    let args = |role: &str| {
        words(&format!(
            "preprocess --circuit {} --state {{dir}}/prep-{role}-{{case}}.state",
            bristol.path()
        ))
    };
    all_cases(Path {
        name: "preprocess",
        garbler: args("garbler"),
        evaluator: args("evaluator"),
        pace: CIRCUIT_PACE,
        under_way: UnderWay::TablesFlow,
        preprocess: None,
    });
}

/// `online` after `preprocess`: the proxy holds the evaluator's request until the victim is
/// signalled, so the garbler is stopped or killed before it answers (the evaluator waits for
/// the release key) and the evaluator before the garbler's answer reaches it (the garbler,
/// its labels sent, waits for the outputs; a stopped evaluator's wait starts when the
/// request arrives, at the signal, so its margin is the garbler's exit alone).
#[test]
fn online_ends_within_the_timeout() {
    let (bristol, _) = chain_files("online");
    let args = |role: &str| {
        let mut v = words(&format!(
            "online --state {{dir}}/online-{role}-{{case}}.state --input 00"
        ));
        if role == "evaluator" {
            v.extend(["--circuit".to_string(), bristol.path().to_string()]);
        }
        v
    };
    all_cases(Path {
        name: "online",
        garbler: args("garbler"),
        evaluator: args("evaluator"),
        pace: Pace::Hold,
        under_way: UnderWay::RequestHeld,
        preprocess: Some(bristol.path().to_string()),
    });
}

#[test]
fn a_boolean_program_ends_within_the_timeout() {
    // 128 M ANDs: far longer than any case lasts.
    let args = words("example aes-chain --size 20000 --input 00");
    all_cases(Path {
        name: "example aes-chain",
        garbler: args.clone(),
        evaluator: args,
        pace: Pace::Full,
        under_way: UnderWay::TablesFlow,
        preprocess: None,
    });
}

#[test]
fn a_crt_program_ends_within_the_timeout() {
    // LeNet's convolution on CRT values (arithmetic rows): 300 MiB of tables.
    let args = words("lenet --realization pure-arithmetic --width 16 --input 28 --filters 8 --seed 1");
    all_cases(Path {
        name: "lenet --role (CRT)",
        garbler: args.clone(),
        evaluator: args,
        pace: Pace::Full,
        under_way: UnderWay::TablesFlow,
        preprocess: None,
    });
}

#[test]
fn private_inference_ends_within_the_timeout() {
    // LeNet-5 in CRT arithmetic (`mixgc infer`, about 115 MiB of tables): the garbler's
    // weights against the evaluator's image, either party stopped or killed mid-run.
    let models = format!("{}/../../models", env!("CARGO_MANIFEST_DIR"));
    let npy = std::fs::read(format!("{models}/mnist_test_100.npy")).unwrap();
    let pixels = &npy[npy.len() - 100 * 784..][..784];
    let mut image = b"\x93NUMPY\x01\x00".to_vec();
    let header = "{'descr': '|u1', 'fortran_order': False, 'shape': (784,), }\n";
    image.extend((header.len() as u16).to_le_bytes());
    image.extend(header.as_bytes());
    image.extend(pixels);
    let image = TempFile::new("failures-infer.npy", &image);
    let arch = format!("--arch {models}/lenet5.arch.json --realization mixed");
    all_cases(Path {
        name: "infer",
        garbler: words(&format!("infer {arch} --weights {models}/lenet5.weights.json")),
        evaluator: words(&format!("infer {arch} --image {}", image.path())),
        pace: Pace::Full,
        under_way: UnderWay::TablesFlow,
        preprocess: None,
    });
}

/// A peer that sends a byte every half timeout is never silent for a whole one: the
/// deadline ends the session, on both sides.
#[test]
fn a_dripping_peer_is_ended_by_the_deadline() {
    let (_, stream) = chain_files("drip");
    let args = words(&format!("run --circuit {} --input 00", stream.path()));
    let path = Path {
        name: "dripping",
        garbler: args.clone(),
        evaluator: args,
        pace: Pace::Drip(Duration::from_secs(TIMEOUT) / 2),
        under_way: UnderWay::TablesFlow,
        preprocess: None,
    };
    let deadline = Duration::from_secs(4);
    let (mut garbler, mut evaluator, proxy) = start(&path, "drip", &["--deadline", "4"]).unwrap();
    let connected = {
        let until = Instant::now() + SETUP;
        loop {
            if let Some(at) = *proxy.connected.lock().unwrap() {
                break at;
            }
            assert!(Instant::now() < until, "the parties never connected");
            thread::sleep(Duration::from_millis(5));
        }
    };
    for (party, name) in [(&mut garbler, "garbler"), (&mut evaluator, "evaluator")] {
        let exit = party.exit_before(connected + deadline + Duration::from_secs(10));
        let (at, code) =
            exit.unwrap_or_else(|| panic!("{name} outlived its deadline by 10 s: {}", party.stderr()));
        let stderr = party.final_stderr();
        let took = at - connected;
        assert!(
            took <= deadline + Duration::from_secs(2),
            "{name} ended {took:?} after connecting: {stderr}"
        );
        assert!(
            code.is_some_and(|c| c != 0),
            "{name}: exit code {code:?}: {stderr}"
        );
        assert!(stderr.contains("deadline of 4 s"), "{name}: {stderr}");
    }
}

/// With three parties or more a stalled party is reported after the timeout plus a grace
/// of a quarter of it, at most 0.5 s (`crates/nparty/src/mesh.rs`, `grace`: the first party
/// to time out tells the others at once, then waits that long for the silent party's own
/// reason); the survivors of `mixgc party` must be gone within `--timeout` plus that grace
/// plus 1 s (the bound was `--timeout` plus 1 s, 0.5 s over the waits: too little on a
/// loaded CI machine).
const NPARTY_BOUND: Duration = Duration::from_millis(TIMEOUT * 1000 + 500 + 1000);

/// `mixgc party` among three processes (`--example auction`, 400 ms emulated round trips so
/// the run lasts seconds): party 1 stopped or killed mid-run; parties 0 and 2 must exit
/// non-zero within [`NPARTY_BOUND`], naming party 1, in words.
fn nparty_case(signal: Signal) -> Result<(), String> {
    let what = format!("party (3 processes): party 1 {signal:?}");
    let addrs: Vec<String> = (0..3).map(|_| format!("127.0.0.1:{}", free_port())).collect();
    let addrs = addrs.join(",");
    let mut parties: Vec<Party> = (0..3)
        .map(|i| {
            Party::spawn(&words(&format!(
                "party --id {i} --parties {addrs} --example auction --bits 16 --rtt-ms 400 \
                 --input {i:04x} --timeout {TIMEOUT} --progress plain"
            )))
        })
        .collect();
    // Printed once the mesh is joined and the joint garbling starts.
    for (i, party) in parties.iter_mut().enumerate() {
        if !party.wait_for("garbling and evaluating") {
            return Err(format!(
                "{what}: party {i} never got under way: {}",
                party.stderr()
            ));
        }
    }
    thread::sleep(Duration::from_millis(300));
    parties[1].signal(signal);
    let signalled = Instant::now();
    let mut wrong = Vec::new();
    for i in [0, 2] {
        let party = &mut parties[i];
        let Some((at, code)) = party.exit_before(signalled + NPARTY_BOUND + Duration::from_secs(10)) else {
            wrong.push(format!(
                "party {i} still ran 10 s past the bound: {}",
                party.stderr()
            ));
            continue;
        };
        let stderr = party.final_stderr();
        let took = at - signalled;
        let message = stderr.lines().find(|l| l.starts_with("error: ")).unwrap_or("");
        let mut bad = Vec::new();
        if took > NPARTY_BOUND {
            bad.push(format!("ended {took:?} after the signal, over {NPARTY_BOUND:?}"));
        }
        if code.is_none() || code == Some(0) {
            bad.push(format!("exit code {code:?}"));
        }
        if !message.contains("party 1") {
            bad.push("the message does not name party 1".to_string());
        }
        let found = internals(&stderr);
        if !found.is_empty() {
            bad.push(format!("Rust internals {found:?}"));
        }
        if bad.is_empty() {
            eprintln!("{what}: party {i} ended {took:?} after the signal: {message}");
        } else {
            wrong.push(format!("party {i}: {}; stderr: {stderr:?}", bad.join("; ")));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("{what}: {}", wrong.join("\n")))
    }
}

#[test]
fn a_stopped_or_killed_party_of_three_ends_the_others_within_the_bound() {
    let _one = ONE_PATH.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let failed: Vec<String> = [Signal::Stop, Signal::Kill]
        .into_iter()
        .filter_map(|signal| nparty_case(signal).err())
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}
