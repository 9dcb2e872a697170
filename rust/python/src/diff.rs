//! `diff_pairs` and `content_hashes`: the numeric diff of matched tensor pairs from two
//! checkpoints and whole-tensor content hashes (for rename detection), GIL released, with
//! progress and Ctrl-C.

use crate::checkpoint::NativeCheckpoint;
use crate::convert::Record;
use crate::errors::NativeError;
use crate::progress::run_with_progress;
use eagle3_inspect_core::diff::{self, DiffOptions, PairDiff, PairSide, PairTask};
use eagle3_inspect_core::{Checkpoint, Error};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

fn pair_side<'a>(ckpt: &'a Checkpoint, name: &str) -> Result<PairSide<'a>, NativeError> {
    let (_, entry, data) = ckpt.tensor_bytes(name).map_err(NativeError)?;
    match (entry.dtype, entry.shape.as_deref()) {
        (Some(dtype), Some(shape)) => Ok(PairSide { dtype, shape, data }),
        _ => Err(NativeError(Error::InvalidArgument(format!(
            "tensor {name:?} has no valid dtype/shape"
        )))),
    }
}

fn diff_dict<'py>(py: Python<'py>, d: &PairDiff) -> PyResult<Bound<'py, PyDict>> {
    Ok(Record::new(py)
        .set("status", d.status.name())?
        .set("bytes_equal", d.bytes_equal)?
        .set("numel", d.numel)?
        .set("rtol", d.rtol)?
        .set("atol", d.atol)?
        .set("max_abs", d.max_abs)?
        .set("max_abs_index", d.max_abs_index)?
        .set("max_abs_at", d.max_abs_at.clone())?
        .set("mean_abs", d.mean_abs)?
        .set("rel_l2", d.rel_l2)?
        .set("cosine", d.cosine)?
        .set("mismatched", d.mismatched)?
        .set("nonfinite_mismatched", d.nonfinite_mismatched)?
        .dict)
}

/// Compares tensor `name_a` of `a` with `name_b` of `b` for each `(name_a, name_b)` in `pairs`:
/// one dict per pair, in order. `progress(done_bytes, total_bytes)` is called about every 100 ms.
#[pyfunction]
#[pyo3(signature = (a, b, pairs, *, rtol=None, atol=None, threads=None, progress=None))]
#[allow(clippy::too_many_arguments)]
pub fn diff_pairs<'py>(
    py: Python<'py>,
    a: &NativeCheckpoint,
    b: &NativeCheckpoint,
    pairs: Vec<(String, String)>,
    rtol: Option<f64>,
    atol: Option<f64>,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let (ca, cb) = (&*a.inner, &*b.inner);
    let mut tasks = Vec::with_capacity(pairs.len());
    for (na, nb) in &pairs {
        tasks.push(PairTask {
            a: pair_side(ca, na)?,
            b: pair_side(cb, nb)?,
        });
    }
    let total: u64 = tasks
        .iter()
        .map(|t| (t.a.data.len() + t.b.data.len()) as u64)
        .sum();
    let opts = DiffOptions {
        threads,
        rtol,
        atol,
        release_pages: true,
        ..DiffOptions::default()
    };
    let results = run_with_progress(py, total, progress.as_ref(), |p| {
        diff::compare_pairs(&tasks, &opts, p)
    })?;
    let out = PyList::empty(py);
    for d in &results {
        out.append(diff_dict(py, d)?)?;
    }
    Ok(out)
}

/// Content hashes (32 hex digits, equal to `tensor_stats(..., hashes=True)`'s) of the named
/// tensors: `{name: hash}`.
#[pyfunction]
#[pyo3(signature = (checkpoint, names, *, threads=None, progress=None))]
pub fn content_hashes<'py>(
    py: Python<'py>,
    checkpoint: &NativeCheckpoint,
    names: Vec<String>,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let ckpt = &*checkpoint.inner;
    let mut data = Vec::with_capacity(names.len());
    for name in &names {
        data.push(ckpt.tensor_bytes(name).map_err(NativeError)?.2);
    }
    let total: u64 = data.iter().map(|d| d.len() as u64).sum();
    let hashes = run_with_progress(py, total, progress.as_ref(), |p| {
        diff::content_hashes(&data, threads, true, p)
    })?;
    let out = PyDict::new(py);
    for (name, hash) in names.iter().zip(hashes) {
        out.set_item(name, format!("{hash:032x}"))?;
    }
    Ok(out)
}
