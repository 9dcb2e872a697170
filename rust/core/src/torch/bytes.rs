//! The bytes of a torch file as the readers here see them: a memory map (reads borrow from it)
//! or a ranged source (reads fetch exactly the bytes asked for), behind one small trait, so the
//! zip and legacy readers run unchanged over a local file and a file on the Hub.

use crate::progress::Progress;
use crate::source::{read_exact, RangeSource};
use std::borrow::Cow;

/// A file read by ranges.
pub trait FileBytes {
    /// The file's length.
    fn len(&self) -> u64;

    /// True for an empty file.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Exactly `len` bytes at `offset`, or why they cannot be had (past the end, a failed read).
    fn read(&self, offset: u64, len: u64) -> Result<Cow<'_, [u8]>, String>;

    /// True when reads borrow from memory (any length costs nothing), false when each read
    /// fetches its bytes (read what is needed, in growing windows).
    fn is_mapped(&self) -> bool {
        false
    }
}

fn past_end(offset: u64, len: u64, file_len: u64) -> String {
    format!("{len} bytes at byte offset {offset} lie past the end of the {file_len}-byte file")
}

impl FileBytes for &[u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }

    fn read(&self, offset: u64, len: u64) -> Result<Cow<'_, [u8]>, String> {
        let range = offset
            .checked_add(len)
            .filter(|&end| end <= FileBytes::len(self))
            .and_then(|end| Some(usize::try_from(offset).ok()?..usize::try_from(end).ok()?));
        match range {
            Some(range) => Ok(Cow::Borrowed(&self[range])),
            None => Err(past_end(offset, len, FileBytes::len(self))),
        }
    }

    fn is_mapped(&self) -> bool {
        true
    }
}

/// A ranged source, with cancellation checked before each read.
pub struct Ranged<'a> {
    /// The source.
    pub source: &'a dyn RangeSource,
    /// Cancellation.
    pub progress: &'a dyn Progress,
}

impl FileBytes for Ranged<'_> {
    fn len(&self) -> u64 {
        self.source.len()
    }

    fn read(&self, offset: u64, len: u64) -> Result<Cow<'_, [u8]>, String> {
        if self.progress.is_cancelled() {
            return Err("cancelled".into());
        }
        if offset
            .checked_add(len)
            .is_none_or(|end| end > self.source.len())
        {
            return Err(past_end(offset, len, self.source.len()));
        }
        let len = usize::try_from(len).map_err(|_| format!("{len} bytes is too much to read"))?;
        read_exact(self.source, offset, len).map(Cow::Owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_past_the_end_are_errors_not_short_reads() {
        let data: &[u8] = b"abcdef";
        assert_eq!(&*data.read(2, 3).unwrap(), b"cde");
        assert_eq!(&*data.read(6, 0).unwrap(), b"");
        assert!(data.read(4, 3).is_err());
        assert!(data.read(u64::MAX, 2).is_err());
    }
}
