//! Byte sources other than a memory map: a file known by its size and read by ranges (an HTTP
//! range server, a file on another machine). A shard built on one reads its header with two
//! ranged reads and each tensor with one, and everything above the shard reads it the same way.

use std::fmt::Debug;

/// A file read by byte ranges. Implementations must be thread-safe: reads of different ranges
/// are issued concurrently from worker threads.
pub trait RangeSource: Send + Sync + Debug {
    /// The file's total length in bytes.
    fn len(&self) -> u64;

    /// True for an empty file.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Exactly `len` bytes starting at `offset`, or why they cannot be read (a short read is
    /// an error: the caller never sees fewer bytes than it asked for).
    fn read_at(&self, offset: u64, len: usize) -> std::result::Result<Vec<u8>, String>;
}

/// Reads `len` bytes at `offset` from `source`, turning a short or long answer into an error.
pub fn read_exact(
    source: &dyn RangeSource,
    offset: u64,
    len: usize,
) -> std::result::Result<Vec<u8>, String> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let bytes = source.read_at(offset, len)?;
    if bytes.len() != len {
        return Err(format!(
            "asked for {len} bytes at byte offset {offset}, got {}",
            bytes.len()
        ));
    }
    Ok(bytes)
}

/// A local file read with `pread`: the same bytes a map gives, through the ranged path (used to
/// hold the ranged path to the mapped one in tests, and by callers who want no map).
#[derive(Debug)]
pub struct FileRangeSource {
    file: std::fs::File,
    len: u64,
}

impl FileRangeSource {
    /// Opens `path` (a regular file only, as for a map).
    pub fn open(path: &std::path::Path) -> crate::Result<Self> {
        let (file, meta) = crate::regular::open_regular(path)?;
        Ok(FileRangeSource {
            file,
            len: meta.len(),
        })
    }
}

impl RangeSource for FileRangeSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, len: usize) -> std::result::Result<Vec<u8>, String> {
        use std::os::unix::fs::FileExt;
        let mut buf = vec![0u8; len];
        self.file
            .read_exact_at(&mut buf, offset)
            .map_err(|e| format!("read of {len} bytes at byte offset {offset} failed: {e}"))?;
        Ok(buf)
    }
}
