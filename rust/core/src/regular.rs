//! Opening files a checkpoint names without ever blocking or reading without bound: only regular
//! files are read (FIFOs, devices and sockets are refused before a single byte is read), and the
//! small JSON/text files beside the weights are read with a size cap.

use crate::error::{Error, Result};
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

/// Largest `config.json` read (a real one is a few KiB).
pub const CONFIG_CAP: u64 = 16 << 20;
/// Largest sharding index read (1M tensor entries fit in about 60 MiB).
pub const INDEX_CAP: u64 = 64 << 20;
/// Largest Hugging Face cache `refs/*` file read (a revision hash is 40 bytes).
pub const REFS_CAP: u64 = 4 << 10;

/// Opens `path` read-only and returns it with its metadata, refusing anything but a regular file.
/// The open itself never blocks: it uses `O_NONBLOCK` (meaningless for regular files, but it keeps
/// a FIFO's open from waiting for a writer), and the type is checked on the opened descriptor, so
/// a path swapped between a check and the open cannot slip through.
pub fn open_regular(path: &Path) -> Result<(File, Metadata)> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(Error::InvalidCheckpoint {
            path: path.to_owned(),
            reason: format!(
                "is {}, not a regular file; refusing to read it",
                kind(&meta)
            ),
        });
    }
    Ok((file, meta))
}

/// Reads a small regular file whole, refusing one larger than `cap` bytes (checked on the size
/// before reading, and again while reading in case the file grows).
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>> {
    let (file, meta) = open_regular(path)?;
    let too_big = || Error::InvalidCheckpoint {
        path: path.to_owned(),
        reason: format!(
            "is larger than the {cap}-byte limit for this kind of file; refusing to read it"
        ),
    };
    if meta.len() > cap {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > cap {
        return Err(too_big());
    }
    Ok(bytes)
}

/// [`read_capped`] as UTF-8 text.
pub fn read_capped_text(path: &Path, cap: u64) -> Result<String> {
    String::from_utf8(read_capped(path, cap)?).map_err(|_| Error::InvalidCheckpoint {
        path: path.to_owned(),
        reason: "is not valid UTF-8 text".into(),
    })
}

fn kind(meta: &Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

#[cfg(test)]
mod tests;
