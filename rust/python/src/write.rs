//! Writing safetensors files for `fix`: tensors copied from source shards' memory maps plus a few
//! small owned tensors, each verified against its source as it is written (see the core `write`
//! module), with the statistics of the written bytes.

use crate::convert::Record;
use crate::errors::NativeResult;
use crate::progress::run_with_progress;
use crate::stats::stats_columns;
use eagle3_inspect_core::stats::TensorStats;
use eagle3_inspect_core::write::{self, CopiedTensor, OwnedTensor, WriteOptions};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Writes `dest` (must not exist), verifying every tensor as it is written, and fsyncs it.
/// `copied` is `[(name, source_file, source_name)]`, `owned` is `[(name, dtype, shape, bytes)]`.
/// Returns `{"size": int, "tensors": [{"name", "source_file", "source_name", "problem"}],
/// "stats": columns}`: `problem` is None when the bytes read back under that name are the
/// source's, `stats` the statistics columns (with `name`) of the bytes read back, as
/// `tensor_stats` gives them. The GIL is released while bytes are copied; Ctrl-C stops the pass.
#[pyfunction]
#[pyo3(signature = (dest, copied, owned, metadata=None, *, threads=None))]
pub fn write_safetensors<'py>(
    py: Python<'py>,
    dest: PathBuf,
    copied: Vec<(String, PathBuf, String)>,
    owned: Vec<(String, String, Vec<u64>, Bound<'py, PyBytes>)>,
    metadata: Option<BTreeMap<String, String>>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let copied: Vec<CopiedTensor> = copied
        .into_iter()
        .map(|(name, file, source_name)| CopiedTensor {
            name,
            file,
            source_name,
        })
        .collect();
    let owned: Vec<OwnedTensor> = owned
        .into_iter()
        .map(|(name, dtype, shape, data)| OwnedTensor {
            name,
            dtype,
            shape,
            data: data.as_bytes().to_vec(),
        })
        .collect();
    let opts = WriteOptions { threads };
    let report = run_with_progress(py, 0, None, |p| {
        write::write_file(&dest, &copied, &owned, metadata, &opts, p)
    })?;
    let tensors = PyList::empty(py);
    let (mut names, mut stats): (Vec<String>, Vec<TensorStats>) = (Vec::new(), Vec::new());
    for t in report.tensors {
        let (file, source) = t.source.unzip();
        tensors.append(
            Record::new(py)
                .set("name", &t.name)?
                .set("source_file", file)?
                .set("source_name", source)?
                .set("problem", t.problem)?
                .dict,
        )?;
        if let Some(s) = t.stats {
            names.push(t.name);
            stats.push(s);
        }
    }
    Ok(Record::new(py)
        .set("size", report.size)?
        .set("tensors", tensors)?
        .set("stats", stats_columns(py, Some(&names), &stats)?)?
        .dict)
}

/// fsyncs a directory so the entries created in it are durable.
#[pyfunction]
pub fn sync_dir(py: Python<'_>, path: PathBuf) -> NativeResult<()> {
    Ok(py.detach(|| write::sync_dir(&path))?)
}
