//! d2t/t2d analysis bindings: `vocab_mapping` for one checkpoint and `compare_vocab` for two.
//! Results cross as plain dicts, converted from the core types' `Serialize` form.

use crate::checkpoint::NativeCheckpoint;
use crate::convert::json_value;
use crate::errors::NativeError;
use crate::source::reraise;
use eagle3_inspect_core::fetch::Fetched;
use eagle3_inspect_core::vocab::{
    analyze_vocab, compare_mappings, RawTensor, VocabAnalysis, VocabInputs,
};
use eagle3_inspect_core::{Checkpoint, Error};
use pyo3::prelude::*;

/// A tensor's bytes for the analysis: `None` when it is absent or its entry is unreadable (the
/// ST findings say why); a failed ranged read is an error, never a silently missing tensor.
fn fetch<'a>(ckpt: &'a Checkpoint, name: &str) -> Result<Option<Fetched<'a>>, NativeError> {
    match ckpt.entry(name) {
        Some((shard, entry)) if shard.is_readable(entry) => {
            let (shard, entry, data) = ckpt.tensor_bytes(name).map_err(NativeError)?;
            Ok(Some(Fetched { shard, entry, data }))
        }
        _ => Ok(None),
    }
}

fn raw<'a>(name: &str, fetched: Option<&'a Fetched<'_>>) -> Option<RawTensor<'a>> {
    let f = fetched?;
    Some(RawTensor {
        name: name.to_owned(),
        dtype: f.entry.dtype?,
        shape: f.entry.shape.clone()?,
        data: &f.data,
        file: Some(f.shard.path.clone()),
    })
}

fn analyze(
    ckpt: &Checkpoint,
    draft_vocab: Option<u64>,
    target_vocab: Option<u64>,
    d2t: &str,
    t2d: &str,
) -> Result<VocabAnalysis, NativeError> {
    let (d2t_bytes, t2d_bytes) = (fetch(ckpt, d2t)?, fetch(ckpt, t2d)?);
    Ok(analyze_vocab(&VocabInputs {
        d2t: raw(d2t, d2t_bytes.as_ref()),
        t2d: raw(t2d, t2d_bytes.as_ref()),
        draft_vocab,
        target_vocab,
    }))
}

fn to_value<T: serde::Serialize>(value: &T) -> Result<serde_json::Value, NativeError> {
    serde_json::to_value(value).map_err(|e| {
        NativeError(Error::InvalidArgument(format!(
            "cannot serialise analysis: {e}"
        )))
    })
}

/// The vocab-mapping analysis of one checkpoint, as a dict.
#[pyfunction]
#[pyo3(signature = (checkpoint, *, draft_vocab=None, target_vocab=None, d2t="d2t", t2d="t2d"))]
pub fn vocab_mapping<'py>(
    py: Python<'py>,
    checkpoint: &NativeCheckpoint,
    draft_vocab: Option<u64>,
    target_vocab: Option<u64>,
    d2t: &str,
    t2d: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let ckpt = &*checkpoint.inner;
    let value = py.detach(|| to_value(&analyze(ckpt, draft_vocab, target_vocab, d2t, t2d)?));
    let value = reraise(&[checkpoint], value.map_err(PyErr::from))?;
    json_value(py, &value)
}

/// Both analyses and their mapping comparison, as a dict `{"a", "b", "comparison"}`.
/// `vocab_a`/`vocab_b` are `(draft_vocab, target_vocab)` and `names_a`/`names_b` the `(d2t, t2d)`
/// tensor names of each side.
#[pyfunction]
#[pyo3(signature = (a, b, *, vocab_a=(None, None), vocab_b=(None, None), names_a=("d2t".to_owned(), "t2d".to_owned()), names_b=("d2t".to_owned(), "t2d".to_owned())))]
#[allow(clippy::too_many_arguments)]
pub fn compare_vocab<'py>(
    py: Python<'py>,
    a: &NativeCheckpoint,
    b: &NativeCheckpoint,
    vocab_a: (Option<u64>, Option<u64>),
    vocab_b: (Option<u64>, Option<u64>),
    names_a: (String, String),
    names_b: (String, String),
) -> PyResult<Bound<'py, PyAny>> {
    let (ca, cb) = (&*a.inner, &*b.inner);
    let value = py.detach(|| {
        let left = analyze(ca, vocab_a.0, vocab_a.1, &names_a.0, &names_a.1)?;
        let right = analyze(cb, vocab_b.0, vocab_b.1, &names_b.0, &names_b.1)?;
        let comparison = compare_mappings(&left, &right);
        to_value(&serde_json::json!({"a": left, "b": right, "comparison": comparison}))
    });
    let value = reraise(&[a, b], value.map_err(PyErr::from))?;
    json_value(py, &value)
}
