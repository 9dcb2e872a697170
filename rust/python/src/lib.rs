//! `eagle3_inspect._native`: the thin PyO3 binding over `eagle3-inspect-core`.
//!
//! Every function releases the GIL (`py.detach`) around work that touches files or tensor data.
//!
//! Built for the stable ABI (pyo3 `abi3-py310`): one wheel per platform serves every CPython
//! from 3.10 on, so this crate may use only what Python 3.10's limited API has (pyo3 then hides
//! the rest, and `cargo check` fails on it). Not available, and what to do instead:
//! - the buffer protocol (`__getbuffer__`, `pyo3::buffer::PyBuffer`, `Py_buffer`; 3.11+):
//!   export bytes through numpy's `__array_interface__` (`buffer.rs`), take them in as
//!   `bytes` / `bytearray` or through `memoryview.tobytes()` (`source.rs`);
//! - CPython internals: `pyo3::ffi::cpython`, the item macros behind `get_item_unchecked` and
//!   `PyTuple::as_slice`, `PyString::data`: use the checked `Bound` APIs (item access is then a
//!   function call, not a macro: in per-tensor loops build columns, not objects per item);
//! - anything pyo3 gates on `#[cfg(Py_3_11)]` or later compiles to nothing here.
//!
//! `docs/install.md` ("The stable ABI") says the same for contributors.

mod buffer;
mod checkpoint;
mod codes;
mod convert;
mod cpu;
mod diff;
mod errors;
mod floor;
mod io;
mod json_text;
mod progress;
mod records;
mod source;
mod stats;
mod vocab;
mod write;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
mod _native {
    use super::*;

    #[pymodule_export]
    const VERSION: &str = env!("CARGO_PKG_VERSION");

    #[pymodule_export]
    use crate::buffer::TensorBuffer;
    #[pymodule_export]
    use crate::checkpoint::NativeCheckpoint;
    #[pymodule_export]
    use crate::codes::emitted_codes;
    #[pymodule_export]
    use crate::cpu::kernel_level;
    #[pymodule_export]
    use crate::diff::{content_hashes, diff_pairs};
    #[pymodule_export]
    use crate::floor::sum_words;
    #[pymodule_export]
    use crate::io::{
        changed_tensors, check_threads, choose_weight_files, json_complete, json_nesting,
        read_config_text, resolves_inside, weight_files_for_index,
    };

    /// The deepest JSON nesting accepted in any file or answer read (config, index, model info).
    #[pymodule_export]
    const MAX_JSON_DEPTH: usize = eagle3_inspect_core::json_depth::MAX_JSON_DEPTH;
    /// The most shard files one checkpoint may have (local or remote).
    #[pymodule_export]
    const MAX_SHARDS: usize = eagle3_inspect_core::checkpoint::MAX_SHARDS;

    /// The most worker threads `threads=` / `--threads` accepts.
    #[pymodule_export]
    const MAX_THREADS: usize = eagle3_inspect_core::pool::MAX_THREADS;
    #[pymodule_export]
    use crate::records::{records_json, tensor_rows_json};
    #[pymodule_export]
    use crate::source::_set_fetch_batch_bytes;
    #[pymodule_export]
    use crate::stats::tensor_stats;
    #[pymodule_export]
    use crate::vocab::{compare_vocab, vocab_mapping};
    #[pymodule_export]
    use crate::write::{sync_dir, write_safetensors};

    #[pymodule_init]
    fn init(module: &Bound<'_, PyModule>) -> PyResult<()> {
        errors::register(module)
    }
}
