//! The JSON text of the per-tensor records of `scan --json` (a `TensorInfo`, with its
//! statistics read from the stats pass's columns) and of findings, written here rather than by a
//! Python f-string per record: a million-tensor header has a million of each.
//!
//! Each record comes out byte for byte as Python's `to_json()` writes it, or as None when one of
//! its values is not of the plain types spelled here (a subclass, a non-finite or missing
//! statistic, an integer tensor's extras, a string with lone surrogates): the caller then takes
//! the Python way for that record. Given a separator, a call whose records were all spelled here
//! returns them as one string joined by it (what the streaming writer writes), not a list.

mod finding;
mod spell;
mod stats_row;
mod tensor;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use spell::Spelled;
use stats_row::StatsColumns;

/// `count` records written one after another by `each(i, out)`: one string joined by
/// `separator` when there is one and every record was spelled, else a list of each record's
/// text, None for a record not spelled.
fn write_records<'py>(
    py: Python<'py>,
    count: usize,
    separator: Option<&str>,
    mut each: impl FnMut(usize, &mut String) -> PyResult<Spelled>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut text = String::with_capacity(count.saturating_mul(256));
    let mut spans = Vec::with_capacity(count);
    for i in 0..count {
        if let (Some(separator), true) = (separator, i > 0) {
            text.push_str(separator);
        }
        let start = text.len();
        match each(i, &mut text)? {
            Some(()) => spans.push(Some(start..text.len())),
            None => {
                text.truncate(start);
                spans.push(None);
            }
        }
    }
    if separator.is_some() && spans.iter().all(Option::is_some) {
        return Ok(PyString::new(py, &text).into_any());
    }
    let list = PyList::empty(py);
    for span in spans {
        list.append(span.map(|span| &text[span]))?;
    }
    Ok(list.into_any())
}

/// The JSON records of `infos` (TensorInfo objects) as `TensorInfo.to_json` writes them, and the
/// next value of `cursor`. With `names` and `columns` (the stats pass's results, `names[i]` the
/// tensor of row i), an info whose name is `names[cursor]` gets that row as its `"stats"` and
/// advances the cursor; any other info, and any record with a value not spelled here, is None
/// (the caller looks its stats up by name and writes it the Python way). With `separator`, all
/// records spelled come back as one string (see the module doc).
#[pyfunction]
#[pyo3(signature = (infos, names=None, columns=None, cursor=0, separator=None))]
pub fn tensor_records_json<'py>(
    py: Python<'py>,
    infos: &Bound<'py, PyList>,
    names: Option<&Bound<'py, PyList>>,
    columns: Option<&Bound<'py, PyDict>>,
    mut cursor: usize,
    separator: Option<&str>,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    let stats = match (names, columns) {
        (Some(names), Some(columns)) => Some((names, StatsColumns::new(columns)?)),
        _ => None,
    };
    let mut seen = Default::default();
    let records = write_records(py, infos.len(), separator, |i, out| {
        let info = infos.get_item(i)?;
        let Some((names, columns)) = &stats else {
            return Ok(tensor::tensor_record(out, &info, None, &mut seen));
        };
        let name = info.getattr(intern!(py, "name"))?;
        let matched = cursor < names.len() && {
            let at = names.get_item(cursor)?;
            at.is(&name) || at.eq(&name)?
        };
        if !matched {
            return Ok(None);
        }
        cursor += 1;
        let row = Some((columns, cursor - 1));
        Ok(tensor::tensor_record(out, &info, row, &mut seen))
    })?;
    Ok((records, cursor))
}

/// The JSON records of `findings` (Finding objects) as `Finding.to_json` writes them; None for a
/// finding with a value not spelled here (the caller writes that one the Python way). With
/// `separator`, all records spelled come back as one string (see the module doc).
#[pyfunction]
#[pyo3(signature = (findings, separator=None))]
pub fn findings_json<'py>(
    py: Python<'py>,
    findings: &Bound<'py, PyList>,
    separator: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut seen = Default::default();
    write_records(py, findings.len(), separator, |i, out| {
        Ok(finding::finding_record(
            out,
            &findings.get_item(i)?,
            &mut seen,
        ))
    })
}
