//! File-level safety exported to Python: the capped reader for small files (config.json), the
//! thread-count limit, the IX011 check for tensors whose file shrank during a data pass, the
//! containment rule (`fix` copies side files under it), the nesting depth of untrusted JSON,
//! and which files of a folder are weights.

use crate::checkpoint::NativeCheckpoint;
use crate::convert::finding_dict;
use crate::errors::{NativeError, NativeResult};
use eagle3_inspect_core::regular::{read_capped_text, CONFIG_CAP};
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::path::PathBuf;

/// True when `path`, symlinks followed, lies inside the canonical directory `boundary` (or
/// cannot be resolved): the one rule every file of a local checkpoint is held to.
#[pyfunction]
pub fn resolves_inside(py: Python<'_>, path: PathBuf, boundary: PathBuf) -> bool {
    py.detach(|| eagle3_inspect_core::checkpoint::resolves_inside(&path, &boundary))
}

/// The deepest nesting of arrays and objects in the JSON text `data` (bytes), brackets inside
/// strings not counted; measured without parsing (GIL released).
#[pyfunction]
pub fn json_nesting(py: Python<'_>, data: &[u8]) -> usize {
    py.detach(|| eagle3_inspect_core::json_depth::nesting_depth(data))
}

/// True when `data` (bytes) is exactly one JSON value nesting at most MAX_JSON_DEPTH levels:
/// validated without building it (GIL released).
#[pyfunction]
pub fn json_complete(py: Python<'_>, data: &[u8]) -> bool {
    py.detach(|| eagle3_inspect_core::json_depth::is_complete_json(data))
}

/// The text of a small JSON file such as `config.json`: regular files only (a FIFO or device is
/// refused without blocking), at most 16 MiB. Raises InvalidCheckpointError / FileNotFoundError.
#[pyfunction]
pub fn read_config_text(py: Python<'_>, path: PathBuf) -> NativeResult<String> {
    Ok(py.detach(|| read_capped_text(&path, CONFIG_CAP))?)
}

/// IX011 findings (dicts) for those of `names` whose file shrank under them; ask after a data
/// pass and discard their results.
#[pyfunction]
pub fn changed_tensors<'py>(
    py: Python<'py>,
    checkpoint: &NativeCheckpoint,
    names: Vec<String>,
) -> PyResult<Bound<'py, PyList>> {
    let ckpt = &*checkpoint.inner;
    let found = py.detach(|| ckpt.changed_tensors(&names));
    let list = PyList::empty(py);
    for finding in &found {
        list.append(finding_dict(py, finding)?)?;
    }
    Ok(list)
}

/// Which of a folder's file `names` are its weights: `(files, index, skipped)` — the
/// `.safetensors` files and their index, or without them the torch files and
/// `pytorch_model.bin.index.json`; `skipped` are a trainer's side files left out. The rule a
/// local folder is read by, for Hub listings and cluster nodes.
#[pyfunction]
pub fn choose_weight_files(names: Vec<String>) -> (Vec<String>, Option<String>, Vec<String>) {
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let choice = eagle3_inspect_core::checkpoint::names::choose(&names);
    (choice.files, choice.index, choice.skipped)
}

/// The weights files beside the index file named `index` among `names` (files of its kind).
#[pyfunction]
pub fn weight_files_for_index(index: &str, names: Vec<String>) -> Vec<String> {
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    eagle3_inspect_core::checkpoint::names::files_for_index(index, &names)
}

/// Raises InvalidArgumentError for a thread count outside 1..=MAX_THREADS.
#[pyfunction]
#[pyo3(signature = (threads=None))]
pub fn check_threads(threads: Option<usize>) -> NativeResult<()> {
    eagle3_inspect_core::pool::check_threads(threads).map_err(NativeError)
}
