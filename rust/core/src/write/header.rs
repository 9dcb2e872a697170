//! The header of a file to write, laid out exactly as the `safetensors` crate's serializer lays
//! it out: tensors sorted by descending dtype (the crate's alignment order), then by name, their
//! data in that order without gaps; the crate's own `Metadata` JSON, padded with spaces to a
//! multiple of 8; the 8-byte little-endian length before it. (The crate has no header-only
//! call; its `serialize` would allocate the whole file.)

use crate::error::{Error, Result};
use safetensors::tensor::{Dtype as StDtype, Metadata, TensorInfo};
use std::collections::HashMap;

/// One tensor of the file: name, serializer dtype, shape and byte length.
pub(super) struct Entry<'a> {
    pub name: &'a str,
    pub dtype: StDtype,
    pub shape: Vec<usize>,
    pub len: usize,
}

/// The length prefix and header for `entries` and `metadata`, and the total file size.
pub(super) fn header_bytes(
    entries: &[Entry<'_>],
    metadata: Option<HashMap<String, String>>,
) -> Result<(Vec<u8>, u64)> {
    let mut order: Vec<&Entry<'_>> = entries.iter().collect();
    order.sort_by(|l, r| r.dtype.cmp(&l.dtype).then(l.name.cmp(r.name)));
    let mut offset = 0usize;
    let mut infos = Vec::with_capacity(order.len());
    for e in order {
        let end = offset.checked_add(e.len).ok_or_else(|| {
            Error::InvalidArgument("tensor data exceeds the address space".into())
        })?;
        let info = TensorInfo {
            dtype: e.dtype,
            shape: e.shape.clone(),
            data_offsets: (offset, end),
        };
        infos.push((e.name.to_owned(), info));
        offset = end;
    }
    let invalid = |e: &dyn std::fmt::Display| Error::InvalidArgument(format!("header: {e}"));
    let header = Metadata::new(metadata, infos).map_err(|e| invalid(&e))?;
    let mut json = serde_json::to_string(&header)
        .map_err(|e| invalid(&e))?
        .into_bytes();
    json.resize(json.len().next_multiple_of(8), b' ');
    if json.len() as u64 > crate::header::HEADER_CAP {
        return Err(Error::InvalidArgument(format!(
            "the header would be {} bytes, over the format's cap of {}",
            json.len(),
            crate::header::HEADER_CAP
        )));
    }
    let mut out = Vec::with_capacity(8 + json.len());
    out.extend((json.len() as u64).to_le_bytes());
    out.extend(json);
    let total = (out.len() as u64).saturating_add(offset as u64);
    Ok((out, total))
}
