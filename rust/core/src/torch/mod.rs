//! What `torch.save` writes (`pytorch_model.bin`, `.pt`, `.pth`), read without torch and without
//! ever running pickle code: the zip format (torch >= 1.6: `<name>/data.pkl`, stored `data/<key>`
//! records, `byteorder`, `version`) and the legacy format (magic number, protocol, sys info, the
//! pickle, then the raw storages), through the restricted pickle machine in [`pickle`].
//!
//! The result is the same tensor table the safetensors reader gives ([`TensorEntry`]s of a
//! [`Header`] whose data starts at 0, so every range is absolute): a tensor that is one
//! contiguous run of stored, native-order bytes is read zero-copy from the map; a strided view,
//! a big-endian file's tensor or one in a deflated record carries a [`Layout`] and is
//! materialized when read. Findings use the `PT` codes and say which format the file is in.

mod archive;
pub mod bytes;
pub mod dtypes;
mod legacy;
pub mod pickle;
mod storage;
mod tensors;
pub mod view;
pub mod zip;

pub use view::Layout;

use crate::finding::Finding;
use crate::header::{Header, TensorEntry};
use crate::Code;
use bytes::FileBytes;
use std::path::Path;

/// The format of a weights file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// safetensors.
    Safetensors,
    /// `torch.save`'s zip archive (torch >= 1.6).
    TorchZip,
    /// `torch.save`'s legacy format (`_use_new_zipfile_serialization=False`, torch < 1.6).
    TorchLegacy,
}

impl Format {
    /// The name used in JSON (`files[].format`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Safetensors => "safetensors",
            Format::TorchZip => "torch-zip",
            Format::TorchLegacy => "torch-legacy",
        }
    }

    /// How findings name the format.
    pub fn label(self) -> &'static str {
        match self {
            Format::Safetensors => "safetensors file",
            Format::TorchZip => "torch.save zip archive",
            Format::TorchLegacy => "torch.save legacy file",
        }
    }
}

/// The file name extensions of torch weights files.
pub const TORCH_EXTENSIONS: [&str; 4] = ["bin", "pt", "pth", "ckpt"];

/// True when `path` has a torch weights extension.
pub fn has_torch_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| TORCH_EXTENSIONS.contains(&e))
}

/// Which reader a file of `path` whose first bytes are `prefix` goes to: `.safetensors` files
/// always to the safetensors reader; otherwise a zip archive, a pickle (the PROTO opcode, a
/// protocol, then an opcode, never a zero byte), or anything that is not a plausible safetensors
/// length prefix (whose bytes 4..8 are zero: a header under 4 GiB) to the torch readers, which
/// also catch every pickle that is not a torch file.
pub fn sniff(path: &Path, prefix: &[u8]) -> Format {
    if path.extension().is_some_and(|e| e == "safetensors") {
        return Format::Safetensors;
    }
    if zip::looks_like_zip(prefix) {
        return Format::TorchZip;
    }
    if let [0x80, 1..=5, op, ..] = prefix {
        if *op != 0 {
            return Format::TorchLegacy;
        }
    }
    let safetensors_like = prefix.len() >= 8 && prefix[4..8] == [0, 0, 0, 0];
    if safetensors_like || (prefix.len() < 8 && !has_torch_extension(path)) {
        Format::Safetensors
    } else {
        Format::TorchLegacy
    }
}

/// What reading a torch file gave.
#[derive(Debug, Default)]
pub struct TorchFile {
    /// The tensor table (`data_start` 0: ranges are absolute), when the file could be read.
    pub header: Option<Header>,
    /// Every `PT` finding, in file order.
    pub findings: Vec<Finding>,
}

/// A finding about `path` in `format`.
pub(crate) fn finding(
    code: Code,
    format: Format,
    path: &Path,
    message: impl std::fmt::Display,
) -> Finding {
    Finding::new(code, format!("{}: {message}", format.label())).file(path)
}

/// Reads the torch file `bytes` (named `path`) in `format` (a torch format from [`sniff`]).
pub fn read(bytes: &dyn FileBytes, path: &Path, format: Format) -> TorchFile {
    let mut out = TorchFile::default();
    let read = match format {
        Format::TorchZip => archive::read(bytes, path, &mut out.findings),
        _ => legacy::read(bytes, path, &mut out.findings),
    };
    if let Some(found) = read {
        let tensors = tensors::entries(&found, format, path, &mut out.findings);
        out.header = Some(Header {
            header_len: found.pickle_len,
            data_start: 0,
            metadata: None,
            tensors,
        });
    }
    out
}

/// Tensor entry helper shared by the readers: an entry that cannot be read.
pub(crate) fn unreadable_entry(
    name: &str,
    dtype_name: String,
    shape: Option<Vec<u64>>,
    at: u64,
) -> TensorEntry {
    TensorEntry {
        name: name.to_owned(),
        dtype: None,
        dtype_name,
        shape,
        range: None,
        header_offset: at,
        readable: false,
        layout: None,
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) mod test_files;
