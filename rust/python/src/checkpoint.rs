//! `NativeCheckpoint`: an opened checkpoint as Python sees it (header-level facts, findings,
//! zero-copy tensor buffers). The Python `eagle3_inspect.Checkpoint` wraps it.

use crate::buffer::TensorBuffer;
use crate::convert::{finding_dict, path_str};
use crate::errors::NativeResult;
use eagle3_inspect_core::Checkpoint;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

/// One row of `NativeCheckpoint.tensors`: name, dtype, shape, nbytes, file, offset, readable.
type TensorRow = (
    String,
    String,
    Option<Vec<u64>>,
    Option<u64>,
    OsString,
    u64,
    bool,
);

/// An opened checkpoint.
#[pyclass(frozen, module = "eagle3_inspect._native", name = "NativeCheckpoint")]
pub struct NativeCheckpoint {
    pub(crate) inner: Arc<Checkpoint>,
}

#[pymethods]
impl NativeCheckpoint {
    /// Opens the checkpoint at `path` (headers only; the GIL is released meanwhile).
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> NativeResult<Self> {
        let inner = py.detach(|| Checkpoint::open(&path))?;
        Ok(NativeCheckpoint {
            inner: Arc::new(inner),
        })
    }

    /// The path as given.
    #[getter]
    fn path(&self) -> OsString {
        path_str(&self.inner.path)
    }

    /// The directory holding the weights.
    #[getter]
    fn root(&self) -> OsString {
        path_str(&self.inner.file_set.root)
    }

    /// The sharding index file, when there is one.
    #[getter]
    fn index_path(&self) -> Option<OsString> {
        self.inner.file_set.index.as_deref().map(path_str)
    }

    /// `config.json` beside the weights: `(path, text)`, or None.
    #[getter]
    fn config(&self) -> Option<(OsString, String)> {
        let path = self.inner.file_set.config.as_deref()?;
        Some((path_str(path), self.inner.config_text.clone()?))
    }

    /// One dict per opened file: path, bytes, tensors, header_bytes, data_offset, metadata.
    #[getter]
    fn files<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for shard in &self.inner.shards {
            let dict = PyDict::new(py);
            dict.set_item("path", path_str(&shard.path))?;
            dict.set_item("bytes", shard.file_len)?;
            dict.set_item(
                "tensors",
                shard.header.as_ref().map_or(0, |h| h.tensors.len()),
            )?;
            dict.set_item("header_bytes", shard.header.as_ref().map(|h| h.header_len))?;
            dict.set_item("data_offset", shard.data_start())?;
            dict.set_item(
                "metadata",
                shard.header.as_ref().and_then(|h| h.metadata.clone()),
            )?;
            list.append(dict)?;
        }
        Ok(list)
    }

    /// Logical tensors in name order: `(name, dtype, shape, nbytes, file, offset, readable)`.
    /// `dtype` is the header spelling (unknown dtypes as written); `shape`/`nbytes` may be None
    /// for invalid entries.
    #[getter]
    fn tensors(&self) -> Vec<TensorRow> {
        self.inner
            .tensors
            .keys()
            .filter_map(|name| {
                let (shard, entry) = self.inner.entry(name)?;
                let offset = shard
                    .data_start()
                    .unwrap_or(0)
                    .saturating_add(entry.range.map_or(0, |r| r.0));
                Some((
                    name.clone(),
                    entry.dtype_name.clone(),
                    entry.shape.clone(),
                    entry.nbytes(),
                    path_str(&shard.path),
                    offset,
                    entry.readable,
                ))
            })
            .collect()
    }

    /// Every ST and IX finding, as dicts.
    #[getter]
    fn findings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for finding in &self.inner.findings {
            list.append(finding_dict(py, finding)?)?;
        }
        Ok(list)
    }

    /// The union of the files' `__metadata__` maps.
    #[getter]
    fn metadata(&self) -> BTreeMap<String, String> {
        let mut merged = BTreeMap::new();
        for shard in &self.inner.shards {
            if let Some(meta) = shard.header.as_ref().and_then(|h| h.metadata.as_ref()) {
                merged.extend(meta.clone());
            }
        }
        merged
    }

    /// A zero-copy read-only buffer over a tensor's bytes.
    fn buffer(&self, name: &str) -> NativeResult<TensorBuffer> {
        self.inner.tensor_bytes(name)?;
        Ok(TensorBuffer::new(Arc::clone(&self.inner), name.to_owned()))
    }
}

impl NativeCheckpoint {
    /// `names`, or every readable tensor in name order when `None`.
    pub(crate) fn names_or_readable(&self, names: Option<Vec<String>>) -> Vec<String> {
        names.unwrap_or_else(|| {
            let ckpt = &self.inner;
            ckpt.tensors
                .keys()
                .filter(|n| ckpt.tensor_bytes(n).is_ok())
                .cloned()
                .collect()
        })
    }
}
