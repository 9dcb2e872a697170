//! The `"stats"` entry of a scan row, read from the stats pass's columns by row number.

use super::spell::{push_float, push_int, push_plain_str, Spelled};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::fmt::Write;

/// The stats pass's columns (`tensor_stats`), each a list or None (None in every row: such a
/// row is left to Python).
pub struct StatsColumns<'py> {
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
    pub fn new(columns: &Bound<'py, PyDict>) -> PyResult<Self> {
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
    pub fn push_row(&self, out: &mut String, row: usize) -> Spelled {
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
