//! Ranged sources backed by Python callables, and `NativeCheckpoint.from_sources`: a checkpoint
//! whose files are read by `read(offset, length) -> bytes` (HTTP range requests, another node).

use crate::checkpoint::NativeCheckpoint;
use crate::errors::NativeResult;
use eagle3_inspect_core::checkpoint::Listing;
use eagle3_inspect_core::source::RangeSource;
use eagle3_inspect_core::Checkpoint;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;
use std::sync::Arc;

/// A file of `size` bytes read by calling `read(offset, length)`, which returns `bytes`.
struct PyRangeSource {
    size: u64,
    read: Py<PyAny>,
}

impl std::fmt::Debug for PyRangeSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PyRangeSource")
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl RangeSource for PyRangeSource {
    fn len(&self) -> u64 {
        self.size
    }

    /// Takes the GIL for the call only; a callable doing network I/O releases it while it waits,
    /// so reads from several worker threads overlap.
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, String> {
        Python::attach(|py| {
            let answer = self
                .read
                .call1(py, (offset, len))
                .map_err(|e| e.to_string())?;
            let bytes = answer.bind(py).cast::<PyBytes>().map_err(|_| {
                format!(
                    "the reader returned {}, not bytes",
                    answer
                        .bind(py)
                        .get_type()
                        .name()
                        .map_or("?".into(), |n| n.to_string())
                )
            })?;
            Ok(bytes.as_bytes().to_vec())
        })
    }
}

/// One listed file as Python gives it: `(name, size, read)`.
pub(crate) type ListedFile = (String, u64, Py<PyAny>);

/// Opens the checkpoint `NativeCheckpoint.from_sources` describes (GIL released).
pub(crate) fn open_sources(
    py: Python<'_>,
    path: PathBuf,
    root: PathBuf,
    files: Vec<ListedFile>,
    index: Option<(String, String)>,
    config: Option<(String, String)>,
) -> NativeResult<NativeCheckpoint> {
    let files = files
        .into_iter()
        .map(|(name, size, read)| {
            let source: Arc<dyn RangeSource> = Arc::new(PyRangeSource { size, read });
            (name, source)
        })
        .collect();
    let listing = Listing {
        path,
        root,
        files,
        index,
        config,
    };
    let inner = py.detach(|| Checkpoint::open_listing(listing))?;
    Ok(NativeCheckpoint {
        inner: Arc::new(inner),
    })
}
