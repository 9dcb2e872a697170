//! One safetensors file, memory-mapped read-only, with its validated header.

use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::header::{read_header, Header, TensorEntry};
use memmap2::Mmap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The bytes of a file: a read-only map, or nothing for an empty file (which cannot be mapped).
#[derive(Debug)]
enum Bytes {
    Mapped(Mmap),
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
}

impl Shard {
    /// Opens and maps `path`, then reads and validates its header (touching only header pages).
    pub fn open(path: &Path) -> Result<Shard> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        if meta.is_dir() {
            return Err(Error::InvalidCheckpoint {
                path: path.to_owned(),
                reason: "is a directory, expected a .safetensors file".into(),
            });
        }
        let file_len = meta.len();
        let bytes = if file_len == 0 {
            Bytes::Empty
        } else {
            // SAFETY: the map is read-only and this tool never writes to checkpoints. Another process
            // truncating or rewriting the file while we hold the map could change or fault the bytes
            // (SIGBUS); like every mmap-based safetensors loader we accept that risk for zero-copy reads.
            let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
            Bytes::Mapped(map)
        };
        let mut shard = Shard {
            path: path.to_owned(),
            file_len,
            header: None,
            findings: Vec::new(),
            bytes,
        };
        let report = read_header(shard.header_prefix(), file_len, path);
        shard.header = report.header;
        shard.findings = report.findings;
        Ok(shard)
    }

    /// The whole file's bytes (empty for an empty file).
    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(map) => map,
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
}
