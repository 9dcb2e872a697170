//! Per-entry checks: `__metadata__` and each tensor's `dtype`, `shape` and `data_offsets`.

use super::json::{file_offset_of, RawEntries};
use super::{Header, TensorEntry};
use crate::Dtype;
use crate::{Code, Finding};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

const METADATA_KEY: &str = "__metadata__";

/// Interprets every raw entry into `header`, reporting ST008-ST013 and ST023.
pub(super) fn interpret(
    text: &str,
    raw: RawEntries<'_>,
    header: &mut Header,
    path: &Path,
    findings: &mut Vec<Finding>,
) {
    for (name, value) in raw {
        let at = file_offset_of(text, value);
        let name = if name == METADATA_KEY {
            name
        } else {
            match plain_entry(name, value, path, at, findings) {
                Ok(entry) => {
                    header.tensors.push(entry);
                    continue;
                }
                Err(name) => name,
            }
        };
        let parsed: Value = match serde_json::from_str(value.get()) {
            Ok(v) => v,
            // Unreachable: the whole header already decoded in full (see `decode`).
            Err(_) => Value::Null,
        };
        if name == METADATA_KEY {
            header.metadata = metadata(&parsed, path, at, findings);
        } else {
            super::repeat::report_repeated_fields(text, &name, value, path, findings);
            header
                .tensors
                .push(tensor_entry(&name, &parsed, path, at, findings));
        }
    }
}

/// An entry spelled the ordinary way: an object with a plain (escape-free) `dtype` string, a
/// `shape` of unsigned integers and a two-integer `data_offsets`, each once, in any order, other
/// fields ignored.
#[derive(Deserialize)]
struct PlainEntry<'a> {
    dtype: &'a str,
    shape: Vec<u64>,
    data_offsets: [u64; 2],
}

/// The entry of an ordinary tensor through one typed parse, with exactly the findings the
/// general path below gives it (ST010 for an unknown dtype, then the size checks); the name
/// back for anything else (a field missing, repeated or of another type, escapes in the dtype, an array
/// in place of the object), which the general path reads and reports. A million-tensor header
/// is a million of these: the general path builds a JSON tree per entry and scans each for
/// repeated fields.
fn plain_entry(
    name: String,
    value: &RawValue,
    path: &Path,
    at: u64,
    findings: &mut Vec<Finding>,
) -> Result<TensorEntry, String> {
    // serde also reads a struct from an array of its fields: only objects take this path.
    if !value.get().starts_with('{') {
        return Err(name);
    }
    let Ok(plain) = serde_json::from_str::<PlainEntry<'_>>(value.get()) else {
        return Err(name);
    };
    let dtype = Dtype::parse(plain.dtype);
    if dtype.is_none() {
        findings.push(
            Finding::new(Code::ST010, format!("unknown dtype {:?}", plain.dtype))
                .file(path)
                .tensor(name.as_str())
                .at(at),
        );
    }
    let [begin, end] = plain.data_offsets;
    let entry = TensorEntry {
        name,
        dtype,
        dtype_name: plain.dtype.to_owned(),
        shape: Some(plain.shape),
        range: Some((begin, end)),
        header_offset: at,
        readable: false,
        layout: None,
    };
    check_size(&entry, path, findings);
    Ok(entry)
}

fn metadata(
    value: &Value,
    path: &Path,
    at: u64,
    findings: &mut Vec<Finding>,
) -> Option<BTreeMap<String, String>> {
    let object = match value {
        Value::Null => return None,
        Value::Object(object) => object,
        other => {
            findings.push(
                Finding::new(
                    Code::ST008,
                    format!(
                        "__metadata__ must be an object of strings, found {}",
                        kind(other)
                    ),
                )
                .file(path)
                .at(at),
            );
            return None;
        }
    };
    let mut map = BTreeMap::new();
    for (key, v) in object {
        match v {
            Value::String(s) => {
                map.insert(key.clone(), s.clone());
            }
            other => findings.push(
                Finding::new(
                    Code::ST008,
                    format!(
                        "__metadata__[{key:?}] is {}, but metadata values must be strings",
                        kind(other)
                    ),
                )
                .file(path)
                .at(at),
            ),
        }
    }
    Some(map)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn invalid(name: &str, path: &Path, at: u64, what: String) -> Finding {
    Finding::new(Code::ST009, what)
        .file(path)
        .tensor(name)
        .at(at)
}

fn tensor_entry(
    name: &str,
    value: &Value,
    path: &Path,
    at: u64,
    findings: &mut Vec<Finding>,
) -> TensorEntry {
    let mut entry = TensorEntry {
        name: name.to_owned(),
        dtype: None,
        dtype_name: String::new(),
        shape: None,
        range: None,
        header_offset: at,
        readable: false,
        layout: None,
    };
    let Value::Object(object) = value else {
        findings.push(invalid(
            name,
            path,
            at,
            format!(
                "entry is {}, not an object with dtype, shape and data_offsets",
                kind(value)
            ),
        ));
        return entry;
    };
    match object.get("dtype") {
        Some(Value::String(s)) => {
            entry.dtype_name = s.clone();
            entry.dtype = Dtype::parse(s);
            if entry.dtype.is_none() {
                findings.push(
                    Finding::new(Code::ST010, format!("unknown dtype {s:?}"))
                        .file(path)
                        .tensor(name)
                        .at(at),
                );
            }
        }
        Some(other) => findings.push(invalid(
            name,
            path,
            at,
            format!("dtype is {}, not a string", kind(other)),
        )),
        None => findings.push(invalid(name, path, at, "entry has no dtype".into())),
    }
    match object.get("shape") {
        Some(Value::Array(dims)) => {
            match dims.iter().map(Value::as_u64).collect::<Option<Vec<u64>>>() {
                Some(shape) => entry.shape = Some(shape),
                None => findings.push(invalid(
                    name,
                    path,
                    at,
                    format!(
                        "shape {value} must list non-negative integers",
                        value = Value::Array(dims.clone())
                    ),
                )),
            }
        }
        Some(other) => findings.push(invalid(
            name,
            path,
            at,
            format!("shape is {}, not an array", kind(other)),
        )),
        None => findings.push(invalid(name, path, at, "entry has no shape".into())),
    }
    match object.get("data_offsets") {
        Some(Value::Array(pair)) => match pair.as_slice() {
            [Value::Number(b), Value::Number(e)]
                if b.as_u64().is_some() && e.as_u64().is_some() =>
            {
                entry.range = b.as_u64().zip(e.as_u64());
            }
            _ => findings.push(invalid(
                name,
                path,
                at,
                format!(
                    "data_offsets {} must be two non-negative integers [begin, end]",
                    Value::Array(pair.clone())
                ),
            )),
        },
        Some(other) => findings.push(invalid(
            name,
            path,
            at,
            format!("data_offsets is {}, not an array", kind(other)),
        )),
        None => findings.push(invalid(name, path, at, "entry has no data_offsets".into())),
    }
    check_size(&entry, path, findings);
    entry
}

/// ST011 (shape product overflows), ST012 (sub-byte size not whole bytes), ST013 (length mismatch).
fn check_size(entry: &TensorEntry, path: &Path, findings: &mut Vec<Finding>) {
    let (Some(dtype), Some(shape)) = (entry.dtype, entry.shape.as_ref()) else {
        return;
    };
    let at = entry.header_offset;
    let Some(numel) = entry.numel() else {
        findings.push(
            Finding::new(
                Code::ST011,
                format!("shape {shape:?} has an element count that overflows 64 bits"),
            )
            .file(path)
            .tensor(&entry.name)
            .at(at),
        );
        return;
    };
    let Some(bits) = numel.checked_mul(dtype.bits()) else {
        findings.push(
            Finding::new(
                Code::ST011,
                format!("{numel} elements of {dtype} overflow 64 bits of size"),
            )
            .file(path)
            .tensor(&entry.name)
            .at(at),
        );
        return;
    };
    if bits % 8 != 0 {
        findings.push(
            Finding::new(Code::ST012, format!("{numel} elements of {dtype} ({} bits each) are {bits} bits, not a whole number of bytes", dtype.bits()),
            )
            .file(path)
            .tensor(&entry.name)
            .at(at),
        );
        return;
    }
    if let Some(nbytes) = entry.nbytes() {
        let expected = bits / 8;
        if nbytes != expected {
            findings.push(
                Finding::new(Code::ST013, format!("data_offsets span {nbytes} bytes but shape {shape:?} of {dtype} needs {expected}"),
                )
                .file(path)
                .tensor(&entry.name)
                .at(at),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed path, where it takes an entry, gives the entry and findings the general path
    /// gives; everything else it leaves to the general path.
    #[test]
    fn plain_entries_read_as_the_general_path_reads_them() {
        let path = Path::new("x.safetensors");
        let cases = [
            (
                r#"{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}"#,
                true,
            ),
            (
                r#"{"shape":[],"data_offsets":[8,9],"dtype":"I8","extra":[1,{"a":2}]}"#,
                true,
            ),
            (r#"{"dtype":"F33","shape":[2],"data_offsets":[0,8]}"#, true),
            (
                r#"{"dtype":"F32","shape":[18446744073709551615,2],"data_offsets":[0,8]}"#,
                true,
            ),
            (r#"{"dtype":"F4","shape":[3],"data_offsets":[0,2]}"#, true),
            (r#"{"dtype":"F32","shape":[2],"data_offsets":[0,7]}"#, true),
            (
                r#"{"dtype":"F32","shape":[-0],"data_offsets":[0,0]}"#,
                false,
            ),
            (
                r#"{"dtype":"F\u0033\u0032","shape":[2],"data_offsets":[0,8]}"#,
                false,
            ),
            (
                r#"{"dtype":"F32","dtype":"I8","shape":[2],"data_offsets":[0,8]}"#,
                false,
            ),
            (
                r#"{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}"#,
                false,
            ),
            (
                r#"{"dtype":"F32","shape":[2],"data_offsets":[0,8,9]}"#,
                false,
            ),
            (
                r#"{"dtype":"F32","shape":[2],"data_offsets":[-1,8]}"#,
                false,
            ),
            (r#"{"dtype":"F32","shape":[2]}"#, false),
            (r#"{"dtype":7,"shape":[2],"data_offsets":[0,8]}"#, false),
            (r#"["F32",[2],[0,8]]"#, false),
        ];
        for (text, plain) in cases {
            let raw: Box<RawValue> = serde_json::from_str(text).unwrap();
            let mut fast_findings = Vec::new();
            let fast = plain_entry("t".to_owned(), &raw, path, 8, &mut fast_findings).ok();
            assert_eq!(fast.is_some(), plain, "{text}");
            let value: Value = serde_json::from_str(text).unwrap();
            let mut general_findings = Vec::new();
            let general = tensor_entry("t", &value, path, 8, &mut general_findings);
            if let Some(fast) = fast {
                assert_eq!(fast, general, "{text}");
                assert_eq!(fast_findings, general_findings, "{text}");
            } else {
                assert!(fast_findings.is_empty(), "{text}");
            }
        }
    }
}
