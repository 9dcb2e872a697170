//! One weights file, memory-mapped read-only and fault-guarded (or read by ranges from a
//! [`RangeSource`]), with its validated header: a safetensors file, or a `torch.save` file read
//! by [`crate::torch`] into the same tensor table.

use crate::error::{Error, Result};
use crate::finding::Finding;
use crate::guard::Guard;
use crate::header::{read_header, Header, TensorEntry};
use crate::progress::Progress;
use crate::regular::open_regular;
use crate::source::{read_exact, RangeSource};
use crate::torch::{self, Format};
use memmap2::Mmap;
use std::borrow::Cow;
use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The bytes of a file: a read-only map with its fault guard (declared first so it unregisters
/// before the map is unmapped), nothing for an empty file (which cannot be mapped), or a ranged
/// source with the header bytes read from it at open.
#[derive(Debug)]
enum Bytes {
    Mapped(Guard, Mmap),
    Empty,
    Ranged {
        source: Arc<dyn RangeSource>,
        prefix: Vec<u8>,
    },
}

/// A weights file: its map, its header (when it has one) and the `ST` (or `PT`) findings about it.
#[derive(Debug)]
pub struct Shard {
    /// The path as the checkpoint names it (inside an HF snapshot: the symlink, not the blob).
    pub path: PathBuf,
    /// The file's format (from its name and first bytes).
    pub format: Format,
    /// File size in bytes.
    pub file_len: u64,
    /// The parsed header; `None` when the file has no usable header.
    pub header: Option<Header>,
    /// `ST` findings about this file.
    pub findings: Vec<Finding>,
    bytes: Bytes,
    /// The mapped file's identity (device, inode), to re-check its size after a data pass by
    /// path (`None` for a ranged source, which has no local file). No descriptor is kept: a
    /// checkpoint of thousands of shards holds none open (the map itself needs none).
    identity: Option<(u64, u64)>,
}

/// (device, inode) of a file's metadata.
fn identity(meta: &Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (0, 0)
    }
}

impl Shard {
    /// Opens and maps `path`, then reads and validates its header (touching only header pages).
    /// The file's descriptor is closed before this returns; the map stays.
    pub fn open(path: &Path) -> Result<Shard> {
        Shard::open_with_file(path).map(|(shard, _file)| shard)
    }

    /// [`Shard::open`], also handing back the open file (the shard keeps no descriptor), for a
    /// caller that reads tensor bytes by offset: the same inode the header was read from,
    /// whatever happens to the path afterwards.
    pub(crate) fn open_with_file(path: &Path) -> Result<(Shard, File)> {
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
            format: Format::Safetensors,
            file_len,
            header: None,
            findings: Vec::new(),
            bytes,
            identity: Some(identity(&meta)),
        };
        shard.format = torch::sniff(path, shard.mapped());
        if shard.format == Format::Safetensors {
            shard.read_header();
        } else {
            let read = torch::read(&shard.mapped(), path, shard.format);
            shard.header = read.header;
            shard.findings = read.findings;
        }
        Ok((shard, file))
    }

    /// Builds the shard named `path` on a ranged `source`: reads the 8-byte length prefix, then
    /// the header when the prefix passes the cap and fits the file (two reads), and validates it
    /// exactly as for a mapped file. A failed read is an error (the caller makes it a finding);
    /// once `progress` is cancelled no further read is issued ([`Error::Cancelled`]).
    pub fn from_source(
        path: &Path,
        source: Arc<dyn RangeSource>,
        progress: &dyn Progress,
    ) -> Result<Shard> {
        let file_len = source.len();
        let unreadable = |reason: String| Error::InvalidCheckpoint {
            path: path.to_owned(),
            reason,
        };
        let read = |offset: u64, len: usize| {
            if progress.is_cancelled() {
                return Err(Error::Cancelled);
            }
            read_exact(&*source, offset, len).map_err(unreadable)
        };
        let mut prefix = read(0, usize::try_from(file_len.min(8)).unwrap_or(8))?;
        let format = torch::sniff(path, &prefix);
        if format != Format::Safetensors {
            let ranged = torch::bytes::Ranged {
                source: &*source,
                progress,
            };
            let read = torch::read(&ranged, path, format);
            if progress.is_cancelled() {
                return Err(Error::Cancelled);
            }
            return Ok(Shard {
                path: path.to_owned(),
                format,
                file_len,
                header: read.header,
                findings: read.findings,
                bytes: Bytes::Ranged { source, prefix },
                identity: None,
            });
        }
        if let Some(end) = header_end(&prefix, file_len) {
            let rest =
                usize::try_from(end - 8).map_err(|_| unreadable("header too large".into()))?;
            prefix.extend(read(8, rest)?);
        }
        let mut shard = Shard {
            path: path.to_owned(),
            format,
            file_len,
            header: None,
            findings: Vec::new(),
            bytes: Bytes::Ranged { source, prefix },
            identity: None,
        };
        shard.read_header();
        Ok(shard)
    }

    fn read_header(&mut self) {
        let report = read_header(self.header_prefix(), self.file_len, &self.path);
        self.header = report.header;
        self.findings = report.findings;
    }

    /// Absolute byte range in the file of a readable tensor entry (`None` when not readable).
    pub(crate) fn absolute_range(&self, entry: &TensorEntry) -> Option<(u64, u64)> {
        self.tensor_range(entry)
    }

    /// True when the bytes come from a ranged source, not a map.
    pub fn is_ranged(&self) -> bool {
        matches!(self.bytes, Bytes::Ranged { .. })
    }

    /// The mapped bytes (empty for an empty file; for a ranged source, only the header bytes).
    fn mapped(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(_, map) => map,
            Bytes::Empty => &[],
            Bytes::Ranged { prefix, .. } => prefix,
        }
    }

    /// The bytes the header reader may look at: the length prefix and at most the declared header.
    fn header_prefix(&self) -> &[u8] {
        let bytes = self.mapped();
        let end = header_end(bytes, self.file_len).map_or(bytes.len(), |e| {
            usize::try_from(e).map_or(bytes.len(), |e| e.min(bytes.len()))
        });
        &bytes[..end]
    }

    /// Absolute offset of the data section, when the header is valid.
    pub fn data_start(&self) -> Option<u64> {
        self.header.as_ref().map(|h| h.data_start)
    }

    /// The absolute byte range of a readable tensor entry; `None` when it is not readable.
    fn tensor_range(&self, entry: &TensorEntry) -> Option<(u64, u64)> {
        if !entry.readable {
            return None;
        }
        let (begin, end) = entry.range?;
        let start = self.data_start()?.checked_add(begin)?;
        let stop = self.data_start()?.checked_add(end)?;
        (start <= stop && stop <= self.file_len).then_some((start, stop))
    }

    /// True when the entry's bytes can be had (its range is valid and inside the file), without
    /// reading them.
    pub fn is_readable(&self, entry: &TensorEntry) -> bool {
        self.tensor_range(entry).is_some()
    }

    /// The mapped bytes of a readable tensor entry; `None` when the entry is not readable, the
    /// shard is a ranged source, or the tensor's bytes are not one run of the file (a torch
    /// view with a [`TensorEntry::layout`]); [`Shard::read_tensor`] reads every kind.
    pub fn mapped_tensor_bytes(&self, entry: &TensorEntry) -> Option<&[u8]> {
        if self.is_ranged() || entry.layout.is_some() {
            return None;
        }
        let (start, stop) = self.tensor_range(entry)?;
        let start = usize::try_from(start).ok()?;
        let stop = usize::try_from(stop).ok()?;
        self.mapped().get(start..stop)
    }

    /// The bytes of a readable tensor entry: borrowed from the map, or read from the ranged
    /// source (one read, not kept); for a torch view, its logical values materialized from
    /// the span it is read from (owned, even over a map). `Err` carries why they cannot be had.
    pub fn read_tensor(&self, entry: &TensorEntry) -> std::result::Result<Cow<'_, [u8]>, String> {
        const INVALID: &str =
            "its header entry is invalid or its data lies outside the file (see the ST findings)";
        if let Some(layout) = &entry.layout {
            let (start, stop) = self.tensor_range(entry).ok_or(INVALID)?;
            let span = self.read_span(start, stop)?;
            return layout.materialize(&span, start).map(Cow::Owned);
        }
        match &self.bytes {
            Bytes::Ranged { source, .. } => {
                let (start, stop) = self.tensor_range(entry).ok_or(INVALID)?;
                let len = usize::try_from(stop - start).map_err(|_| INVALID.to_owned())?;
                if len == 0 {
                    return Ok(Cow::Borrowed(&[]));
                }
                read_exact(&**source, start, len).map(Cow::Owned)
            }
            _ => self
                .mapped_tensor_bytes(entry)
                .map(Cow::Borrowed)
                .ok_or_else(|| INVALID.to_owned()),
        }
    }

    /// The file bytes `[start, stop)` (inside the file: checked by the caller).
    fn read_span(&self, start: u64, stop: u64) -> std::result::Result<Cow<'_, [u8]>, String> {
        let len = usize::try_from(stop - start).map_err(|_| "span too large".to_owned())?;
        match &self.bytes {
            Bytes::Ranged { source, .. } => read_exact(&**source, start, len).map(Cow::Owned),
            _ => {
                let begin = usize::try_from(start).map_err(|_| "span too large".to_owned())?;
                self.mapped()
                    .get(begin..begin + len)
                    .map(Cow::Borrowed)
                    .ok_or_else(|| "the span lies outside the file".to_owned())
            }
        }
    }

    /// The lowest file offset from which the mapped bytes may no longer be the file's as opened:
    /// where a read faulted past a truncation (those pages now read as zeros), or the file's
    /// current size when it has shrunk (the tail of its last page reads as zeros, no fault).
    /// `None` while the file is intact. Cheap: one atomic load and one `stat` of the path. When
    /// the path no longer names the mapped inode (the file was deleted or replaced by a rename),
    /// that inode's size cannot be had without a descriptor: a read past its end still faults
    /// and is caught by the guard.
    pub fn changed_from(&self) -> Option<u64> {
        let faulted = match &self.bytes {
            Bytes::Mapped(guard, _) => guard.first_fault(),
            Bytes::Empty | Bytes::Ranged { .. } => None,
        };
        let shrunk = self.identity.and_then(|opened| {
            let meta = std::fs::metadata(&self.path).ok()?;
            (identity(&meta) == opened && meta.len() < self.file_len).then_some(meta.len())
        });
        match (faulted, shrunk) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// Where the header ends (8 + the declared length) when `prefix` holds a length prefix that is
/// within the format's cap and inside the file; `None` otherwise (the header checks then report
/// why from the prefix alone).
fn header_end(prefix: &[u8], file_len: u64) -> Option<u64> {
    let declared = u64::from_le_bytes(prefix.get(..8)?.try_into().ok()?);
    let end = declared.checked_add(8)?;
    (declared <= crate::header::HEADER_CAP && end <= file_len).then_some(end)
}
