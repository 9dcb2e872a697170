//! `eagle3_inspect._native`: the thin PyO3 binding over `eagle3-inspect-core`.
//!
//! Every function releases the GIL (`py.detach`) around work that touches files or tensor data.

mod buffer;
mod checkpoint;
mod codes;
mod convert;
mod diff;
mod errors;
mod floor;
mod io;
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
    use crate::diff::{content_hashes, diff_pairs};
    #[pymodule_export]
    use crate::floor::sum_words;
    #[pymodule_export]
    use crate::io::{
        changed_tensors, check_threads, choose_weight_files, read_config_text,
        weight_files_for_index,
    };

    /// The most worker threads `threads=` / `--threads` accepts.
    #[pymodule_export]
    const MAX_THREADS: usize = eagle3_inspect_core::pool::MAX_THREADS;
    #[pymodule_export]
    use crate::records::{findings_json, tensor_records_json};
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
