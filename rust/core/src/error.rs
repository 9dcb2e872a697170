//! The error type of the core library: conditions under which an operation could not run at all.
//!
//! Problems *inside* a readable checkpoint are not errors but [`crate::Finding`]s; an `Error`
//! means there was nothing (or not enough) to inspect.

use std::path::PathBuf;

/// Why an operation could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The path does not exist.
    #[error("{}: no such file or directory", path.display())]
    NotFound {
        /// The missing path.
        path: PathBuf,
    },
    /// The operating system refused an operation on a path.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path being read.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The path exists but is not something we can inspect (no safetensors files, unreadable index).
    #[error("{}: {reason}", path.display())]
    InvalidCheckpoint {
        /// The offending path.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A tensor was asked for by name and is not in the checkpoint.
    #[error("no tensor named {name:?} in {}", path.display())]
    TensorNotFound {
        /// The requested name.
        name: String,
        /// The checkpoint path.
        path: PathBuf,
    },
    /// A tensor's bytes cannot be read (its header entry is invalid or its range is outside the file).
    #[error("tensor {name:?} in {} (byte offset {offset}): {reason}", file.display())]
    TensorUnreadable {
        /// Tensor name.
        name: String,
        /// File holding it.
        file: PathBuf,
        /// Absolute byte offset of its data.
        offset: u64,
        /// Why it cannot be read.
        reason: String,
    },
    /// A caller-supplied argument is invalid.
    #[error("{0}")]
    InvalidArgument(String),
    /// The operation was cancelled through its [`crate::Progress`] handle.
    #[error("cancelled")]
    Cancelled,
}

impl Error {
    /// Wraps an I/O error with the path it happened on, mapping "not found" to [`Error::NotFound`].
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        if source.kind() == std::io::ErrorKind::NotFound {
            Error::NotFound { path }
        } else {
            Error::Io { path, source }
        }
    }
}

/// Result alias for the core library.
pub type Result<T> = std::result::Result<T, Error>;
