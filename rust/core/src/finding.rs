//! Structured findings: what the reader and the analyses report about a checkpoint.

use crate::codes::Code;
use serde::ser::{Serialize, SerializeStruct, Serializer};
use std::path::PathBuf;

/// How bad a finding is. Errors are facts that break loading or serving; warnings are
/// heuristics or risks; infos are observations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

/// One problem or observation, with a stable code (`ST001`, `IX003`, ...) and a location. Its
/// severity is its code's (see the Python `eagle3_inspect.registry`, and `rules CODE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Stable rule code.
    pub code: Code,
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
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Finding {
            code,
            message: message.into(),
            file: None,
            tensor: None,
            offset: None,
        }
    }

    /// The code's severity.
    pub fn severity(&self) -> Severity {
        self.code.severity()
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

impl Serialize for Finding {
    /// code, severity, message, file, tensor, offset: a finding as every report writes it.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut record = serializer.serialize_struct("Finding", 6)?;
        record.serialize_field("code", &self.code)?;
        record.serialize_field("severity", self.severity().as_str())?;
        record.serialize_field("message", &self.message)?;
        record.serialize_field("file", &self.file)?;
        record.serialize_field("tensor", &self.tensor)?;
        record.serialize_field("offset", &self.offset)?;
        record.end()
    }
}
