//! Fields repeated inside one tensor entry (`{"dtype":"F32","dtype":"I8",...}`). serde's derived
//! struct parse in the reference rejects a repeated known field; a map-based reader silently keeps
//! the last, so the two would disagree about the tensor's type, shape or bytes.

use super::json::{file_offset_of, Entries};
use crate::{Code, Finding};
use serde_json::value::RawValue;
use std::path::Path;

/// The fields the reference's `TensorInfo` declares; repeating any other key is accepted there.
const KNOWN_FIELDS: [&str; 3] = ["dtype", "shape", "data_offsets"];
/// The same names as JSON strings spelled without escapes.
const QUOTED_FIELDS: [&str; 3] = ["\"dtype\"", "\"shape\"", "\"data_offsets\""];

/// False when no known field can be repeated in the entry's raw JSON: without a backslash every
/// key is spelled literally, so a repeat needs its quoted name to occur twice. Skips the parse of
/// the entry for nearly every header (a million entries in a large one).
fn may_repeat(raw: &str) -> bool {
    raw.contains('\\')
        || QUOTED_FIELDS
            .iter()
            .any(|quoted| raw.matches(quoted).nth(1).is_some())
}

/// Reports ST023 for every repeat of a known field inside the tensor entry `value`.
pub(super) fn report_repeated_fields(
    text: &str,
    name: &str,
    value: &RawValue,
    path: &Path,
    findings: &mut Vec<Finding>,
) {
    let raw_text = value.get();
    if !raw_text.starts_with('{') || !may_repeat(raw_text) {
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
                Finding::new(Code::ST023, format!(
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

#[cfg(test)]
mod tests {
    use super::may_repeat;

    #[test]
    fn only_entries_that_could_repeat_a_field_are_parsed() {
        assert!(!may_repeat(
            r#"{"dtype":"F32","shape":[2],"data_offsets":[0,8]}"#
        ));
        assert!(may_repeat(r#"{"dtype":"F32","dtype":"I8"}"#));
        assert!(may_repeat(r#"{"shape":[1],"x":"shape","shape":[2]}"#));
        // An escaped key can spell a known name without its literal text.
        assert!(may_repeat(r#"{"dtype":"F32","dtype":"I8"}"#));
        // A value that quotes a field name is parsed too (harmless: no finding follows).
        assert!(may_repeat(r#"{"dtype":"F32","note":""dtype""}"#));
    }
}
