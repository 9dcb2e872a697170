//! `NativeCheckpoint.stats`: per-tensor statistics and content hashes, GIL released, with
//! progress and Ctrl-C.

use crate::checkpoint::NativeCheckpoint;
use crate::convert::Record;
use crate::errors::NativeError;
use crate::progress::run_with_progress;
use eagle3_inspect_core::stats::{compute_stats, StatsOptions, StatsTask, TensorStats};
use eagle3_inspect_core::Error;
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn stats_dict<'py>(py: Python<'py>, s: &TensorStats) -> PyResult<Bound<'py, PyDict>> {
    Ok(Record::new(py)
        .set("dtype", s.dtype.name())?
        .set("numel", s.numel)?
        .set("nan", s.nan)?
        .set("posinf", s.posinf)?
        .set("neginf", s.neginf)?
        .set("zeros", s.zeros)?
        .set("finite", s.finite)?
        .set("min", s.min)?
        .set("max", s.max)?
        .set("mean", s.mean)?
        .set("std", s.std)?
        .set("abs_max", s.abs_max)?
        .set("l2", s.l2)?
        .set("int_min", s.int_min)?
        .set("int_max", s.int_max)?
        .set("int_sum", s.int_sum)?
        .set("true_count", s.true_count)?
        .set("hash", s.hash.map(|h| format!("{h:032x}")))?
        .dict)
}

/// Statistics of the named readable tensors (all readable ones when `names` is None):
/// `{name: dict}`. `progress(done_bytes, total_bytes)` is called about every 100 ms.
#[pyfunction]
#[pyo3(signature = (checkpoint, names=None, *, hashes=false, threads=None, progress=None))]
pub fn tensor_stats<'py>(
    py: Python<'py>,
    checkpoint: &NativeCheckpoint,
    names: Option<Vec<String>>,
    hashes: bool,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let ckpt = &*checkpoint.inner;
    let names = checkpoint.names_or_readable(names);
    let mut tasks = Vec::with_capacity(names.len());
    for name in &names {
        let (_, entry, data) = ckpt.tensor_bytes(name).map_err(NativeError)?;
        let (Some(dtype), Some(numel)) = (entry.dtype, entry.numel()) else {
            return Err(NativeError(Error::InvalidArgument(format!(
                "tensor {name:?} has no valid dtype/shape"
            )))
            .into());
        };
        tasks.push(StatsTask { dtype, numel, data });
    }
    let total: u64 = tasks.iter().map(|t| t.data.len() as u64).sum();
    let opts = StatsOptions {
        threads,
        hash: hashes,
        release_pages: true,
        ..StatsOptions::default()
    };
    let results = run_with_progress(py, total, progress.as_ref(), |p| {
        compute_stats(&tasks, &opts, p)
    })?;
    let out = PyDict::new(py);
    for (name, stats) in names.iter().zip(&results) {
        out.set_item(name, stats_dict(py, stats)?)?;
    }
    Ok(out)
}
