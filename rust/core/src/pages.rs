//! Dropping already-scanned pages of a read-only file mapping from the process's resident set, so
//! a pass over a checkpoint larger than RAM keeps its RSS bounded.

/// Tells the kernel the whole pages inside `bytes` are no longer needed (`MADV_DONTNEED` on the
/// page-aligned interior; partial pages at either end are left alone). No-op off unix.
///
/// Only call this on bytes that come from a read-only, file-backed mapping: there the pages are
/// dropped and transparently re-read from the file if touched again, so the contents never change.
/// On anonymous memory (a `Vec`, a private writable mapping) `MADV_DONTNEED` would zero them.
/// Errors from `madvise` are ignored: this is only a hint.
pub fn release(bytes: &[u8]) {
    #[cfg(unix)]
    {
        let Some((start, len)) = interior(bytes.as_ptr() as usize, bytes.len(), page_size()) else {
            return;
        };
        // SAFETY: [start, start + len) lies inside `bytes` (whole pages of its interior), which the
        // caller guarantees is part of a read-only file mapping. MADV_DONTNEED there only discards
        // clean page-cache references; later reads fault the same file contents back in, so no
        // Rust reference observes a change. No memory is unmapped or freed.
        unsafe {
            libc::madvise(start as *mut libc::c_void, len, libc::MADV_DONTNEED);
        }
    }
    #[cfg(not(unix))]
    let _ = bytes;
}

#[cfg(unix)]
fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size)
        .ok()
        .filter(|&s| s.is_power_of_two())
        .unwrap_or(4096)
}

/// The largest page-aligned `(start, len)` inside `[addr, addr + len)`, `None` if it holds no
/// whole page.
fn interior(addr: usize, len: usize, page: usize) -> Option<(usize, usize)> {
    let end = addr.checked_add(len)?;
    let start = addr.checked_add(page - 1)? & !(page - 1);
    let stop = end & !(page - 1);
    (stop > start).then(|| (start, stop - start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interior_is_page_aligned_and_inside() {
        assert_eq!(interior(4096, 8192, 4096), Some((4096, 8192)));
        assert_eq!(interior(4097, 8192, 4096), Some((8192, 4096)));
        assert_eq!(interior(4097, 4000, 4096), None);
        assert_eq!(interior(usize::MAX - 10, 10, 4096), None);
    }

    #[test]
    fn release_on_a_file_mapping_keeps_contents() {
        use std::io::Write;
        let mut file = tempfile::tempfile().unwrap();
        let data: Vec<u8> = (0..64 * 1024).map(|i| (i % 251) as u8).collect();
        file.write_all(&data).unwrap();
        // SAFETY: the temporary file is private to this test and not modified while mapped.
        let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
        release(&map[100..]);
        assert_eq!(&map[..], &data[..]);
    }
}
