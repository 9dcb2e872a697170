//! Top-level JSON pass over the header: the object's entries in order, duplicates kept.
//!
//! serde maps keep the last of duplicate keys, so duplicates need this pass of their own. Values
//! are borrowed as raw JSON so each entry's byte offset in the file can be reported.

use crate::{Code, Finding};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// The header's top-level entries in order: `(key, raw JSON value)`.
pub(super) type RawEntries<'a> = Vec<(String, &'a RawValue)>;

/// An object's entries in order, duplicates kept (also used for one tensor entry's fields).
pub(super) struct Entries<'a>(pub(super) RawEntries<'a>);

impl<'de> Deserialize<'de> for Entries<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;
        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = Entries<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    let value: &'de RawValue = map.next_value()?;
                    entries.push((key, value));
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(EntriesVisitor)
    }
}

/// Byte offset (from the start of `text`) of a 1-based line/column pair reported by serde_json.
fn text_offset(text: &str, line: usize, column: usize) -> u64 {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (line_start + column.saturating_sub(1)).min(text.len()) as u64
}

/// Absolute file offset of a raw value borrowed from `text` (the header starts at file byte 8).
pub(super) fn file_offset_of(text: &str, raw: &RawValue) -> u64 {
    let start = text.as_ptr() as usize;
    let at = raw.get().as_ptr() as usize;
    8 + at.saturating_sub(start) as u64
}

/// Parses the header text into its top-level entries, reporting ST005 (not JSON), ST022 (JSON
/// whose strings, numbers or nesting cannot be decoded), ST006 (not an object) and ST007
/// (duplicate keys).
pub(super) fn top_level_entries<'a>(
    text: &'a str,
    path: &Path,
    findings: &mut Vec<Finding>,
) -> Option<RawEntries<'a>> {
    // Text that decodes in full is grammatical JSON, so the grammar-only pass (which decides
    // between ST005 and ST022) runs only when the decode fails: one pass fewer over the header.
    if let Err(decode_err) = super::decode::decode_fully(text) {
        if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
            let at = 8 + text_offset(text, err.line(), err.column());
            findings.push(
                Finding::new(Code::ST005, format!("header is not valid JSON: {err}"))
                    .file(path)
                    .at(at),
            );
            return None;
        }
        let err = decode_err;
        let at = 8 + text_offset(text, err.line(), err.column());
        findings.push(
            Finding::new(Code::ST022, format!("header JSON cannot be decoded: {err}"))
                .file(path)
                .at(at),
        );
        return None;
    }
    let entries = match serde_json::from_str::<Entries<'a>>(text) {
        Ok(entries) => entries.0,
        Err(_) => {
            let kind = text.trim_start().chars().next().map_or("empty", json_kind);
            findings.push(
                Finding::new(
                    Code::ST006,
                    format!("header is a JSON {kind}, not an object"),
                )
                .file(path)
                .at(8),
            );
            return None;
        }
    };
    report_duplicates(text, &entries, path, findings);
    Some(entries)
}

fn json_kind(first: char) -> &'static str {
    match first {
        '[' => "array",
        '"' => "string",
        't' | 'f' => "boolean",
        'n' => "null",
        _ => "number",
    }
}

fn report_duplicates(text: &str, entries: &RawEntries<'_>, path: &Path, out: &mut Vec<Finding>) {
    let mut first_seen: HashMap<&str, u64> = HashMap::with_capacity(entries.len());
    for (key, raw) in entries {
        let at = file_offset_of(text, raw);
        if let Some(first) = first_seen.get(key.as_str()) {
            out.push(
                Finding::new(Code::ST007, format!(
                        "name {key:?} appears more than once in the header (first entry at byte {first}); JSON readers silently keep only the last"
                    ),
                )
                .file(path)
                .tensor(key.clone())
                .at(at),
            );
        } else {
            first_seen.insert(key, at);
        }
    }
}
