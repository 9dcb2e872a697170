//! One scan row: `TensorInfo.to_json()`, with its statistics from the pass's columns.

use super::spell::{push_int, push_plain_str, Repeated, Spelled};
use super::stats_row::StatsColumns;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// `TensorInfo.to_json()` of `info`, with the statistics of row `row` when given.
pub fn tensor_record<'py>(
    out: &mut String,
    info: &Bound<'py, PyAny>,
    stats: Option<(&StatsColumns<'py>, usize)>,
    seen: &mut [Repeated<'py>; 2],
) -> Spelled {
    let py = info.py();
    out.push_str("{\"name\": ");
    push_plain_str(out, &info.getattr(intern!(py, "name")).ok()?)?;
    out.push_str(", \"dtype\": ");
    seen[0].push(
        out,
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
        push_int(out, &dim)?;
    }
    out.push_str("], \"nbytes\": ");
    push_int(out, &info.getattr(intern!(py, "nbytes")).ok()?)?;
    out.push_str(", \"file\": ");
    seen[1].push(
        out,
        &info.getattr(intern!(py, "file")).ok()?,
        push_plain_str,
    )?;
    out.push_str(", \"offset\": ");
    push_int(out, &info.getattr(intern!(py, "offset")).ok()?)?;
    if let Some((columns, row)) = stats {
        columns.push_row(out, row)?;
    }
    out.push('}');
    Some(())
}
