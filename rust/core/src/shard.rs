//! One safetensors file, memory-mapped read-only and fault-guarded, with its validated header.

use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::guard::Guard;
use crate::header::{read_header, Header, TensorEntry};
use crate::regular::open_regular;
use memmap2::Mmap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The bytes of a file: a read-only map with its fault guard (declared first so it unregisters
/// before the map is unmapped), or nothing for an empty file (which cannot be mapped).
#[derive(Debug)]
enum Bytes {
    Mapped(Guard, Mmap),
    Empty,
}

/// A safetensors file: its map, its header (when it has one) and the `ST` findings about it.
#[derive(Debug)]
pub struct Shard {
    /// The path as the checkpoint names it (inside an HF snapshot: the symlink, not the blob).
    pub path: PathBuf,
    /// File size in bytes.
    pub file_len: u64,
    /// The parsed header; `None` when the file has no usable header.
    pub header: Option<Header>,
    /// `ST` findings about this file.
    pub findings: Vec<Finding>,
    bytes: Bytes,
    /// Kept open so the size can be re-checked on the same inode after a data pass.
    file: File,
}

impl Shard {
    /// Opens and maps `path`, then reads and validates its header (touching only header pages).
    pub fn open(path: &Path) -> Result<Shard> {
        let (file, meta) = open_regular(path)?;
        let file_len = meta.len();
        let bytes = if file_len == 0 {
            Bytes::Empty
        } else {
            // SAFETY: the map is read-only and this tool never writes to checkpoints. Another process
            // may truncate or rewrite the file while we hold the map: rewritten bytes are caught
            // by nothing (as in every mmap-based loader), but a read past a truncation would raise
            // SIGBUS, which the guard registered here turns into zero pages plus a record that
            // `changed_from` reports.
            let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
            Bytes::Mapped(Guard::register(map.as_ptr(), map.len()), map)
        };
        let mut shard = Shard {
            path: path.to_owned(),
            file_len,
            header: None,
            findings: Vec::new(),
            bytes,
            file,
        };
        let report = read_header(shard.header_prefix(), file_len, path);
        shard.header = report.header;
        shard.findings = report.findings;
        Ok(shard)
    }

    /// The whole file's bytes (empty for an empty file).
    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(_, map) => map,
            Bytes::Empty => &[],
        }
    }

    /// The bytes the header reader may look at: the length prefix and at most the declared header.
    fn header_prefix(&self) -> &[u8] {
        let bytes = self.bytes();
        let declared = bytes
            .get(..8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0xff; 8])))
            .unwrap_or(0);
        let end = declared
            .checked_add(8)
            .and_then(|e| usize::try_from(e).ok())
            .map_or(bytes.len(), |e| e.min(bytes.len()));
        &bytes[..end]
    }

    /// Absolute offset of the data section, when the header is valid.
    pub fn data_start(&self) -> Option<u64> {
        self.header.as_ref().map(|h| h.data_start)
    }

    /// The raw bytes of a readable tensor entry; `None` when the entry is not readable.
    pub fn tensor_bytes(&self, entry: &TensorEntry) -> Option<&[u8]> {
        if !entry.readable {
            return None;
        }
        let (begin, end) = entry.range?;
        let start = usize::try_from(self.data_start()?.checked_add(begin)?).ok()?;
        let stop = usize::try_from(self.data_start()?.checked_add(end)?).ok()?;
        self.bytes().get(start..stop)
    }

    /// The lowest file offset from which the mapped bytes may no longer be the file's as opened:
    /// where a read faulted past a truncation (those pages now read as zeros), or the file's
    /// current size when it has shrunk (the tail of its last page reads as zeros, no fault).
    /// `None` while the file is intact. Cheap: one atomic load and one `fstat`.
    pub fn changed_from(&self) -> Option<u64> {
        let faulted = match &self.bytes {
            Bytes::Mapped(guard, _) => guard.first_fault(),
            Bytes::Empty => None,
        };
        let shrunk = match self.file.metadata() {
            Ok(meta) => (meta.len() < self.file_len).then_some(meta.len()),
            Err(_) => Some(0),
        };
        match (faulted, shrunk) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
