//! `eagle3_inspect._native`: the thin PyO3 binding over `eagle3-inspect-core`.

use pyo3::prelude::*;

/// The native module.
#[pymodule]
mod _native {
    #[pymodule_export]
    const VERSION: &str = env!("CARGO_PKG_VERSION");
}
