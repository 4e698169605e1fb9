//! `mixgc.infer`: one party of private CNN inference (`mixgc infer`), the model and the
//! image as files or NumPy arrays, the GIL released from connecting to the last byte.

use std::path::PathBuf;

use mixgc_program::cnn::{self, Arch, LayerWeights, Realization, Reveal, Weights};
use mixgc_session::{Command, PartyId};
use mixgc_studies::common::CliError;
use mixgc_studies::infer::{load_arch, load_image, load_weights, plan_lines, program_name, run_party};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::{input_error, to_py, Stage};
use crate::party::{checked, Peer};
use crate::progress;

/// What `mixgc.infer` returns.
#[pyclass(module = "mixgc", frozen, get_all)]
pub struct InferResult {
    /// The class (evaluator only; None on the garbler).
    pub label: Option<i64>,
    /// The logits as a NumPy int64 array, when `logits=True` (evaluator only).
    pub logits: Option<Py<PyAny>>,
    /// "garbler" or "evaluator".
    pub role: String,
    /// The plan, one realization per conv/dense layer ("boolean,crt,…").
    pub plan: String,
    pub ands: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// Wall time of the run from connecting, in seconds.
    pub seconds: f64,
}

#[pymethods]
impl InferResult {
    fn __repr__(&self) -> String {
        format!(
            "InferResult(role='{}', label={:?}, plan='{}', ands={}, seconds={:.3})",
            self.role, self.label, self.plan, self.ands, self.seconds
        )
    }
}

/// The arguments of [`infer`].
pub struct InferRun<'py> {
    pub arch: PathBuf,
    pub role: PartyId,
    pub image: Option<Bound<'py, PyAny>>,
    pub weights: Option<Bound<'py, PyAny>>,
    pub logits: bool,
    pub realization: String,
}

/// A path given as `str` or `os.PathLike`, or `None` for anything else.
fn as_path(obj: &Bound<'_, PyAny>) -> Option<PathBuf> {
    obj.extract::<PathBuf>().ok()
}

/// `obj` through `numpy.asarray(obj)`: its shape and its values, flattened, as i64.
fn int_array(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<(Vec<usize>, Vec<i64>)> {
    let array = obj
        .py()
        .import("numpy")?
        .call_method1("asarray", (obj,))
        .map_err(|e| input_error(format!("{what}: not an array: {e}")))?;
    let shape: Vec<usize> = array.getattr("shape")?.extract()?;
    let size: usize = shape.iter().product();
    if size > cnn::model::MAX_WEIGHTS_BYTES {
        return Err(input_error(format!("{what}: {size} values, too many")));
    }
    let values = array
        .call_method0("ravel")?
        .call_method0("tolist")?
        .extract::<Vec<i64>>()
        .map_err(|_| input_error(format!("{what}: expected integers (64-bit)")))?;
    Ok((shape, values))
}

/// The image: a path to a .npy/PNG file, or a NumPy array of `side`×`side` (or flat) pixels 0..=255.
fn image_pixels(obj: &Bound<'_, PyAny>, arch: &Arch) -> PyResult<Vec<u8>> {
    if let Some(path) = as_path(obj) {
        return load_image(&path, arch).map_err(|e| to_py(e, Stage::Prepare));
    }
    let side = arch.input.height;
    let (shape, values) = int_array(obj, "image")?;
    if arch.input.channels != 1 || shape != [side, side] && shape != [side * side] {
        return Err(input_error(format!(
            "image: shape {shape:?}, the network takes ({side}, {side}) grayscale pixels"
        )));
    }
    values
        .into_iter()
        .map(|v| u8::try_from(v).map_err(|_| input_error(format!("image: pixel {v} is outside 0..=255"))))
        .collect()
}

/// The weights: a path to a weights file, or a list with one `{"weights": array, "bias":
/// array}` per conv/dense layer (flattened in the weights file's order).
fn layer_weights(obj: &Bound<'_, PyAny>, arch: &Arch) -> PyResult<Weights> {
    if let Some(path) = as_path(obj) {
        return load_weights(&path, arch).map_err(|e| to_py(e, Stage::Prepare));
    }
    let list = obj.cast::<PyList>().map_err(|_| {
        input_error("weights: expected a path or a list of {'weights': array, 'bias': array}, one per conv/dense layer")
    })?;
    let mut layers = Vec::with_capacity(list.len().min(64));
    for (i, item) in list.iter().enumerate() {
        let dict = item
            .cast::<PyDict>()
            .map_err(|_| input_error(format!("weights[{i}]: expected a dict with 'weights' and 'bias'")))?;
        let get = |key: &str| -> PyResult<Vec<i64>> {
            let v = dict
                .get_item(key)?
                .ok_or_else(|| input_error(format!("weights[{i}]: no '{key}'")))?;
            Ok(int_array(&v, &format!("weights[{i}]['{key}']"))?.1)
        };
        layers.push(LayerWeights {
            weights: get("weights")?,
            bias: get("bias")?,
        });
    }
    let weights = Weights { layers };
    weights
        .check(arch)
        .map_err(|e| input_error(format!("weights: {e}")))?;
    Ok(weights)
}

/// `mixgc infer` from Python (see `mixgc.pyi`).
pub fn infer(
    py: Python<'_>,
    args: InferRun<'_>,
    peer: &Peer,
    progress: Option<Py<PyAny>>,
) -> PyResult<InferResult> {
    let (connection, session) = peer.options()?;
    let arch = load_arch(&args.arch).map_err(|e| to_py(e, Stage::Prepare))?;
    let realization = Realization::parse(&args.realization).ok_or_else(|| {
        input_error(format!(
            "realization: expected 'boolean', 'mixed' or 'planned', got '{}'",
            args.realization
        ))
    })?;
    let (weights, image) = match (args.role, args.weights, args.image) {
        (PartyId::GARBLER, Some(w), None) => (Some(layer_weights(&w, &arch)?), None),
        (PartyId::GARBLER, None, _) => return Err(input_error("the garbler (server) needs weights=")),
        (PartyId::GARBLER, Some(_), Some(_)) => {
            return Err(input_error(
                "image= is the evaluator's (client's); the garbler holds the weights",
            ))
        }
        (_, None, Some(i)) => (None, Some(image_pixels(&i, &arch)?)),
        (_, _, None) => return Err(input_error("the evaluator (client) needs image=")),
        (_, Some(_), Some(_)) => {
            return Err(input_error(
                "weights= are the garbler's (server's); the evaluator holds the image",
            ))
        }
    };
    let reveal = if args.logits {
        Reveal::Logits
    } else {
        Reveal::Class
    };
    let (plan, _) = plan_lines(&arch, realization).map_err(|e| to_py(e, Stage::Prepare))?;
    let name = program_name(&arch, realization, &plan, reveal);
    let plan_text = cnn::plan_name(&plan);
    let (reporter, callback) = progress::reporter(progress);
    let role = args.role;
    let outcome = py.detach(move || -> Result<_, (CliError, Stage)> {
        let ch = session.open(&connection).map_err(|e| (e, Stage::Connect))?;
        let cfg = session
            .config()
            .for_command(Command::Infer)
            .with_progress(reporter);
        run_party(
            ch,
            &cfg,
            role,
            &arch,
            &plan,
            &name,
            reveal,
            weights.as_ref(),
            image.as_deref(),
        )
        .map_err(|e| (e, Stage::Run))
    });
    let run = match outcome {
        Ok(r) => r,
        Err((e, stage)) => return Err(checked((), callback).err().unwrap_or_else(|| to_py(e, stage))),
    };
    let logits = run
        .learned
        .as_ref()
        .and_then(|l| l.logits.clone())
        .map(|l| numpy::PyArray1::from_vec(py, l).into_any().unbind());
    let result = InferResult {
        label: run.learned.as_ref().map(|l| l.class as i64),
        logits,
        role: role.to_string(),
        plan: plan_text,
        ands: run.ands,
        bytes_sent: run.sent,
        bytes_received: run.received,
        seconds: run.seconds,
    };
    checked(result, callback)
}
