//! Structured findings: what the reader and the analyses report about a checkpoint.

use serde::Serialize;
use std::path::PathBuf;

/// How bad a finding is. Errors are facts that break loading or serving; warnings are
/// heuristics or risks; infos are observations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// An observation worth knowing.
    Info,
    /// A risk or a heuristic verdict.
    Warning,
    /// A fact that makes the checkpoint invalid or unusable.
    Error,
}

impl Severity {
    /// The lowercase name used in reports and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One problem or observation, with a stable code (`ST001`, `IX003`, ...) and a location.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable rule code; see the Python `eagle3_inspect.codes` catalogue.
    pub code: &'static str,
    /// Severity of this occurrence.
    pub severity: Severity,
    /// A human sentence with the concrete values involved.
    pub message: String,
    /// The file the finding is about, when there is one.
    pub file: Option<PathBuf>,
    /// The tensor the finding is about, when there is one.
    pub tensor: Option<String>,
    /// Absolute byte offset in `file` where the problem is, when meaningful.
    pub offset: Option<u64>,
}

impl Finding {
    /// A finding with no location yet; chain [`Finding::file`], [`Finding::tensor`], [`Finding::at`].
    pub fn new(code: &'static str, severity: Severity, message: impl Into<String>) -> Self {
        Finding {
            code,
            severity,
            message: message.into(),
            file: None,
            tensor: None,
            offset: None,
        }
    }

    /// Sets the file.
    pub fn file(mut self, file: impl Into<PathBuf>) -> Self {
        self.file = Some(file.into());
        self
    }

    /// Sets the tensor name.
    pub fn tensor(mut self, name: impl Into<String>) -> Self {
        self.tensor = Some(name.into());
        self
    }

    /// Sets the absolute byte offset.
    pub fn at(mut self, offset: u64) -> Self {
        self.offset = Some(offset);
        self
    }
}
