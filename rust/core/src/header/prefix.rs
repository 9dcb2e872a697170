//! The length prefix and the header bytes: the checks that decide whether there is a header at all.

use crate::{Code, Finding};
use std::path::Path;

/// The reference implementation's cap on the header length (100 MB, decimal).
pub const HEADER_CAP: u64 = 100_000_000;

/// huggingface_hub and huggingface.js refuse headers longer than this (25 MB).
pub const HUB_HEADER_LIMIT: u64 = 25_000_000;

/// Reads the 8-byte little-endian length and checks it against the cap and the file size.
pub(super) fn check_length(
    prefix: &[u8],
    file_len: u64,
    path: &Path,
    findings: &mut Vec<Finding>,
) -> Option<u64> {
    let Some(len_bytes) = prefix.get(..8) else {
        findings.push(
            Finding::new(
                Code::ST001,
                format!("file is {file_len} bytes, shorter than the 8-byte header length prefix"),
            )
            .file(path)
            .at(0),
        );
        return None;
    };
    let mut arr = [0u8; 8];
    arr.copy_from_slice(len_bytes);
    let header_len = u64::from_le_bytes(arr);
    if header_len > HEADER_CAP {
        findings.push(
            Finding::new(Code::ST002, format!(
                    "header length prefix is {header_len} bytes, over the format's {HEADER_CAP}-byte cap"
                ),
            )
            .file(path)
            .at(0),
        );
        return None;
    }
    let available = file_len.saturating_sub(8);
    if header_len > available {
        findings.push(
            Finding::new(Code::ST003, format!(
                    "header length prefix is {header_len} bytes but only {available} bytes follow it (file is {file_len} bytes): truncated or not a safetensors file"
                ),
            )
            .file(path)
            .at(0),
        );
        return None;
    }
    if header_len > HUB_HEADER_LIMIT {
        findings.push(
            Finding::new(Code::ST021, format!(
                    "header is {header_len} bytes; huggingface_hub and huggingface.js refuse headers over {HUB_HEADER_LIMIT} bytes"
                ),
            )
            .file(path)
            .at(0),
        );
    }
    Some(header_len)
}

/// The header as UTF-8 text, or an ST004 finding at the first invalid byte.
pub(super) fn header_text<'a>(
    prefix: &'a [u8],
    header_len: u64,
    path: &Path,
    findings: &mut Vec<Finding>,
) -> Option<&'a str> {
    let end = usize::try_from(header_len).ok()?.checked_add(8)?;
    let bytes = prefix.get(8..end)?;
    match std::str::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(err) => {
            let at = 8 + err.valid_up_to() as u64;
            findings.push(
                Finding::new(
                    Code::ST004,
                    format!("header is not valid UTF-8 (invalid byte at file offset {at})"),
                )
                .file(path)
                .at(at),
            );
            None
        }
    }
}
