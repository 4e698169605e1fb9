//! One party of a two-party run over TCP or TLS: a Bristol circuit or compiled stream (as
//! `mixgc run` does it) or a library op (as `mixgc example` does), the GIL released from
//! connecting to the last byte.

use std::path::PathBuf;
use std::sync::Arc;

use mixgc_compile::Runnable;
use mixgc_core::HashKind;
use mixgc_session::{run_party_batch, Audience, Command, PartyId, PartyReport, Scheme, Terms};
use mixgc_studies::common::{
    owned_values, CliError, Connection, LibraryRun, Security, SessionOptions, MAX_TIMEOUT_SECS,
};
use num_bigint::BigInt;
use pyo3::prelude::*;

use crate::errors::{input_error, to_py, Stage};
use crate::progress::{self, Callback};
use crate::values::{self, Given};

/// Most executions of one circuit run (as `mixgc run --executions`).
pub const MAX_EXECUTIONS: usize = 1 << 20;

/// The peer and session settings shared by `run` and `run_op`.
pub struct Peer {
    pub listen: Option<String>,
    pub connect: Option<String>,
    pub timeout: u64,
    pub cert: Option<PathBuf>,
    pub key: Option<PathBuf>,
    pub peer_fingerprint: Option<String>,
    pub peer_ca: Option<PathBuf>,
}

impl Peer {
    /// The CLI's connection flags and session options for these settings, checked.
    pub fn options(&self) -> PyResult<(Connection, SessionOptions)> {
        if self.listen.is_some() == self.connect.is_some() {
            return Err(input_error(
                "give exactly one of listen=ADDR (wait for the peer) and connect=ADDR",
            ));
        }
        if !(1..=MAX_TIMEOUT_SECS).contains(&self.timeout) {
            return Err(input_error(format!(
                "timeout: expected whole seconds from 1 to {MAX_TIMEOUT_SECS}, got {}",
                self.timeout
            )));
        }
        let tls = [
            self.cert.is_some(),
            self.key.is_some(),
            self.peer_fingerprint.is_some() || self.peer_ca.is_some(),
        ];
        if tls.iter().any(|&b| b) && !tls.iter().all(|&b| b) {
            return Err(input_error(
                "TLS needs cert=FILE, key=FILE and peer_fingerprint=HEX or peer_ca=FILE together",
            ));
        }
        if self.peer_fingerprint.is_some() && self.peer_ca.is_some() {
            return Err(input_error("give peer_fingerprint or peer_ca, not both"));
        }
        let peer_fingerprint = self
            .peer_fingerprint
            .as_deref()
            .map(mixgc_net::parse_fingerprint)
            .transpose()
            .map_err(|e| input_error(format!("peer_fingerprint: {e}")))?;
        let connection = Connection {
            listen: self.listen.clone(),
            connect: self.connect.clone(),
            security: Security {
                cert: self.cert.clone(),
                key: self.key.clone(),
                peer_fingerprint,
                peer_ca: self.peer_ca.clone(),
                insecure_plaintext: false,
            },
            quiet: true,
        };
        let session = SessionOptions {
            timeout: self.timeout,
            hash: HashKind::default(),
            garbling: Scheme::HalfGates,
            batch_bytes: 1 << 20,
            single_threaded: false,
            deadline: mixgc_studies::common::MAX_DEADLINE_SECS,
            threads: 1,
            insecure_seed: None,
        };
        Ok((connection, session))
    }
}

/// `"garbler"` or `"evaluator"` as the party.
pub fn role(name: &str) -> PyResult<PartyId> {
    match name {
        "garbler" => Ok(PartyId::GARBLER),
        "evaluator" => Ok(PartyId::EVALUATOR),
        other => Err(input_error(format!(
            "role: expected 'garbler' or 'evaluator', got '{other}'"
        ))),
    }
}

/// What a run returns to Python.
#[pyclass(module = "mixgc", frozen, get_all)]
pub struct RunResult {
    /// The output values this party learned (list of ints or NumPy array), or None.
    pub outputs: Py<PyAny>,
    /// "garbler" or "evaluator".
    pub role: String,
    /// AND gates garbled or evaluated.
    pub ands: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// Wall time of the run from connecting, in seconds.
    pub seconds: f64,
    /// Of which the base OTs.
    pub base_ot_seconds: f64,
}

#[pymethods]
impl RunResult {
    fn __repr__(&self) -> String {
        format!(
            "RunResult(role='{}', ands={}, bytes_sent={}, bytes_received={}, seconds={:.4})",
            self.role, self.ands, self.bytes_sent, self.bytes_received, self.seconds
        )
    }
}

/// How outputs are returned.
pub struct OutputForm {
    /// NumPy array (`Some(true)`), lists (`Some(false)`), or as the inputs came (`None`).
    pub numpy: Option<bool>,
    /// Values read as two's complement.
    pub signed: bool,
}

/// Converts a party's report (and, for a batch, every execution's outputs) for Python.
fn result(
    py: Python<'_>,
    report: &PartyReport,
    executions: Option<Vec<Vec<Vec<bool>>>>,
    given: &Given,
    form: &OutputForm,
) -> PyResult<RunResult> {
    let numpy = form.numpy.unwrap_or(given.numpy);
    let outputs = match executions {
        Some(e) => values::outputs(py, &e, given.batched, numpy, form.signed)?.unbind(),
        None => py.None(),
    };
    Ok(RunResult {
        outputs,
        role: if report.role == PartyId::GARBLER {
            "garbler".into()
        } else {
            "evaluator".into()
        },
        ands: report.ands,
        bytes_sent: report.bytes_sent,
        bytes_received: report.bytes_received,
        seconds: report.elapsed.as_secs_f64(),
        base_ot_seconds: report.base_ot.as_secs_f64(),
    })
}

/// The groups' values as the bits of the `owned` input values (indices into `widths`),
/// each group checked for its count.
fn owned_bits(
    who: &str,
    groups: &[Vec<BigInt>],
    owned: &[usize],
    widths: &[u32],
) -> PyResult<Vec<Vec<Vec<bool>>>> {
    groups
        .iter()
        .enumerate()
        .map(|(k, group)| {
            let at = if groups.len() > 1 {
                format!("execution {}: ", k + 1)
            } else {
                String::new()
            };
            if group.len() != owned.len() {
                let w: Vec<String> = owned.iter().map(|&v| format!("{} bits", widths[v])).collect();
                return Err(input_error(format!(
                    "{at}{who} owns {} input value(s) ({}) but {} were given",
                    owned.len(),
                    if w.is_empty() { "none".into() } else { w.join(", ") },
                    group.len()
                )));
            }
            group
                .iter()
                .zip(owned)
                .enumerate()
                .map(|(j, (v, &i))| {
                    values::to_bits(v, widths[i])
                        .map_err(|e| input_error(format!("{at}input value #{}: {e}", j + 1)))
                })
                .collect()
        })
        .collect()
}

/// Raises the progress callback's exception, if it raised one, instead of `ok`.
pub fn checked<T>(ok: T, callback: Option<Arc<Callback>>) -> PyResult<T> {
    match callback.and_then(|c| c.take_raised()) {
        Some(e) => Err(e),
        None => Ok(ok),
    }
}

/// The arguments of [`run_circuit`].
pub struct CircuitRun {
    pub circuit: PathBuf,
    pub role: PartyId,
    pub reveal: Audience,
    pub garbler_values: Option<usize>,
    pub executions: Option<usize>,
}

/// `mixgc run` from Python (see `mixgc.pyi`).
pub fn run_circuit(
    py: Python<'_>,
    args: CircuitRun,
    given: Given,
    peer: &Peer,
    form: &OutputForm,
    progress: Option<Py<PyAny>>,
) -> PyResult<RunResult> {
    let (connection, session) = peer.options()?;
    let executions = match (args.executions, given.batched) {
        (Some(k), _) if !(1..=MAX_EXECUTIONS).contains(&k) => {
            return Err(input_error(format!(
                "executions: expected 1 to {MAX_EXECUTIONS}, got {k}"
            )))
        }
        (Some(k), true) if k != given.groups.len() => {
            return Err(input_error(format!(
                "executions={k} but the inputs have {} rows: give one row per execution",
                given.groups.len()
            )))
        }
        (Some(k), _) => k,
        (None, _) => given.groups.len(),
    };
    if executions > MAX_EXECUTIONS {
        return Err(input_error(format!(
            "{executions} executions: at most {MAX_EXECUTIONS}"
        )));
    }
    let mut runnable = py
        .detach(|| Runnable::open(&args.circuit, None).map_err(CliError::from))
        .map_err(|e| to_py(e, Stage::Prepare))?;
    let widths = runnable.header().input_widths().to_vec();
    let terms = Terms {
        garbler_values: args.garbler_values,
        reveal: args.reveal,
    };
    let owned = owned_values(args.role, &terms, &widths).map_err(|e| to_py(e, Stage::Prepare))?;
    let mut batch = owned_bits(&format!("the {}", args.role), &given.groups, &owned, &widths)?;
    if batch.len() == 1 && executions > 1 {
        batch = vec![batch[0].clone(); executions];
    }
    let (reporter, callback) = progress::reporter(progress);
    let role = args.role;
    let outcome = py.detach(move || -> Result<_, (CliError, Stage)> {
        let ch = session.open(&connection).map_err(|e| (e, Stage::Connect))?;
        let cfg = session.config().for_command(Command::Run).with_progress(reporter);
        runnable
            .with_stream(|stream| run_party_batch(ch, role, &cfg, stream, &terms, &batch))
            .map_err(|e| (CliError::from(e), Stage::Run))
    });
    let (report, outcomes) = match outcome {
        Ok(o) => o,
        Err((e, stage)) => return Err(checked((), callback).err().unwrap_or_else(|| to_py(e, stage))),
    };
    let learned = outcomes
        .into_iter()
        .map(|o| o.outputs)
        .collect::<Option<Vec<_>>>();
    let r = result(py, &report, learned, &given, form)?;
    checked(r, callback)
}

/// The arguments of [`run_op`].
pub struct OpRun {
    pub name: String,
    pub role: PartyId,
    pub width: Option<u32>,
    pub size: Option<usize>,
}

/// `mixgc example NAME` from Python (see `mixgc.pyi`).
pub fn run_op(
    py: Python<'_>,
    args: OpRun,
    given: Given,
    peer: &Peer,
    form: &OutputForm,
    progress: Option<Py<PyAny>>,
) -> PyResult<RunResult> {
    let (connection, session) = peer.options()?;
    // Runs the op on the cost counter: off the GIL, as large sizes take a while.
    let op = py
        .detach(|| LibraryRun::new(&args.name, args.width, args.size))
        .map_err(|e| to_py(e, Stage::Prepare))?;
    let (owned, widths) = op.owned(args.role);
    let mut inputs = owned_bits(&format!("the {}", args.role), &given.groups, &owned, &widths)?;
    let inputs = inputs.pop().unwrap_or_default();
    let (reporter, callback) = progress::reporter(progress);
    let role = args.role;
    let outcome = py.detach(move || -> Result<_, (CliError, Stage)> {
        let ch = session.open(&connection).map_err(|e| (e, Stage::Connect))?;
        let cfg = session
            .config()
            .for_command(Command::Example)
            .with_progress(reporter);
        op.run(ch, role, &cfg, inputs).map_err(|e| (e, Stage::Run))
    });
    let report = match outcome {
        Ok(r) => r,
        Err((e, stage)) => return Err(checked((), callback).err().unwrap_or_else(|| to_py(e, stage))),
    };
    let learned = report.outputs.clone().map(|o| vec![o]);
    let r = result(py, &report, learned, &given, form)?;
    checked(r, callback)
}
