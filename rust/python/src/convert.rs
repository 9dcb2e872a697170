//! The binding's one marshalling style: every native function returns plain Python values -
//! dicts with string keys (interned, so a million records share one key object each), lists,
//! str, int, float, bool, None. A per-tensor table is a dict of columns (one list per field),
//! the cheapest shape for a million tensors. Also the conversions of core records (findings,
//! paths, serde values) into that form.

use eagle3_inspect_core::Finding;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use std::ffi::OsString;
use std::path::Path;

/// A path as the `str` Python code expects, losslessly: bytes that are not UTF-8 become lone
/// surrogates (Python's `os.fsdecode`, surrogateescape), so `os.fsencode` gives the exact name
/// back and `json.dumps` writes them as `\udcXX` escapes that reopen the file.
pub fn path_str(path: &Path) -> OsString {
    path.as_os_str().to_owned()
}

/// A dict being filled with interned keys.
pub struct Record<'py> {
    pub dict: Bound<'py, PyDict>,
}

impl<'py> Record<'py> {
    /// An empty record.
    pub fn new(py: Python<'py>) -> Self {
        Record {
            dict: PyDict::new(py),
        }
    }

    /// Sets `key` (interned: keys repeat across records) to `value`.
    pub fn set<V: IntoPyObject<'py>>(self, key: &str, value: V) -> PyResult<Self> {
        let py = self.dict.py();
        self.dict.set_item(PyString::intern(py, key), value)?;
        Ok(self)
    }
}

/// A finding as a dict with the keys of `eagle3_inspect.findings.Finding`.
pub fn finding_dict<'py>(py: Python<'py>, finding: &Finding) -> PyResult<Bound<'py, PyDict>> {
    Ok(Record::new(py)
        .set("code", finding.code.as_str())?
        .set("severity", finding.severity().as_str())?
        .set("message", &finding.message)?
        .set("file", finding.file.as_deref().map(path_str))?
        .set("tensor", finding.tensor.as_deref())?
        .set("offset", finding.offset)?
        .dict)
}

/// A serde value (from a core type's `Serialize`) as the plain Python value `json.loads` of its
/// JSON text would give.
pub fn json_value<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_pyobject(py)?.into_any(),
            (None, Some(i)) => i.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_value(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(PyString::intern(py, k), json_value(py, v)?)?;
            }
            dict.into_any()
        }
    })
}
