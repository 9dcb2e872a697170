//! Fields repeated inside one tensor entry (`{"dtype":"F32","dtype":"I8",...}`). serde's derived
//! struct parse in the reference rejects a repeated known field; a map-based reader silently keeps
//! the last, so the two would disagree about the tensor's type, shape or bytes.

use super::json::{file_offset_of, Entries};
use crate::finding::{Finding, Severity};
use serde_json::value::RawValue;
use std::path::Path;

/// The fields the reference's `TensorInfo` declares; repeating any other key is accepted there.
const KNOWN_FIELDS: [&str; 3] = ["dtype", "shape", "data_offsets"];

/// Reports ST023 for every repeat of a known field inside the tensor entry `value`.
pub(super) fn report_repeated_fields(
    text: &str,
    name: &str,
    value: &RawValue,
    path: &Path,
    findings: &mut Vec<Finding>,
) {
    if !value.get().starts_with('{') {
        return;
    }
    // The header already decoded in full, so this parse of a sub-object cannot fail.
    let Ok(Entries(fields)) = serde_json::from_str::<Entries<'_>>(value.get()) else {
        return;
    };
    let mut seen: Vec<&str> = Vec::with_capacity(KNOWN_FIELDS.len());
    for (key, raw) in &fields {
        if !KNOWN_FIELDS.contains(&key.as_str()) {
            continue;
        }
        if seen.contains(&key.as_str()) {
            findings.push(
                Finding::new(
                    "ST023",
                    Severity::Error,
                    format!(
                        "field {key:?} appears more than once in this tensor entry; the reference rejects the file and map-based readers keep only the last"
                    ),
                )
                .file(path)
                .tensor(name)
                .at(file_offset_of(text, raw)),
            );
        } else {
            seen.push(key.as_str());
        }
    }
}
