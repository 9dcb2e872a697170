//! The JSON text of the per-tensor records of `scan --json` (a `TensorInfo`, with its
//! statistics read from the stats pass's columns) and of findings, written here rather than by a
//! Python f-string per record: a million-tensor header has a million of each.
//!
//! Each record comes out byte for byte as Python's `to_json()` writes it, or as None when one of
//! its values is not of the plain types spelled here (a subclass, a non-finite or missing
//! statistic, an integer tensor's extras, a string with lone surrogates): the caller then takes
//! the Python way for that record.

use eagle3_inspect_core::json_text::{push_f64, push_str};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::fmt::Write;

/// A value spelled here, or None: the record takes the Python way.
type Spelled = Option<()>;

fn push_plain_str(out: &mut String, value: &Bound<'_, PyAny>) -> Spelled {
    if !value.is_exact_instance_of::<PyString>() {
        return None;
    }
    push_str(out, value.cast::<PyString>().ok()?.to_str().ok()?);
    Some(())
}

fn push_optional_str(out: &mut String, value: &Bound<'_, PyAny>) -> Spelled {
    if value.is_none() {
        out.push_str("null");
        return Some(());
    }
    push_plain_str(out, value)
}

fn push_int(out: &mut String, value: &Bound<'_, PyAny>) -> Spelled {
    if !value.is_exact_instance_of::<PyInt>() {
        return None;
    }
    // Writing to a String cannot fail.
    let _ = match value.extract::<i64>() {
        Ok(v) => write!(out, "{v}"),
        Err(_) => write!(out, "{}", value.extract::<u64>().ok()?),
    };
    Some(())
}

fn push_float(out: &mut String, value: &Bound<'_, PyAny>) -> Spelled {
    if !value.is_exact_instance_of::<PyFloat>() {
        return None;
    }
    push_f64(out, value.cast::<PyFloat>().ok()?.value()).then_some(())
}

/// The JSON of the last object seen in one field: a field that repeats one object across
/// records (a file path, a dtype, a finding's code and hint) is escaped once, not per record.
#[derive(Default)]
struct Repeated<'py> {
    last: Option<(Bound<'py, PyAny>, String)>,
}

impl<'py> Repeated<'py> {
    fn push(
        &mut self,
        out: &mut String,
        value: &Bound<'py, PyAny>,
        spell: fn(&mut String, &Bound<'py, PyAny>) -> Spelled,
    ) -> Spelled {
        if let Some((last, text)) = &self.last {
            // The same object (held here, so its address is not reused): the same text.
            if last.is(value) {
                out.push_str(text);
                return Some(());
            }
        }
        let start = out.len();
        spell(out, value)?;
        self.last = Some((value.clone(), out[start..].to_owned()));
        Some(())
    }
}

/// The stats pass's columns (`tensor_stats`), each a list or None (None in every row: such a
/// row is left to Python).
struct StatsColumns<'py> {
    ints: Vec<Option<Bound<'py, PyList>>>,
    floats: Vec<Option<Bound<'py, PyList>>>,
    extras: Vec<Option<Bound<'py, PyList>>>,
    hash: Option<Bound<'py, PyList>>,
}

const INT_KEYS: [&str; 5] = ["numel", "nan", "posinf", "neginf", "zeros"];
const FLOAT_KEYS: [&str; 6] = ["min", "max", "mean", "std", "abs_max", "l2"];
const EXTRA_KEYS: [&str; 4] = ["int_min", "int_max", "int_sum", "true_count"];

fn optional_list<'py>(
    columns: &Bound<'py, PyDict>,
    key: &str,
) -> PyResult<Option<Bound<'py, PyList>>> {
    match columns.get_item(key)? {
        Some(value) if !value.is_none() => Ok(Some(value.cast_into::<PyList>()?)),
        _ => Ok(None),
    }
}

impl<'py> StatsColumns<'py> {
    fn new(columns: &Bound<'py, PyDict>) -> PyResult<Self> {
        let mut ints: Vec<_> = INT_KEYS
            .iter()
            .map(|k| optional_list(columns, k))
            .collect::<PyResult<_>>()?;
        ints.push(optional_list(columns, "finite")?);
        Ok(StatsColumns {
            ints,
            floats: FLOAT_KEYS
                .iter()
                .map(|k| optional_list(columns, k))
                .collect::<PyResult<_>>()?,
            extras: EXTRA_KEYS
                .iter()
                .map(|k| optional_list(columns, k))
                .collect::<PyResult<_>>()?,
            hash: optional_list(columns, "hash")?,
        })
    }

    /// `, "stats": {...}` of row `row`, as `TensorStats.to_json` spells a float tensor's.
    fn push_row(&self, out: &mut String, row: usize) -> Spelled {
        for extra in self.extras.iter().flatten() {
            if !extra.get_item(row).ok()?.is_none() {
                return None;
            }
        }
        out.push_str(", \"stats\": {");
        for (key, column) in INT_KEYS.iter().zip(&self.ints) {
            let _ = write!(out, "\"{key}\": ");
            push_int(out, &column.as_ref()?.get_item(row).ok()?)?;
            out.push_str(", ");
        }
        for (key, column) in FLOAT_KEYS.iter().zip(&self.floats) {
            let _ = write!(out, "\"{key}\": ");
            push_float(out, &column.as_ref()?.get_item(row).ok()?)?;
            out.push_str(", ");
        }
        out.push_str("\"finite\": ");
        push_int(out, &self.ints[5].as_ref()?.get_item(row).ok()?)?;
        if let Some(hash) = &self.hash {
            let value = hash.get_item(row).ok()?;
            if !value.is_none() {
                out.push_str(", \"hash\": ");
                push_plain_str(out, &value)?;
            }
        }
        out.push('}');
        Some(())
    }
}

/// `TensorInfo.to_json()` of `info`, with the statistics of row `row` when given.
fn tensor_record<'py>(
    info: &Bound<'py, PyAny>,
    stats: Option<(&StatsColumns<'py>, usize)>,
    seen: &mut [Repeated<'py>; 2],
) -> Option<String> {
    let py = info.py();
    let mut out = String::with_capacity(320);
    out.push_str("{\"name\": ");
    push_plain_str(&mut out, &info.getattr(intern!(py, "name")).ok()?)?;
    out.push_str(", \"dtype\": ");
    seen[0].push(
        &mut out,
        &info.getattr(intern!(py, "dtype")).ok()?,
        push_plain_str,
    )?;
    out.push_str(", \"shape\": [");
    let shape = info.getattr(intern!(py, "shape")).ok()?;
    if !shape.is_exact_instance_of::<PyTuple>() {
        return None;
    }
    for (i, dim) in shape.cast::<PyTuple>().ok()?.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_int(&mut out, &dim)?;
    }
    out.push_str("], \"nbytes\": ");
    push_int(&mut out, &info.getattr(intern!(py, "nbytes")).ok()?)?;
    out.push_str(", \"file\": ");
    seen[1].push(
        &mut out,
        &info.getattr(intern!(py, "file")).ok()?,
        push_plain_str,
    )?;
    out.push_str(", \"offset\": ");
    push_int(&mut out, &info.getattr(intern!(py, "offset")).ok()?)?;
    if let Some((columns, row)) = stats {
        columns.push_row(&mut out, row)?;
    }
    out.push('}');
    Some(out)
}

/// The JSON records of `infos` (TensorInfo objects) as `TensorInfo.to_json` writes them, and the
/// next value of `cursor`. With `names` and `columns` (the stats pass's results, `names[i]` the
/// tensor of row i), an info whose name is `names[cursor]` gets that row as its `"stats"` and
/// advances the cursor; any other info, and any record with a value not spelled here, is None
/// (the caller looks its stats up by name and writes it the Python way).
#[pyfunction]
#[pyo3(signature = (infos, names=None, columns=None, cursor=0))]
pub fn tensor_records_json<'py>(
    py: Python<'py>,
    infos: &Bound<'py, PyList>,
    names: Option<&Bound<'py, PyList>>,
    columns: Option<&Bound<'py, PyDict>>,
    mut cursor: usize,
) -> PyResult<(Bound<'py, PyList>, usize)> {
    let stats = match (names, columns) {
        (Some(names), Some(columns)) => Some((names, StatsColumns::new(columns)?)),
        _ => None,
    };
    let out = PyList::empty(py);
    let mut seen = Default::default();
    for info in infos.iter() {
        let record = match &stats {
            None => tensor_record(&info, None, &mut seen),
            Some((names, columns)) => {
                let name = info.getattr(intern!(py, "name"))?;
                let matched = cursor < names.len() && {
                    let at = names.get_item(cursor)?;
                    at.is(&name) || at.eq(&name)?
                };
                if matched {
                    cursor += 1;
                    tensor_record(&info, Some((columns, cursor - 1)), &mut seen)
                } else {
                    None
                }
            }
        };
        out.append(record)?;
    }
    Ok((out, cursor))
}

/// `Finding.to_json()` of `finding`.
fn finding_record<'py>(
    finding: &Bound<'py, PyAny>,
    seen: &mut [Repeated<'py>; 4],
) -> Option<String> {
    let py = finding.py();
    let get = |name: &Bound<'py, PyString>| finding.getattr(name).ok();
    let mut out = String::with_capacity(256);
    out.push_str("{\"code\": ");
    seen[0].push(&mut out, &get(intern!(py, "code"))?, push_plain_str)?;
    out.push_str(", \"severity\": ");
    seen[1].push(&mut out, &get(intern!(py, "severity"))?, push_severity)?;
    out.push_str(", \"message\": ");
    push_plain_str(&mut out, &get(intern!(py, "message"))?)?;
    out.push_str(", \"file\": ");
    seen[2].push(&mut out, &get(intern!(py, "file"))?, push_optional_str)?;
    out.push_str(", \"tensor\": ");
    push_optional_str(&mut out, &get(intern!(py, "tensor"))?)?;
    out.push_str(", \"offset\": ");
    let offset = get(intern!(py, "offset"))?;
    if offset.is_none() {
        out.push_str("null");
    } else {
        push_int(&mut out, &offset)?;
    }
    out.push_str(", \"config_key\": ");
    push_optional_str(&mut out, &get(intern!(py, "config_key"))?)?;
    out.push_str(", \"hint\": ");
    seen[3].push(&mut out, &get(intern!(py, "hint"))?, push_optional_str)?;
    out.push_str(", \"engine\": ");
    push_optional_str(&mut out, &get(intern!(py, "engine"))?)?;
    out.push('}');
    Some(out)
}

/// A Severity member as its value (`severity._value_`, what `Finding.to_json` writes).
fn push_severity(out: &mut String, severity: &Bound<'_, PyAny>) -> Spelled {
    push_plain_str(
        out,
        &severity.getattr(intern!(severity.py(), "_value_")).ok()?,
    )
}

/// The JSON records of `findings` (Finding objects) as `Finding.to_json` writes them; None for a
/// finding with a value not spelled here (the caller writes that one the Python way).
#[pyfunction]
pub fn findings_json<'py>(
    py: Python<'py>,
    findings: &Bound<'py, PyList>,
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    let mut seen = Default::default();
    for finding in findings.iter() {
        out.append(finding_record(&finding, &mut seen))?;
    }
    Ok(out)
}
