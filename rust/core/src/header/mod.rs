//! The strict safetensors header reader: parses and validates one file's header and reports
//! every problem it finds as an `ST` finding instead of stopping at the first.
//!
//! Acceptance matches the reference implementation (the `safetensors` crate, whose typed serde
//! parse also rejects undecodable JSON, ST022, and repeated entry fields, ST023) with one deliberate
//! difference: duplicate names, which the format forbids but serde silently collapses, are errors.

mod decode;
mod entry;
mod json;
mod layout;
mod prefix;
mod repeat;

use crate::finding::Finding;
use crate::Dtype;
use std::collections::BTreeMap;
use std::path::Path;

pub use prefix::{HEADER_CAP, HUB_HEADER_LIMIT};

/// One tensor entry of a header, as far as it could be understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorEntry {
    /// The tensor name (the JSON key).
    pub name: String,
    /// The dtype, when the entry names a known one.
    pub dtype: Option<Dtype>,
    /// The `dtype` field as written (for reporting unknown dtypes).
    pub dtype_name: String,
    /// The shape, when it is a valid list of non-negative integers.
    pub shape: Option<Vec<u64>>,
    /// `data_offsets`, relative to the start of the data section, when valid.
    pub range: Option<(u64, u64)>,
    /// Absolute byte offset of this entry's JSON value in the file (for findings).
    pub header_offset: u64,
    /// True when dtype, shape and range are all valid, consistent with each other and inside the
    /// file: the tensor's bytes can be read and interpreted.
    pub readable: bool,
    /// For a tensor of a torch file whose bytes are not one contiguous native-order run of the
    /// file (a strided view, a big-endian file, a deflated record): how to materialize them.
    /// `range` is then the file span they are read from. `None` for every safetensors entry.
    pub layout: Option<Box<crate::torch::Layout>>,
}

impl TensorEntry {
    /// Number of elements (product of the shape), when the shape is valid and does not overflow.
    pub fn numel(&self) -> Option<u64> {
        self.shape
            .as_ref()?
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
    }

    /// Byte length of the tensor's data (of its logical values, for a [`TensorEntry::layout`]
    /// view), when the range is valid.
    pub fn nbytes(&self) -> Option<u64> {
        if self.layout.is_some() {
            return self.dtype?.byte_len(self.numel()?);
        }
        self.range.and_then(|(b, e)| e.checked_sub(b))
    }
}

/// A parsed header: the tensor entries in header order plus file-level facts.
#[derive(Debug, Clone, Default)]
pub struct Header {
    /// The 8-byte length prefix (JSON header length in bytes).
    pub header_len: u64,
    /// Absolute offset of the data section (`8 + header_len`).
    pub data_start: u64,
    /// The `__metadata__` map, when present and valid.
    pub metadata: Option<BTreeMap<String, String>>,
    /// Tensor entries in the order they appear in the JSON (duplicates included).
    pub tensors: Vec<TensorEntry>,
}

/// The result of reading one header: what could be parsed, and every problem found.
#[derive(Debug, Clone, Default)]
pub struct HeaderReport {
    /// The parsed header; `None` when the file is not a safetensors file at all (too short,
    /// bad length prefix, not UTF-8, not a JSON object).
    pub header: Option<Header>,
    /// Every `ST` finding, in file order.
    pub findings: Vec<Finding>,
}

/// Parses and validates the header of a file whose first bytes are `prefix` (at least the
/// 8-byte length plus the header, when the file has them) and whose total size is `file_len`.
///
/// Never reads past the header, so tensor data pages are never touched.
pub fn read_header(prefix: &[u8], file_len: u64, path: &Path) -> HeaderReport {
    let mut findings = Vec::new();
    let Some(header_len) = prefix::check_length(prefix, file_len, path, &mut findings) else {
        return HeaderReport {
            header: None,
            findings,
        };
    };
    let data_start = 8 + header_len;
    let Some(text) = prefix::header_text(prefix, header_len, path, &mut findings) else {
        return HeaderReport {
            header: None,
            findings,
        };
    };
    let Some(raw) = json::top_level_entries(text, path, &mut findings) else {
        return HeaderReport {
            header: None,
            findings,
        };
    };
    let mut header = Header {
        header_len,
        data_start,
        metadata: None,
        tensors: Vec::with_capacity(raw.len()),
    };
    entry::interpret(text, raw, &mut header, path, &mut findings);
    layout::check_ranges(&mut header, file_len, path, &mut findings);
    HeaderReport {
        header: Some(header),
        findings,
    }
}

#[cfg(test)]
mod tests;
