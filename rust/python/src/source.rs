//! Ranged sources backed by Python callables, and `NativeCheckpoint.from_sources`: a checkpoint
//! whose files are read by `read(offset, length)` (HTTP range requests, another node).
//!
//! What a reader may return and raise (documented for users in `reader/source.py`):
//! - any bytes-like object (`bytes`, `bytearray`, `memoryview`, a C-contiguous array), taken
//!   as its raw bytes; anything else (`None`, `str`, ...) is a failed read naming the type;
//! - an `Exception` is a failed read whose text goes into the finding or error;
//! - `KeyboardInterrupt`, `SystemExit`, any other non-`Exception`, and `MemoryError` are not
//!   read failures: the first one is kept, every later read of the checkpoint fails at once
//!   without calling the reader, and the call that started the reads re-raises it.

use crate::checkpoint::NativeCheckpoint;
use crate::progress::run_with_progress;
use eagle3_inspect_core::checkpoint::Listing;
use eagle3_inspect_core::source::RangeSource;
use eagle3_inspect_core::Checkpoint;
use pyo3::exceptions::{PyException, PyMemoryError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

/// What the readers of one checkpoint share: the exception that must reach the caller.
#[derive(Debug, Default)]
pub(crate) struct Readers {
    fatal: Mutex<Option<PyErr>>,
}

impl Readers {
    fn has_failed(&self) -> bool {
        self.fatal
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// Keeps `err` unless an earlier one is kept.
    fn fail(&self, err: PyErr) {
        let mut fatal = self.fatal.lock().unwrap_or_else(PoisonError::into_inner);
        fatal.get_or_insert(err);
    }

    /// The kept exception, if any (taken: later reads call the reader again).
    pub(crate) fn take(&self) -> Option<PyErr> {
        self.fatal
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

/// Returns the exception a reader of any of `checkpoints` raised that must reach the caller,
/// in place of `result` (whose error then only says that a read failed), else `result`.
pub(crate) fn reraise<T>(checkpoints: &[&NativeCheckpoint], result: PyResult<T>) -> PyResult<T> {
    for ckpt in checkpoints {
        if let Some(err) = ckpt.readers.as_ref().and_then(|r| r.take()) {
            return Err(err);
        }
    }
    result
}

/// A file of `size` bytes read by calling `read(offset, length)`.
struct PyRangeSource {
    size: u64,
    read: Py<PyAny>,
    readers: Arc<Readers>,
}

impl std::fmt::Debug for PyRangeSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PyRangeSource")
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

/// True for an exception that is not a failed read: anything outside `Exception`
/// (KeyboardInterrupt, SystemExit) and MemoryError.
fn must_reach_caller(py: Python<'_>, err: &PyErr) -> bool {
    !err.is_instance_of::<PyException>(py) || err.is_instance_of::<PyMemoryError>(py)
}

/// The raw bytes of a bytes-like `answer`, or why it is not one.
fn answer_bytes(answer: &Bound<'_, PyAny>) -> Result<Vec<u8>, String> {
    if let Ok(bytes) = answer.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    if let Ok(array) = answer.cast::<PyByteArray>() {
        return Ok(array.to_vec());
    }
    let not_bytes = |e: PyErr| {
        let kind = answer
            .get_type()
            .name()
            .map_or("?".into(), |n| n.to_string());
        format!("the reader returned {kind}, not a bytes-like object ({e})")
    };
    // A memoryview cast to unsigned bytes: any C-contiguous buffer, whatever its item format,
    // copied out through `tobytes` (the limited API of Python 3.10 has no `Py_buffer` to read
    // it in place; bytes and bytearray, the usual answers, take the paths above).
    let flat = PyMemoryView::from(answer)
        .and_then(|view| view.call_method1("cast", ("B",)))
        .and_then(|view| view.call_method0("tobytes"))
        .map_err(not_bytes)?;
    let bytes = flat.cast::<PyBytes>().map_err(|e| not_bytes(e.into()))?;
    Ok(bytes.as_bytes().to_vec())
}

impl RangeSource for PyRangeSource {
    fn len(&self) -> u64 {
        self.size
    }

    /// Takes the GIL for the call only; a callable doing network I/O releases it while it waits,
    /// so reads from several worker threads overlap.
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, String> {
        if self.readers.has_failed() {
            return Err("not read: an earlier read was interrupted".into());
        }
        Python::attach(|py| match self.read.call1(py, (offset, len)) {
            Ok(answer) => answer_bytes(answer.bind(py)),
            Err(err) if must_reach_caller(py, &err) => {
                let why = format!("the read was interrupted ({err})");
                self.readers.fail(err);
                Err(why)
            }
            Err(err) => Err(err.to_string()),
        })
    }
}

/// One listed file as Python gives it: `(name, size, read)`.
pub(crate) type ListedFile = (String, u64, Py<PyAny>);

/// Opens the checkpoint `NativeCheckpoint.from_sources` describes: the header reads run on worker
/// threads with the GIL released while this thread polls for Ctrl-C, which stops further reads
/// at once (the call returns when the reads in flight do).
pub(crate) fn open_sources(
    py: Python<'_>,
    path: PathBuf,
    root: PathBuf,
    files: Vec<ListedFile>,
    index: Option<(String, String)>,
    config: Option<(String, String)>,
) -> PyResult<NativeCheckpoint> {
    let readers = Arc::new(Readers::default());
    let files = files
        .into_iter()
        .map(|(name, size, read)| {
            let source: Arc<dyn RangeSource> = Arc::new(PyRangeSource {
                size,
                read,
                readers: Arc::clone(&readers),
            });
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
    let opened = run_with_progress(py, 0, None, |progress| {
        Checkpoint::open_listing_with(listing, None, progress)
    });
    if let Some(err) = readers.take() {
        return Err(err);
    }
    Ok(NativeCheckpoint {
        inner: Arc::new(opened?),
        readers: Some(readers),
    })
}

/// Tests only: sets the most bytes of ranged tensor data a pass holds at once (0 restores the
/// default, 256 MiB) and returns the previous limit, so the bound is provable on a few MiB.
#[pyfunction]
pub fn _set_fetch_batch_bytes(bytes: u64) -> u64 {
    eagle3_inspect_core::fetch::set_batch_limit_for_tests(bytes)
}
