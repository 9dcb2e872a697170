//! Progress reporting and cooperative cancellation for long passes over tensor data.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Receives progress from a long operation and tells it whether to stop.
///
/// Implementations must be cheap: `advance` is called once per processed chunk (a few MB).
pub trait Progress: Sync {
    /// `bytes` more bytes of tensor data were processed.
    fn advance(&self, bytes: u64);
    /// True when the caller wants the operation to stop; it then returns [`crate::Error::Cancelled`].
    fn is_cancelled(&self) -> bool;
}

/// A [`Progress`] that ignores progress and never cancels.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn advance(&self, _bytes: u64) {}
    fn is_cancelled(&self) -> bool {
        false
    }
}

/// A [`Progress`] backed by atomics, for a caller that polls it from another thread.
#[derive(Debug, Default)]
pub struct AtomicProgress {
    done: AtomicU64,
    cancelled: AtomicBool,
}

impl AtomicProgress {
    /// Bytes processed so far.
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Asks the operation to stop at its next chunk boundary.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }
}

impl Progress for AtomicProgress {
    fn advance(&self, bytes: u64) {
        self.done.fetch_add(bytes, Ordering::Relaxed);
    }
    fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}
