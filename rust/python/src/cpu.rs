//! Which vector kernels the statistics and diff passes run on this CPU (for `--version`).

use pyo3::prelude::*;

/// `"avx512"`, `"avx2"` or `"portable"`: detected at run time, the wheel targets the baseline CPU.
#[pyfunction]
pub fn kernel_level() -> &'static str {
    eagle3_inspect_core::elements::kernel_level()
}
