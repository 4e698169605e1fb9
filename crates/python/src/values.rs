//! Python ints, lists and NumPy integer arrays ↔ the bit vectors of the Rust API (bit 0 =
//! least significant, the Bristol Fashion convention `mixgc run` uses for hex values).

use num_bigint::{BigInt, BigUint, Sign};
use numpy::{
    PyArray1, PyArray2, PyArrayDescrMethods, PyReadonlyArrayDyn, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::errors::input_error;

/// Values one party gives: one group per execution, and whether they came as a NumPy
/// array (outputs are then returned as one too, unless the caller says otherwise).
pub struct Given {
    pub groups: Vec<Vec<BigInt>>,
    pub numpy: bool,
    /// Given as a 2-D array or a list of lists: one group per execution.
    pub batched: bool,
}

/// Most values one call takes from Python (all executions together): bounds the memory a
/// mistaken argument can claim before the per-op checks.
pub const MAX_VALUES: usize = 1 << 22;

/// Reads `obj`: `None` (no values), a sequence of ints, a sequence of sequences of ints (one
/// per execution), or a NumPy integer array — 1-D, or 2-D with one row per execution; with
/// `flatten`, an array of any shape is one group in row-major order.
pub fn given(obj: Option<&Bound<'_, PyAny>>, flatten: bool) -> PyResult<Given> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Given {
            groups: vec![Vec::new()],
            numpy: false,
            batched: false,
        });
    };
    if let Ok(array) = obj.cast::<PyUntypedArray>() {
        return from_numpy(array, flatten);
    }
    if obj.is_instance_of::<pyo3::types::PyString>() || obj.is_instance_of::<pyo3::types::PyBytes>() {
        return Err(input_error(
            "inputs: give ints (a list, or a NumPy integer array), not a string",
        ));
    }
    let items: Vec<Bound<'_, PyAny>> = sequence(obj, "inputs")?;
    let nested = items.iter().any(|i| {
        i.is_instance_of::<PyList>() || i.is_instance_of::<PyTuple>() || i.cast::<PyUntypedArray>().is_ok()
    });
    if !nested {
        let group = items
            .iter()
            .enumerate()
            .map(|(k, v)| int(v, &format!("inputs[{k}]")))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(Given {
            groups: vec![group],
            numpy: false,
            batched: false,
        });
    }
    let mut total = 0usize;
    let mut groups = Vec::with_capacity(items.len());
    for (k, item) in items.iter().enumerate() {
        let values = sequence(item, &format!("inputs[{k}]"))?;
        total += values.len();
        if total > MAX_VALUES {
            return Err(input_error(format!("inputs: more than {MAX_VALUES} values")));
        }
        groups.push(
            values
                .iter()
                .enumerate()
                .map(|(j, v)| int(v, &format!("inputs[{k}][{j}]")))
                .collect::<PyResult<Vec<_>>>()?,
        );
    }
    Ok(Given {
        groups,
        numpy: false,
        batched: true,
    })
}

/// The items of a list or tuple (anything else is refused: a generator or a set has no
/// order a party could rely on).
fn sequence<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let items: Vec<Bound<'py, PyAny>> = if let Ok(list) = obj.cast::<PyList>() {
        if list.len() > MAX_VALUES {
            return Err(input_error(format!("{what}: more than {MAX_VALUES} values")));
        }
        list.iter().collect()
    } else if let Ok(tuple) = obj.cast::<PyTuple>() {
        if tuple.len() > MAX_VALUES {
            return Err(input_error(format!("{what}: more than {MAX_VALUES} values")));
        }
        tuple.iter().collect()
    } else if let Ok(array) = obj.cast::<PyUntypedArray>() {
        return array_items(array, what);
    } else {
        return Err(input_error(format!(
            "{what}: expected a list, a tuple or a NumPy integer array, got {}",
            type_name(obj)
        )));
    };
    Ok(items)
}

/// The elements of a 1-D NumPy array as Python objects (a row of a list of rows).
fn array_items<'py>(array: &Bound<'py, PyUntypedArray>, what: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if array.ndim() != 1 {
        return Err(input_error(format!(
            "{what}: expected a 1-D array, got {} dimensions",
            array.ndim()
        )));
    }
    let g = from_numpy(array, true)?;
    let py = array.py();
    g.groups
        .into_iter()
        .flatten()
        .map(|v| Ok(v.into_pyobject(py)?.into_any()))
        .collect()
}

/// One Python int (a bool counts as 0 or 1, as in Python; a NumPy scalar converts through
/// `__index__`; a float is refused).
fn int(v: &Bound<'_, PyAny>, what: &str) -> PyResult<BigInt> {
    let refused = || input_error(format!("{what}: expected an int, got {}", type_name(v)));
    if v.is_instance_of::<pyo3::types::PyInt>() {
        return v.extract::<BigInt>().map_err(|_| refused());
    }
    match v.call_method0("__index__") {
        Ok(index) => index.extract::<BigInt>().map_err(|_| refused()),
        Err(_) => Err(refused()),
    }
}

fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an unknown type".into())
}

/// A NumPy array of a signed, unsigned or Boolean dtype.
fn from_numpy(array: &Bound<'_, PyUntypedArray>, flatten: bool) -> PyResult<Given> {
    let shape = array.shape().to_vec();
    let dtype = array.dtype();
    let kind = dtype.kind();
    let target = match kind {
        b'i' => "int64",
        b'u' | b'b' => "uint64",
        _ => {
            return Err(input_error(format!(
                "inputs: a NumPy array of dtype {} has no integer values: give an integer array \
                 (e.g. np.int64, np.uint8)",
                dtype.str().map(|s| s.to_string()).unwrap_or_default()
            )))
        }
    };
    if array.len() > MAX_VALUES {
        return Err(input_error(format!(
            "inputs: an array of {} values is more than the {MAX_VALUES} one call takes",
            array.len()
        )));
    }
    let converted = array.call_method1("astype", (target,))?;
    let values: Vec<BigInt> = if kind == b'i' {
        let a = converted.extract::<PyReadonlyArrayDyn<'_, i64>>()?;
        a.as_array().iter().map(|&v| BigInt::from(v)).collect()
    } else {
        let a = converted.extract::<PyReadonlyArrayDyn<'_, u64>>()?;
        a.as_array().iter().map(|&v| BigInt::from(v)).collect()
    };
    let (groups, batched) = match shape.as_slice() {
        _ if flatten => (vec![values], false),
        [] => {
            return Err(input_error(
                "inputs: a 0-D array is one number: give a 1-D array (one value per input) or a list",
            ))
        }
        [_] => (vec![values], false),
        [rows, cols] => {
            let cols = *cols;
            if cols == 0 {
                (vec![Vec::new(); *rows], true)
            } else {
                (values.chunks(cols).map(<[BigInt]>::to_vec).collect(), true)
            }
        }
        more => {
            return Err(input_error(format!(
                "inputs: a {}-D array: give a 1-D array (one value per input) or a 2-D array (one row per execution)",
                more.len()
            )))
        }
    };
    Ok(Given {
        groups,
        numpy: true,
        batched,
    })
}

/// `v` as `width` bits, two's complement for a negative `v`: it must lie in
/// [-2^(width-1), 2^width).
pub fn to_bits(v: &BigInt, width: u32) -> Result<Vec<bool>, String> {
    let modulus = BigInt::from(1u8) << width;
    let low = -(BigInt::from(1u8) << width.saturating_sub(1));
    if *v >= modulus || *v < low || (width == 0 && v.sign() != Sign::NoSign) {
        return Err(format!(
            "{v} does not fit in {width} bits (give -2^{} to 2^{width} - 1)",
            width.saturating_sub(1)
        ));
    }
    let unsigned: BigUint = if v.sign() == Sign::Minus {
        (v + &modulus).magnitude().clone()
    } else {
        v.magnitude().clone()
    };
    Ok((0..u64::from(width)).map(|i| unsigned.bit(i)).collect())
}

/// The value of `bits` (bit 0 least significant), as two's complement when `signed`.
pub fn from_bits(bits: &[bool], signed: bool) -> BigInt {
    let mut bytes = vec![0u8; bits.len().div_ceil(8)];
    for (i, &b) in bits.iter().enumerate() {
        if b {
            bytes[i / 8] |= 1 << (i % 8);
        }
    }
    let v = BigInt::from(BigUint::from_bytes_le(&bytes));
    match bits.last() {
        Some(true) if signed => v - (BigInt::from(1u8) << bits.len()),
        _ => v,
    }
}

/// Each execution's output values for Python: lists of ints, or a NumPy array (int64 or
/// uint64 when every value fits in 64 bits, dtype object otherwise) of shape (outputs,) for
/// one execution and (executions, outputs) for a batch.
pub fn outputs<'py>(
    py: Python<'py>,
    executions: &[Vec<Vec<bool>>],
    batched: bool,
    numpy: bool,
    signed: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let ints: Vec<Vec<BigInt>> = executions
        .iter()
        .map(|e| e.iter().map(|v| from_bits(v, signed)).collect())
        .collect();
    let narrow = executions.iter().flatten().all(|v| v.len() <= 64);
    if !numpy {
        let lists = ints
            .into_iter()
            .map(|e| PyList::new(py, e))
            .collect::<PyResult<Vec<_>>>()?;
        return match (batched, lists.len()) {
            (false, 1) => Ok(lists.into_iter().next().expect("one").into_any()),
            _ => Ok(PyList::new(py, lists)?.into_any()),
        };
    }
    if narrow && signed {
        let rows: Vec<Vec<i64>> = ints
            .iter()
            .map(|e| e.iter().map(|v| i64::try_from(v).unwrap_or_default()).collect())
            .collect();
        return array(py, rows, batched);
    }
    if narrow {
        let rows: Vec<Vec<u64>> = ints
            .iter()
            .map(|e| e.iter().map(|v| u64::try_from(v).unwrap_or_default()).collect())
            .collect();
        return array(py, rows, batched);
    }
    // Wider than 64 bits (AES's 128-bit block): Python ints in an object array.
    let nested = PyList::new(
        py,
        ints.into_iter()
            .map(|e| PyList::new(py, e))
            .collect::<PyResult<Vec<_>>>()?,
    )?;
    let np = py.import("numpy")?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("dtype", "object")?;
    let a = np.call_method("array", (nested,), Some(&kwargs))?;
    if batched {
        Ok(a)
    } else {
        a.get_item(0)
    }
}

/// Rows of equal length as a 1-D (one row, not batched) or 2-D NumPy array.
fn array<'py, T: numpy::Element + Copy>(
    py: Python<'py>,
    rows: Vec<Vec<T>>,
    batched: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if !batched && rows.len() == 1 {
        let row = rows.into_iter().next().expect("one");
        return Ok(PyArray1::from_vec(py, row).into_any());
    }
    PyArray2::from_vec2(py, &rows)
        .map(|a| a.into_any())
        .map_err(|e| crate::errors::MixgcError::new_err(format!("outputs of unequal length: {e}")))
}
