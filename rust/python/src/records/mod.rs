//! The JSON text of per-tensor records (findings, scan's tensor rows with their statistics),
//! written here rather than by Python a record at a time: a million-tensor header has a million
//! of each. What a record's JSON is, is declared once, in Python, by its class's `Shape`
//! (`eagle3_inspect.records`); the writers here spell any shape.
//!
//! Each record comes out byte for byte as the Python encoder writes its `to_dict()`, or as None
//! when one of its values is not of the plain types spelled here (a subclass, a non-finite
//! float, a string with lone surrogates): the caller then writes that record the Python way.
//! Given a separator, a call whose records were all spelled here returns them as one string
//! joined by it (what the streaming writer writes), not a list.

mod columns;
mod shape;
mod spell;

use columns::Columns;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use shape::{Seen, Shape};
use spell::Spelled;

/// `count` records written one after another by `each(i, out)`: one string joined by
/// `separator` when there is one and every record was spelled, else a list of each record's
/// text, None for a record not spelled.
fn write_records<'py>(
    py: Python<'py>,
    count: usize,
    separator: Option<&str>,
    seen: &mut Seen<'py>,
    mut each: impl FnMut(usize, &mut String, &mut Seen<'py>) -> PyResult<Spelled>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut text = String::with_capacity(count.saturating_mul(256));
    let mut spans = Vec::with_capacity(count);
    for i in 0..count {
        if let (Some(separator), true) = (separator, i > 0) {
            text.push_str(separator);
        }
        let start = text.len();
        match each(i, &mut text, seen)? {
            Some(()) => spans.push(Some(start..text.len())),
            None => {
                text.truncate(start);
                seen.forget();
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

/// The JSON records of `items` (objects with the attributes `shape` names) as the encoder
/// writes their `to_dict()`; None for an item with a value not spelled here (the caller writes
/// that one the Python way). With `separator`, all records spelled come back as one string.
#[pyfunction]
#[pyo3(signature = (items, shape, separator=None))]
pub fn records_json<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyList>,
    shape: &Bound<'py, PyTuple>,
    separator: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let shape = Shape::new(shape)?;
    let mut seen = Seen::default();
    write_records(py, items.len(), separator, &mut seen, |i, out, seen| {
        let item = items.get_item(i)?;
        Ok(shape.push_record(out, seen, |_, f| item.getattr(f.attr()).ok(), true))
    })
}

/// scan's tensor rows: the record of each of `infos` (by `shape`), and, with `names` and
/// `columns` (the stats pass's results, `names[i]` the tensor of row i), an info whose name is
/// `names[cursor]` gets that row as its `"stats"` (by `stats_shape`) and advances the cursor;
/// any other info is None (the caller looks its stats up by name). Returns the records (as
/// `records_json` does) and the cursor after them.
#[pyfunction]
#[pyo3(signature = (infos, shape, names=None, columns=None, stats_shape=None, cursor=0, separator=None))]
#[allow(clippy::too_many_arguments)]
pub fn tensor_rows_json<'py>(
    py: Python<'py>,
    infos: &Bound<'py, PyList>,
    shape: &Bound<'py, PyTuple>,
    names: Option<&Bound<'py, PyList>>,
    columns: Option<&Bound<'py, PyDict>>,
    stats_shape: Option<&Bound<'py, PyTuple>>,
    mut cursor: usize,
    separator: Option<&str>,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    let shape = Shape::new(shape)?;
    let stats = match (names, columns, stats_shape) {
        (Some(names), Some(columns), Some(stats_shape)) => {
            let stats_shape = Shape::new(stats_shape)?;
            let columns = Columns::new(columns, &stats_shape)?;
            Some((names, stats_shape, columns))
        }
        _ => None,
    };
    let name_attr = pyo3::intern!(py, "name");
    let mut seen = Seen::default();
    let records = write_records(py, infos.len(), separator, &mut seen, |i, out, seen| {
        let info = infos.get_item(i)?;
        let Some((names, stats_shape, columns)) = &stats else {
            return Ok(shape.push_record(out, seen, |_, f| info.getattr(f.attr()).ok(), true));
        };
        let name = info.getattr(name_attr)?;
        let matched = cursor < names.len() && {
            let at = names.get_item(cursor)?;
            at.is(&name) || at.eq(&name)?
        };
        if !matched {
            return Ok(None);
        }
        let row = cursor;
        cursor += 1;
        let spelled = shape
            .push_record(out, seen, |_, f| info.getattr(f.attr()).ok(), false)
            .and_then(|()| {
                out.push_str(", \"stats\": ");
                // Its own memo: the stats fields are numbers and a hash, none repeated.
                stats_shape.push_record(out, &mut Seen::default(), |j, _| columns.get(j, row), true)
            })
            .map(|()| out.push('}'));
        Ok(spelled)
    })?;
    Ok((records, cursor))
}
