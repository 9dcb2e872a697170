//! `NativeCheckpoint.stats`: per-tensor statistics and content hashes, GIL released, with
//! progress and Ctrl-C.

use crate::checkpoint::NativeCheckpoint;
use crate::convert::Record;
use crate::errors::NativeError;
use crate::progress::run_with_progress;
use crate::source::reraise;
use eagle3_inspect_core::fetch::for_each_batch;
use eagle3_inspect_core::stats::{compute_stats, StatsOptions, StatsTask, TensorStats};
use eagle3_inspect_core::{Dtype, Error};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The results as columns, one list per field in `TensorStats`'s (Python) field order, plus
/// `name`: a million tensors make 19 lists, not a million dicts.
fn stats_columns<'py>(
    py: Python<'py>,
    names: &[String],
    r: &[TensorStats],
) -> PyResult<Bound<'py, PyDict>> {
    Ok(Record::new(py)
        .set("name", PyList::new(py, names)?)?
        .set("dtype", PyList::new(py, r.iter().map(|s| s.dtype.name()))?)?
        .set("numel", PyList::new(py, r.iter().map(|s| s.numel))?)?
        .set("nan", PyList::new(py, r.iter().map(|s| s.nan))?)?
        .set("posinf", PyList::new(py, r.iter().map(|s| s.posinf))?)?
        .set("neginf", PyList::new(py, r.iter().map(|s| s.neginf))?)?
        .set("zeros", PyList::new(py, r.iter().map(|s| s.zeros))?)?
        .set("finite", PyList::new(py, r.iter().map(|s| s.finite))?)?
        .set("min", PyList::new(py, r.iter().map(|s| s.min))?)?
        .set("max", PyList::new(py, r.iter().map(|s| s.max))?)?
        .set("mean", PyList::new(py, r.iter().map(|s| s.mean))?)?
        .set("std", PyList::new(py, r.iter().map(|s| s.std))?)?
        .set("abs_max", PyList::new(py, r.iter().map(|s| s.abs_max))?)?
        .set("l2", PyList::new(py, r.iter().map(|s| s.l2))?)?
        .set("int_min", PyList::new(py, r.iter().map(|s| s.int_min))?)?
        .set("int_max", PyList::new(py, r.iter().map(|s| s.int_max))?)?
        .set("int_sum", PyList::new(py, r.iter().map(|s| s.int_sum))?)?
        .set(
            "true_count",
            PyList::new(py, r.iter().map(|s| s.true_count))?,
        )?
        .set(
            "hash",
            PyList::new(py, r.iter().map(|s| s.hash.map(|h| format!("{h:032x}"))))?,
        )?
        .dict)
}

/// Statistics of the named readable tensors (all readable ones when `names` is None):
/// a dict of columns (`name` and every statistic, one row per tensor). `progress(done_bytes, total_bytes)` is called about every 100 ms.
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
    let mut total = 0u64;
    for name in &names {
        let (_, entry) = ckpt.entry(name).ok_or_else(|| {
            NativeError(Error::TensorNotFound {
                name: name.clone(),
                path: ckpt.path.clone(),
            })
        })?;
        if entry.dtype.is_none() || entry.numel().is_none() {
            return Err(NativeError(Error::InvalidArgument(format!(
                "tensor {name:?} has no valid dtype/shape"
            )))
            .into());
        }
        total = total.saturating_add(entry.range.map_or(0, |(b, e)| e.saturating_sub(b)));
    }
    let items: Vec<_> = names.iter().map(|n| (ckpt, n.as_str())).collect();
    let results = run_with_progress(py, total, progress.as_ref(), |p| {
        for_each_batch(&items, 1, threads, p, |_, fetched, context| {
            let tasks: Vec<StatsTask<'_>> = fetched
                .iter()
                .map(|f| StatsTask {
                    dtype: f.entry.dtype.unwrap_or(Dtype::U8),
                    numel: f.entry.numel().unwrap_or(0),
                    data: &f.data,
                })
                .collect();
            let opts = StatsOptions {
                threads,
                hash: hashes,
                release_pages: context.mapped,
                ..StatsOptions::default()
            };
            compute_stats(&tasks, &opts, context.progress)
        })
    });
    let results = reraise(&[checkpoint], results)?;
    stats_columns(py, &names, &results)
}
