//! Per-entry checks: `__metadata__` and each tensor's `dtype`, `shape` and `data_offsets`.

use super::json::{file_offset_of, RawEntries};
use super::{Header, TensorEntry};
use crate::finding::{Finding, Severity};
use crate::Dtype;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

const METADATA_KEY: &str = "__metadata__";

/// Interprets every raw entry into `header`, reporting ST008-ST013 and ST023.
pub(super) fn interpret(
    text: &str,
    raw: &RawEntries<'_>,
    header: &mut Header,
    path: &Path,
    findings: &mut Vec<Finding>,
) {
    for (name, value) in raw {
        let at = file_offset_of(text, value);
        let parsed: Value = match serde_json::from_str(value.get()) {
            Ok(v) => v,
            // Unreachable: the whole header already decoded in full (see `decode`).
            Err(_) => Value::Null,
        };
        if name == METADATA_KEY {
            header.metadata = metadata(&parsed, path, at, findings);
        } else {
            super::repeat::report_repeated_fields(text, name, value, path, findings);
            header
                .tensors
                .push(tensor_entry(name, &parsed, path, at, findings));
        }
    }
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
                    "ST008",
                    Severity::Error,
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
                    "ST008",
                    Severity::Error,
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
    Finding::new("ST009", Severity::Error, what)
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
                    Finding::new("ST010", Severity::Error, format!("unknown dtype {s:?}"))
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
                "ST011",
                Severity::Error,
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
                "ST011",
                Severity::Error,
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
            Finding::new(
                "ST012",
                Severity::Error,
                format!("{numel} elements of {dtype} ({} bits each) are {bits} bits, not a whole number of bytes", dtype.bits()),
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
                Finding::new(
                    "ST013",
                    Severity::Error,
                    format!("data_offsets span {nbytes} bytes but shape {shape:?} of {dtype} needs {expected}"),
                )
                .file(path)
                .tensor(&entry.name)
                .at(at),
            );
        }
    }
}
