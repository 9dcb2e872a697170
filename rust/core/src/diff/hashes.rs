//! Content hashes of whole tensors in parallel, for detecting renamed tensors by identical bytes.

use crate::stats::{hash_bytes, DEFAULT_CHUNK_BYTES};
use crate::{pages, Error, Progress, Result};
use rayon::prelude::*;

/// The content hash ([`crate::stats::hash_bytes`] with the default leaf size, so it equals the
/// `hash` of [`crate::stats::compute_stats`]) of each byte slice, in order. Runs on a private
/// pool of `threads` threads when given. With `release_pages` (only for slices of read-only file
/// mappings) each tensor's whole pages leave the resident set once hashed. Errors: [`Error::Cancelled`] (checked per tensor),
/// [`Error::InvalidArgument`] for `threads: Some(0)`.
pub fn content_hashes(
    data: &[&[u8]],
    threads: Option<usize>,
    release_pages: bool,
    progress: &dyn Progress,
) -> Result<Vec<u128>> {
    let run = || -> Result<Vec<u128>> {
        data.par_iter()
            .map(|bytes| {
                if progress.is_cancelled() {
                    return Err(Error::Cancelled);
                }
                let hash = hash_bytes(bytes, DEFAULT_CHUNK_BYTES);
                if release_pages {
                    pages::release(bytes);
                }
                progress.advance(bytes.len() as u64);
                Ok(hash)
            })
            .collect()
    };
    crate::pool::run_with_threads(threads, run)
}
