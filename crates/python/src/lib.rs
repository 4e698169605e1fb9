//! `mixgc` for Python (issue #22, item 3): two-party garbled-circuit runs, the cost counter
//! and the planner. The Rust crates stay the source of truth: this layer converts Python
//! values (ints, lists, NumPy integer arrays) to theirs and calls them, the GIL released
//! while they work. The API is documented in `mixgc.pyi` and docs/python.md.

mod errors;
mod inference;
mod party;
mod planning;
mod progress;
mod values;

use std::path::PathBuf;

use mixgc_session::Audience;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use errors::input_error;
use party::{CircuitRun, OpRun, OutputForm, Peer, RunResult};

/// Runs one party of a Bristol circuit (or a stream compiled by `mixgc compile`) with the
/// peer over TCP or TLS; see `mixgc.pyi`.
#[pyfunction]
#[pyo3(signature = (
    circuit, role, inputs = None, *, listen = None, connect = None, timeout = 30,
    reveal = "both", garbler_values = None, executions = None, numpy = None, signed = false,
    progress = None, cert = None, key = None, peer_fingerprint = None, peer_ca = None
))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    circuit: PathBuf,
    role: &str,
    inputs: Option<&Bound<'_, PyAny>>,
    listen: Option<String>,
    connect: Option<String>,
    timeout: u64,
    reveal: &str,
    garbler_values: Option<usize>,
    executions: Option<usize>,
    numpy: Option<bool>,
    signed: bool,
    progress: Option<Py<PyAny>>,
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
    peer_fingerprint: Option<String>,
    peer_ca: Option<PathBuf>,
) -> PyResult<RunResult> {
    let role = party::role(role)?;
    let reveal: Audience = reveal
        .parse()
        .map_err(|e: String| input_error(format!("reveal: {e}")))?;
    let given = values::given(inputs, false)?;
    let peer = Peer {
        listen,
        connect,
        timeout,
        cert,
        key,
        peer_fingerprint,
        peer_ca,
    };
    let args = CircuitRun {
        circuit,
        role,
        reveal,
        garbler_values,
        executions,
    };
    party::run_circuit(py, args, given, &peer, &OutputForm { numpy, signed }, progress)
}

/// Runs one party of a library op (`mixgc ops` lists them) gate by gate; see `mixgc.pyi`.
#[pyfunction]
#[pyo3(signature = (
    name, role, inputs = None, *, width = None, size = None, listen = None, connect = None,
    timeout = 30, numpy = None, signed = false, progress = None, cert = None, key = None,
    peer_fingerprint = None, peer_ca = None
))]
#[allow(clippy::too_many_arguments)]
fn run_op(
    py: Python<'_>,
    name: String,
    role: &str,
    inputs: Option<&Bound<'_, PyAny>>,
    width: Option<u32>,
    size: Option<usize>,
    listen: Option<String>,
    connect: Option<String>,
    timeout: u64,
    numpy: Option<bool>,
    signed: bool,
    progress: Option<Py<PyAny>>,
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
    peer_fingerprint: Option<String>,
    peer_ca: Option<PathBuf>,
) -> PyResult<RunResult> {
    let role = party::role(role)?;
    let given = values::given(inputs, true)?;
    let peer = Peer {
        listen,
        connect,
        timeout,
        cert,
        key,
        peer_fingerprint,
        peer_ca,
    };
    let args = OpRun {
        name,
        role,
        width,
        size,
    };
    party::run_op(py, args, given, &peer, &OutputForm { numpy, signed }, progress)
}

/// Runs one party of private CNN inference (`mixgc infer`): the garbler (server) with
/// `weights`, the evaluator (client) with `image`; the evaluator learns the class (or the
/// logits); see `mixgc.pyi`.
#[pyfunction]
#[pyo3(signature = (
    arch, role, *, image = None, weights = None, listen = None, connect = None, timeout = 30,
    logits = false, realization = "planned", progress = None, cert = None, key = None,
    peer_fingerprint = None, peer_ca = None
))]
#[allow(clippy::too_many_arguments)]
fn infer<'py>(
    py: Python<'py>,
    arch: PathBuf,
    role: &str,
    image: Option<Bound<'py, PyAny>>,
    weights: Option<Bound<'py, PyAny>>,
    listen: Option<String>,
    connect: Option<String>,
    timeout: u64,
    logits: bool,
    realization: &str,
    progress: Option<Py<PyAny>>,
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
    peer_fingerprint: Option<String>,
    peer_ca: Option<PathBuf>,
) -> PyResult<inference::InferResult> {
    let peer = Peer {
        listen,
        connect,
        timeout,
        cert,
        key,
        peer_fingerprint,
        peer_ca,
    };
    let args = inference::InferRun {
        arch,
        role: party::role(role)?,
        image,
        weights,
        logits,
        realization: realization.to_string(),
    };
    inference::infer(py, args, &peer, progress)
}

/// The library ops: a list of dicts with name, about, default_width, default_size.
#[pyfunction]
fn ops(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    planning::ops(py)
}

/// The cost of a library op on the cost counter, or a Bristol circuit's gate counts.
#[pyfunction]
#[pyo3(signature = (op = None, *, circuit = None, width = None, size = None))]
fn cost<'py>(
    py: Python<'py>,
    op: Option<&str>,
    circuit: Option<PathBuf>,
    width: Option<u32>,
    size: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    match (op, circuit) {
        (Some(name), None) => planning::op_cost(py, name, width, size),
        (None, Some(path)) if width.is_none() && size.is_none() => planning::circuit_cost(py, path),
        (None, Some(_)) => Err(input_error(
            "width and size are for a library op; a circuit's widths are in the file",
        )),
        _ => Err(input_error(
            "give a library op name (cost('aes128')) or circuit=PATH, one of the two",
        )),
    }
}

/// The planner (`mixgc plan --json`) as a dict.
#[pyfunction]
#[pyo3(signature = (
    program = "clipdot", *, width = 16, size = None, objective = "stream", check = false,
    reps = 3, progress = None
))]
#[allow(clippy::too_many_arguments)]
fn plan<'py>(
    py: Python<'py>,
    program: &str,
    width: u32,
    size: Option<usize>,
    objective: &str,
    check: bool,
    reps: u16,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let args = planning::PlanArgs {
        program,
        width,
        size,
        objective,
        check,
        reps,
    };
    planning::plan(py, args, progress)
}

/// The `mixgc` Python module.
#[pymodule]
#[pyo3(name = "mixgc")]
fn mixgc_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MixgcError", py.get_type::<errors::MixgcError>())?;
    m.add("InputError", py.get_type::<errors::InputError>())?;
    m.add("PeerError", py.get_type::<errors::PeerError>())?;
    m.add_class::<RunResult>()?;
    m.add_class::<inference::InferResult>()?;
    m.add_function(wrap_pyfunction!(infer, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(run_op, m)?)?;
    m.add_function(wrap_pyfunction!(ops, m)?)?;
    m.add_function(wrap_pyfunction!(cost, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    Ok(())
}
