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
        let mut buf = vec![0u8; len];
        read_exact_at(&self.file, &mut buf, offset)
            .map_err(|e| format!("read of {len} bytes at byte offset {offset} failed: {e}"))?;
        Ok(buf)
    }
}

/// Fills `buf` from `file` at byte `offset` without moving a shared cursor (`pread`).
#[cfg(unix)]
fn read_exact_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Fills `buf` from `file` at byte `offset` (Windows: `seek_read` until full; it moves the
/// handle's cursor, which no reader here relies on).
#[cfg(windows)]
fn read_exact_at(file: &std::fs::File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
