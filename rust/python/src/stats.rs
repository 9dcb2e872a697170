//! `NativeCheckpoint.stats`: per-tensor statistics and content hashes, GIL released, with
//! progress and Ctrl-C.

use crate::checkpoint::NativeCheckpoint;
use crate::convert::Record;
use crate::errors::NativeError;
use crate::progress::run_with_progress;
use crate::source::reraise;
use eagle3_inspect_core::checkpoint::Checkpoint;
use eagle3_inspect_core::fetch::for_each_batch;
use eagle3_inspect_core::header::TensorEntry;
use eagle3_inspect_core::stats::{compute_stats, StatsOptions, StatsTask, TensorStats};
use eagle3_inspect_core::{Dtype, Error};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

/// One column: a list of `field` over the results, or None when every value is None (a
/// million F32 tensors have no integer statistics: one None, not a million-slot list of them).
fn column<'py, T, F>(py: Python<'py>, r: &[TensorStats], field: F) -> PyResult<Bound<'py, PyAny>>
where
    T: IntoPyObject<'py>,
    F: Fn(&TensorStats) -> Option<T>,
{
    if r.iter().all(|s| field(s).is_none()) {
        return Ok(py.None().into_bound(py));
    }
    Ok(PyList::new(py, r.iter().map(field))?.into_any())
}

/// The results as columns, one per field in `TensorStats`'s (Python) field order, plus `name`
/// when `names` is given: a million tensors make 19 lists, not a million dicts. A column that
/// is None is None in every row.
pub(crate) fn stats_columns<'py>(
    py: Python<'py>,
    names: Option<&[String]>,
    r: &[TensorStats],
) -> PyResult<Bound<'py, PyDict>> {
    let mut record = Record::new(py);
    if let Some(names) = names {
        record = record.set("name", PyList::new(py, names)?)?;
    }
    // One interned string per dtype, not one string object per tensor.
    let dtypes = r.iter().map(|s| PyString::intern(py, s.dtype.name()));
    Ok(record
        .set("dtype", PyList::new(py, dtypes)?)?
        .set("numel", PyList::new(py, r.iter().map(|s| s.numel))?)?
        .set("nan", PyList::new(py, r.iter().map(|s| s.nan))?)?
        .set("posinf", PyList::new(py, r.iter().map(|s| s.posinf))?)?
        .set("neginf", PyList::new(py, r.iter().map(|s| s.neginf))?)?
        .set("zeros", PyList::new(py, r.iter().map(|s| s.zeros))?)?
        .set("finite", PyList::new(py, r.iter().map(|s| s.finite))?)?
        .set("min", column(py, r, |s| s.min)?)?
        .set("max", column(py, r, |s| s.max)?)?
        .set("mean", column(py, r, |s| s.mean)?)?
        .set("std", column(py, r, |s| s.std)?)?
        .set("abs_max", column(py, r, |s| s.abs_max)?)?
        .set("l2", column(py, r, |s| s.l2)?)?
        .set("int_min", column(py, r, |s| s.int_min)?)?
        .set("int_max", column(py, r, |s| s.int_max)?)?
        .set("int_sum", column(py, r, |s| s.int_sum)?)?
        .set("true_count", column(py, r, |s| s.true_count)?)?
        .set(
            "hash",
            column(py, r, |s| s.hash.map(|h| format!("{h:032x}")))?,
        )?
        .dict)
}

/// The named tensors, each checked to exist with a valid dtype and shape.
fn named<'c>(
    ckpt: &'c Checkpoint,
    names: &'c [String],
) -> Result<Vec<(&'c str, &'c TensorEntry)>, NativeError> {
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let (_, entry) = ckpt.entry(name).ok_or_else(|| {
            NativeError(Error::TensorNotFound {
                name: name.clone(),
                path: ckpt.path.clone(),
            })
        })?;
        if entry.dtype.is_none() || entry.numel().is_none() {
            return Err(NativeError(Error::InvalidArgument(format!(
                "tensor {name:?} has no valid dtype/shape"
            ))));
        }
        out.push((name.as_str(), entry));
    }
    Ok(out)
}

/// Every readable tensor with a valid dtype and shape, in name order, straight from the table
/// (no name looked up).
fn every_readable(ckpt: &Checkpoint) -> Vec<(&str, &TensorEntry)> {
    ckpt.tensors
        .iter()
        .filter_map(|(name, loc)| {
            let shard = ckpt.shards.get(loc.shard)?;
            let entry = shard.header.as_ref()?.tensors.get(loc.entry)?;
            let valid =
                shard.is_readable(entry) && entry.dtype.is_some() && entry.numel().is_some();
            valid.then_some((name.as_str(), entry))
        })
        .collect()
}

/// Statistics of the named readable tensors: a dict of columns (`name` and every statistic, one
/// row per tensor; a column of all None is None). With `names` None, of every readable tensor in
/// name order, and without the `name` column (the caller has the table's names: no million
/// strings made twice). `progress(done_bytes, total_bytes)` is called about every 100 ms.
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
    let selected = match &names {
        Some(names) => named(ckpt, names)?,
        None => every_readable(ckpt),
    };
    let total = selected.iter().fold(0u64, |total, (_, entry)| {
        total.saturating_add(entry.nbytes().unwrap_or(0))
    });
    let items: Vec<_> = selected.iter().map(|(n, _)| (ckpt, *n)).collect();
    let results = run_with_progress(py, total, progress.as_ref(), |p| {
        // A part at a time: the per-tensor working memory of a pass (fetched slices, chunk
        // partials, results) is then a few MB reused part after part, where a million-tensor
        // header in one go would fault in and free hundreds of MB of fresh pages.
        let mut all = Vec::with_capacity(items.len());
        for part in items.chunks(STATS_PART) {
            all.extend(stats_part(part, hashes, threads, p)?);
        }
        Ok(all)
    });
    let results = reraise(&[checkpoint], results)?;
    stats_columns(py, names.as_deref(), &results)
}

/// Tensors per part of a stats pass (see `tensor_stats`).
const STATS_PART: usize = 1 << 15;

/// Statistics of one part of the pass's tensors.
fn stats_part(
    items: &[(&Checkpoint, &str)],
    hashes: bool,
    threads: Option<usize>,
    p: &dyn eagle3_inspect_core::progress::Progress,
) -> Result<Vec<TensorStats>, Error> {
    for_each_batch(items, 1, threads, p, |_, fetched, context| {
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
}
