//! `NativeCheckpoint`: an opened checkpoint as Python sees it (header-level facts, findings,
//! zero-copy tensor buffers). The Python `eagle3_inspect.Checkpoint` wraps it.

use crate::buffer::TensorBuffer;
use crate::convert::{finding_dict, path_str, Record};
use crate::errors::NativeResult;
use crate::source::{open_sources, reraise, ListedFile, Readers};
use eagle3_inspect_core::torch::Format;
use eagle3_inspect_core::Checkpoint;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

/// An opened checkpoint.
#[pyclass(frozen, module = "eagle3_inspect._native", name = "NativeCheckpoint")]
pub struct NativeCheckpoint {
    pub(crate) inner: Arc<Checkpoint>,
    /// For a checkpoint of Python readers: what they share (see `source.rs`).
    pub(crate) readers: Option<Arc<Readers>>,
}

#[pymethods]
impl NativeCheckpoint {
    /// Opens the checkpoint at `path` (headers only; the GIL is released meanwhile).
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> NativeResult<Self> {
        let inner = py.detach(|| Checkpoint::open(&path))?;
        Ok(NativeCheckpoint {
            inner: Arc::new(inner),
            readers: None,
        })
    }

    /// Opens a checkpoint whose files are `(name, size, read)` triples, `read(offset, length)`
    /// returning exactly `length` bytes (or raising). `index` and `config` are `(name, text)`.
    /// Reads the headers only (GIL released; `read` is called from worker threads).
    #[staticmethod]
    #[pyo3(signature = (path, root, files, index=None, config=None))]
    fn from_sources(
        py: Python<'_>,
        path: PathBuf,
        root: PathBuf,
        files: Vec<ListedFile>,
        index: Option<(String, String)>,
        config: Option<(String, String)>,
    ) -> PyResult<Self> {
        open_sources(py, path, root, files, index, config)
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

    /// The directory every file of the checkpoint resolves inside (canonical): the root, or for
    /// a Hugging Face cache snapshot its `models--org--name` repository; the root as shown for a
    /// checkpoint of sources.
    #[getter]
    fn boundary(&self) -> OsString {
        path_str(&self.inner.file_set.boundary)
    }

    /// The sharding index file, when there is one.
    #[getter]
    fn index_path(&self) -> Option<OsString> {
        self.inner.file_set.index.as_deref().map(path_str)
    }

    /// `config.json` beside the weights: `{"path", "text"}`, or None.
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let (Some(path), Some(text)) = (&self.inner.file_set.config, &self.inner.config_text)
        else {
            return Ok(None);
        };
        Ok(Some(
            Record::new(py)
                .set("path", path_str(path))?
                .set("text", text)?
                .dict,
        ))
    }

    /// One dict per opened file: path, format, bytes, tensors, header_bytes, data_offset,
    /// metadata (for a torch file: header_bytes is the pickle's length, data_offset None).
    #[getter]
    fn files<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for shard in &self.inner.shards {
            let header = shard.header.as_ref();
            let safetensors = shard.format == Format::Safetensors;
            let record = Record::new(py)
                .set("path", path_str(&shard.path))?
                .set("format", shard.format.name())?
                .set("bytes", shard.file_len)?
                .set("tensors", header.map_or(0, |h| h.tensors.len()))?
                .set("header_bytes", header.map(|h| h.header_len))?
                .set("data_offset", shard.data_start().filter(|_| safetensors))?
                .set("metadata", header.and_then(|h| h.metadata.clone()))?;
            list.append(record.dict)?;
        }
        Ok(list)
    }

    /// Logical tensors in name order, as a dict of columns (one list per field, row i of each
    /// is tensor i): name, dtype, shape, nbytes, file, offset, readable. `dtype` is the header
    /// spelling (unknown dtypes as written); `shape`/`nbytes` may be None for invalid entries.
    /// Columns, not a record per tensor: a million-tensor header crosses in a fraction of the
    /// time and memory, and each file path and dtype is one shared string.
    #[getter]
    fn tensors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let ckpt = &*self.inner;
        // Lossless file names (surrogateescape for non-UTF-8 bytes), one shared string per file.
        let mut files: Vec<Bound<'py, PyString>> = Vec::with_capacity(ckpt.shards.len());
        for shard in &ckpt.shards {
            files.push(path_str(&shard.path).into_pyobject(py)?);
        }
        let n = ckpt.tensors.len();
        let (mut names, mut dtypes, mut shapes) = (vec![], vec![], vec![]);
        let (mut nbytes, mut file, mut offsets, mut readable) = (vec![], vec![], vec![], vec![]);
        for v in [&mut names, &mut dtypes, &mut shapes, &mut nbytes, &mut file] {
            v.reserve(n);
        }
        for (name, loc) in &ckpt.tensors {
            let Some(shard) = ckpt.shards.get(loc.shard) else {
                continue;
            };
            let Some(entry) = shard.header.as_ref().and_then(|h| h.tensors.get(loc.entry)) else {
                continue;
            };
            names.push(PyString::new(py, name).into_any());
            dtypes.push(PyString::intern(py, &entry.dtype_name).into_any());
            // A tuple, as TensorInfo keeps it: no list built per tensor only to be copied.
            shapes.push(match entry.shape.as_deref() {
                Some(dims) => PyTuple::new(py, dims)?.into_any(),
                None => py.None().into_bound(py),
            });
            nbytes.push(entry.nbytes().into_pyobject(py)?.into_any());
            file.push(files[loc.shard].clone().into_any());
            offsets.push(
                shard
                    .data_start()
                    .unwrap_or(0)
                    .saturating_add(entry.range.map_or(0, |r| r.0)),
            );
            readable.push(entry.readable);
        }
        Ok(Record::new(py)
            .set("name", PyList::new(py, names)?)?
            .set("dtype", PyList::new(py, dtypes)?)?
            .set("shape", PyList::new(py, shapes)?)?
            .set("nbytes", PyList::new(py, nbytes)?)?
            .set("file", PyList::new(py, file)?)?
            .set("offset", PyList::new(py, offsets)?)?
            .set("readable", PyList::new(py, readable)?)?
            .dict)
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

    /// A zero-copy read-only buffer over a tensor's bytes. For a ranged source, or a torch
    /// view whose values are materialized (strided, big-endian, deflated), the bytes are read
    /// now (GIL released) and the buffer owns them.
    fn buffer(&self, py: Python<'_>, name: &str) -> PyResult<TensorBuffer> {
        let ckpt = &*self.inner;
        let read = py.detach(|| -> NativeResult<Option<Vec<u8>>> {
            let (_, _, data) = ckpt.tensor_bytes(name)?;
            Ok(match data {
                std::borrow::Cow::Owned(bytes) => Some(bytes),
                std::borrow::Cow::Borrowed(_) => None,
            })
        });
        let read = reraise(&[self], read.map_err(PyErr::from))?;
        Ok(TensorBuffer::new(
            Arc::clone(&self.inner),
            name.to_owned(),
            read,
        ))
    }
}

impl NativeCheckpoint {
    /// `names`, or every readable tensor in name order when `None`.
    pub(crate) fn names_or_readable(&self, names: Option<Vec<String>>) -> Vec<String> {
        names.unwrap_or_else(|| {
            let ckpt = &self.inner;
            ckpt.tensors
                .keys()
                .filter(|n| ckpt.is_readable(n))
                .cloned()
                .collect()
        })
    }
}
