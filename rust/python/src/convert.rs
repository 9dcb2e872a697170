//! Conversions of core records (findings, paths) into plain Python values.

use eagle3_inspect_core::Finding;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::ffi::OsString;
use std::path::Path;

/// A path as the `str` Python code expects, losslessly: bytes that are not UTF-8 become lone
/// surrogates (Python's `os.fsdecode`, surrogateescape), so `os.fsencode` gives the exact name
/// back and `json.dumps` writes them as `\udcXX` escapes that reopen the file.
pub fn path_str(path: &Path) -> OsString {
    path.as_os_str().to_owned()
}

/// A finding as a dict with the keys of `eagle3_inspect.findings.Finding`.
pub fn finding_dict<'py>(py: Python<'py>, finding: &Finding) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("code", finding.code)?;
    dict.set_item("severity", finding.severity.as_str())?;
    dict.set_item("message", &finding.message)?;
    dict.set_item("file", finding.file.as_deref().map(path_str))?;
    dict.set_item("tensor", finding.tensor.as_deref())?;
    dict.set_item("offset", finding.offset)?;
    Ok(dict)
}
