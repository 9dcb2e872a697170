//! `diff_pairs` and `content_hashes`: the numeric diff of matched tensor pairs from two
//! checkpoints and whole-tensor content hashes (for rename detection), GIL released, with
//! progress and Ctrl-C.

use crate::checkpoint::NativeCheckpoint;
use crate::convert::Record;
use crate::errors::NativeError;
use crate::progress::run_with_progress;
use crate::source::reraise;
use eagle3_inspect_core::diff::{self, DiffOptions, PairDiff, PairSide, PairTask};
use eagle3_inspect_core::fetch::{for_each_batch, Fetched};
use eagle3_inspect_core::{Checkpoint, Dtype, Error};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The declared byte length of a tensor with a valid dtype and shape, or the error diff gives.
fn checked_len(ckpt: &Checkpoint, name: &str) -> Result<u64, NativeError> {
    let (_, entry) = ckpt.entry(name).ok_or_else(|| {
        NativeError(Error::TensorNotFound {
            name: name.to_owned(),
            path: ckpt.path.clone(),
        })
    })?;
    if entry.dtype.is_none() || entry.shape.is_none() {
        return Err(NativeError(Error::InvalidArgument(format!(
            "tensor {name:?} has no valid dtype/shape"
        ))));
    }
    Ok(entry.nbytes().unwrap_or(0))
}

fn pair_side<'a>(fetched: &'a Fetched<'_>) -> PairSide<'a> {
    PairSide {
        dtype: fetched.entry.dtype.unwrap_or(Dtype::U8),
        shape: fetched.entry.shape.as_deref().unwrap_or(&[]),
        data: &fetched.data,
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
    let mut total = 0u64;
    let mut items = Vec::with_capacity(2 * pairs.len());
    for (na, nb) in &pairs {
        total = total
            .saturating_add(checked_len(ca, na)?)
            .saturating_add(checked_len(cb, nb)?);
        items.push((ca, na.as_str()));
        items.push((cb, nb.as_str()));
    }
    let results = run_with_progress(py, total, progress.as_ref(), |p| {
        for_each_batch(&items, 2, threads, p, |_, fetched, context| {
            let tasks: Vec<PairTask<'_>> = fetched
                .chunks(2)
                .map(|pair| PairTask {
                    a: pair_side(&pair[0]),
                    b: pair_side(&pair[1]),
                })
                .collect();
            let opts = DiffOptions {
                threads,
                rtol,
                atol,
                release_pages: context.mapped,
                ..DiffOptions::default()
            };
            diff::compare_pairs(&tasks, &opts, context.progress)
        })
    });
    let results = reraise(&[a, b], results)?;
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
    let mut total = 0u64;
    for name in &names {
        let (_, entry) = ckpt.entry(name).ok_or_else(|| {
            NativeError(Error::TensorNotFound {
                name: name.clone(),
                path: ckpt.path.clone(),
            })
        })?;
        total = total.saturating_add(entry.nbytes().unwrap_or(0));
    }
    let items: Vec<_> = names.iter().map(|n| (ckpt, n.as_str())).collect();
    let hashes = run_with_progress(py, total, progress.as_ref(), |p| {
        for_each_batch(&items, 1, threads, p, |_, fetched, context| {
            let data: Vec<&[u8]> = fetched.iter().map(|f| &*f.data).collect();
            diff::content_hashes(&data, threads, context.mapped, context.progress)
        })
    });
    let hashes = reraise(&[checkpoint], hashes)?;
    let out = PyDict::new(py);
    for (name, hash) in names.iter().zip(hashes) {
        out.set_item(name, format!("{hash:032x}"))?;
    }
    Ok(out)
}
