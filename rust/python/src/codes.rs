//! `emitted_codes`: the finding codes the core can emit, so Python can check they are documented.

use pyo3::prelude::*;

/// `[(code, severity)]` for every ST, IX, PT and VM code the core can emit (severity as in JSON).
#[pyfunction]
pub fn emitted_codes() -> Vec<(&'static str, &'static str)> {
    eagle3_inspect_core::Code::ALL
        .iter()
        .map(|code| (code.as_str(), code.severity().as_str()))
        .collect()
}
