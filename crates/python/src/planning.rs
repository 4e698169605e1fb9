//! The cost counter and the planner from Python, as dicts: `mixgc ops`, the counter's cost
//! of a library op (`mixgc_program::library::shape`), a Bristol circuit's gate counts
//! (`mixgc info`), and `mixgc plan --json` (ABLE §5.2).

use std::path::PathBuf;

use clap::ValueEnum;
use mixgc_program::library::{self, OPS};
use mixgc_program::{Cost, PartyId};
use mixgc_session::{Command, SessionConfig};
use mixgc_studies::common::CliError;
use mixgc_studies::plan::{make_plan, Objective, PlanRequest, Program};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;

use crate::errors::{input_error, to_py, Stage};
use crate::progress;

/// The library ops, as `mixgc ops` lists them.
pub fn ops(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let rows = OPS
        .iter()
        .map(|op| {
            let d = PyDict::new(py);
            d.set_item("name", op.name)?;
            d.set_item("about", op.about)?;
            d.set_item("default_width", op.default_width)?;
            d.set_item("default_size", op.default_size)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, rows)
}

/// Every field of the counter's [`Cost`].
fn cost_items(d: &Bound<'_, PyDict>, c: &Cost) -> PyResult<()> {
    d.set_item("ands", c.ands)?;
    d.set_item("xors", c.xors)?;
    d.set_item("nots", c.nots)?;
    d.set_item("and_depth", c.and_depth)?;
    d.set_item("table_bytes", c.table_bytes)?;
    d.set_item("table_rows", c.table_rows)?;
    d.set_item("garbler_input_bits", c.garbler_input_bits)?;
    d.set_item("evaluator_input_bits", c.evaluator_input_bits)?;
    d.set_item("output_bits", c.output_bits)?;
    d.set_item("garbler_input_bytes", c.garbler_input_bytes)?;
    d.set_item("ots", c.ots)?;
    d.set_item("ot_bytes", c.ot_bytes)?;
    d.set_item("output_bytes", c.output_bytes)?;
    d.set_item("total_bytes", c.total_bytes())?;
    Ok(())
}

/// Library op `name` on the cost counter (constant memory, nothing garbled).
pub fn op_cost<'py>(
    py: Python<'py>,
    name: &str,
    width: Option<u32>,
    size: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let shape = py
        .detach(|| library::shape(name, width, size))
        .map_err(|e| to_py(e.into(), Stage::Prepare))?;
    let d = PyDict::new(py);
    d.set_item("op", name)?;
    cost_items(&d, &shape.cost())?;
    d.set_item("peak_live_wires", shape.peak_live_wires())?;
    let inputs = shape
        .inputs()
        .iter()
        .map(|&(owner, width)| {
            let i = PyDict::new(py);
            let owner = if owner == PartyId::GARBLER {
                "garbler"
            } else {
                "evaluator"
            };
            i.set_item("owner", owner)?;
            i.set_item("width", width)?;
            Ok(i)
        })
        .collect::<PyResult<Vec<_>>>()?;
    d.set_item("inputs", PyList::new(py, inputs)?)?;
    d.set_item("outputs", PyList::new(py, shape.outputs())?)?;
    Ok(d)
}

/// A Bristol circuit's gate counts and value widths.
pub fn circuit_cost(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyDict>> {
    let circuit = py
        .detach(|| mixgc_circuit::bristol::read_file(&path))
        .map_err(|e| to_py(e.into(), Stage::Prepare))?;
    let s = circuit.stats();
    let d = PyDict::new(py);
    d.set_item("circuit", path.display().to_string())?;
    d.set_item("gates", s.gates)?;
    d.set_item("ands", s.ands)?;
    d.set_item("xors", s.xors)?;
    d.set_item("nots", s.nots)?;
    d.set_item("copies", s.copies)?;
    d.set_item("consts", s.consts)?;
    d.set_item("and_depth", s.and_depth)?;
    d.set_item("input_widths", PyList::new(py, &circuit.input_widths)?)?;
    d.set_item("output_widths", PyList::new(py, &circuit.output_widths)?)?;
    Ok(d)
}

/// A value-enum argument by its command-line name.
fn named<T: ValueEnum>(what: &str, name: &str) -> PyResult<T> {
    T::from_str(name, false).map_err(|_| {
        let names: Vec<String> = T::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value().map(|p| format!("'{}'", p.get_name())))
            .collect();
        input_error(format!(
            "{what}: expected one of {}, got '{name}'",
            names.join(", ")
        ))
    })
}

/// The planner's arguments from Python.
pub struct PlanArgs<'a> {
    pub program: &'a str,
    pub width: u32,
    pub size: Option<usize>,
    pub objective: &'a str,
    pub check: bool,
    pub reps: u16,
}

/// `mixgc plan --json` as a dict.
pub fn plan<'py>(
    py: Python<'py>,
    args: PlanArgs<'_>,
    callback: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let request = PlanRequest {
        program: named::<Program>("program", args.program)?,
        width: args.width,
        size: args.size,
        objective: named::<Objective>("objective", args.objective)?,
        check: args.check,
        reps: args.reps,
    };
    let (reporter, raised) = progress::reporter(callback);
    let json = py.detach(move || -> Result<Value, CliError> {
        let cfg = SessionConfig::default().for_command(Command::Plan);
        Ok(serde_json::to_value(make_plan(&request, &cfg, reporter)?)?)
    });
    if let Some(e) = raised.and_then(|c| c.take_raised()) {
        return Err(e);
    }
    let json = json.map_err(|e| {
        let message = e.to_string();
        if message.starts_with("--") {
            input_error(message)
        } else {
            to_py(e, Stage::Run)
        }
    })?;
    to_python(py, &json)
}

/// A JSON value as the Python value `json.loads` would give.
fn to_python<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.into_pyobject(py)?.into_any(),
            (None, Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, None, f) => f.unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(a) => PyList::new(
            py,
            a.iter().map(|x| to_python(py, x)).collect::<PyResult<Vec<_>>>()?,
        )?
        .into_any(),
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, to_python(py, x)?)?;
            }
            d.into_any()
        }
    })
}
