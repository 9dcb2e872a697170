//! The raw-read floor: one parallel pass that touches every byte of a set of buffers with about
//! one operation per 8 bytes (a wrapping sum of little-endian `u64` words).
//!
//! Benchmarks compare every data pass (stats, hashes, diff) against it: no pass that must look at
//! every byte can be faster than reading them, so `floor seconds / pass seconds` says how close to
//! memory (or page-cache) bandwidth a pass runs. The chunking, the thread pool and the optional
//! page release mirror [`crate::stats::compute_stats`], so both pay the same mapping costs.

use crate::{pages, Result};
use rayon::prelude::*;
use std::hint::black_box;

/// Bytes per parallel work item (a multiple of 8, so only a buffer's last item has a tail).
pub const FLOOR_CHUNK_BYTES: usize = 8 << 20;

/// How [`sum_words`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FloorOptions {
    /// Worker threads; `None` uses rayon's global pool.
    pub threads: Option<usize>,
    /// Drop each chunk's whole pages from the resident set after reading it (see
    /// [`crate::pages::release`]); only for bytes of a read-only file mapping.
    pub release_pages: bool,
}

/// The wrapping sum of all little-endian `u64` words of every buffer, read in parallel chunks of
/// [`FLOOR_CHUNK_BYTES`]. A buffer's trailing bytes that do not fill a word are added one by one.
/// The result does not depend on the thread count (wrapping addition is associative and
/// commutative) and is passed through [`black_box`] so the reads cannot be optimised away.
///
/// Errors: [`crate::Error::InvalidArgument`] for `threads: Some(0)` or when the pool cannot start.
pub fn sum_words(buffers: &[&[u8]], opts: &FloorOptions) -> Result<u64> {
    let chunks: Vec<&[u8]> = buffers
        .iter()
        .flat_map(|b| b.chunks(FLOOR_CHUNK_BYTES))
        .collect();
    let run = || {
        Ok(chunks
            .par_iter()
            .map(|chunk| {
                let sum = chunk_sum(chunk);
                if opts.release_pages {
                    pages::release(chunk);
                }
                sum
            })
            .reduce(|| 0, u64::wrapping_add))
    };
    let total = crate::pool::run_with_threads(opts.threads, run)?;
    Ok(black_box(total))
}

/// Wrapping sum of the `u64` words of `chunk`, plus its trailing bytes.
fn chunk_sum(chunk: &[u8]) -> u64 {
    let blocks = chunk.chunks_exact(32);
    let rest = blocks.remainder();
    // Four independent accumulators let the compiler vectorise and hide the add latency.
    let mut acc = [0u64; 4];
    for block in blocks {
        for (a, word) in acc.iter_mut().zip(block.chunks_exact(8)) {
            *a = a.wrapping_add(word_le(word));
        }
    }
    let mut sum = acc.iter().fold(0, |s: u64, &a| s.wrapping_add(a));
    let words = rest.chunks_exact(8);
    let tail = words.remainder();
    for word in words {
        sum = sum.wrapping_add(word_le(word));
    }
    tail.iter().fold(sum, |s, &b| s.wrapping_add(u64::from(b)))
}

/// The little-endian `u64` in an 8-byte slice (always 8 bytes here: callers use `chunks_exact`).
fn word_le(word: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(word);
    u64::from_le_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The obvious definition: every full word, then every tail byte, per buffer.
    fn reference(buffers: &[&[u8]]) -> u64 {
        let mut sum = 0u64;
        for b in buffers {
            let words = b.chunks_exact(8);
            for &byte in words.remainder() {
                sum = sum.wrapping_add(u64::from(byte));
            }
            for w in words {
                sum = sum.wrapping_add(u64::from_le_bytes(w.try_into().unwrap()));
            }
        }
        sum
    }

    fn opts(threads: Option<usize>) -> FloorOptions {
        FloorOptions {
            threads,
            release_pages: false,
        }
    }

    #[test]
    fn sums_words_and_tails() {
        let a: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 256) as u8).collect();
        let b = [0xFFu8; 13];
        let want = reference(&[&a, &b]);
        assert_eq!(sum_words(&[&a, &b], &opts(Some(1))).unwrap(), want);
        assert_eq!(sum_words(&[], &opts(None)).unwrap(), 0);
        let one = 1u64.to_le_bytes();
        assert_eq!(sum_words(&[&one, &[5]], &opts(None)).unwrap(), 6);
    }

    #[test]
    fn multi_chunk_buffers_match_for_any_thread_count() {
        let big: Vec<u8> = (0..FLOOR_CHUNK_BYTES * 2 + 1237)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let want = reference(&[&big]);
        for threads in [1, 2, 3] {
            assert_eq!(sum_words(&[&big], &opts(Some(threads))).unwrap(), want);
        }
    }

    #[test]
    fn zero_threads_is_an_argument_error() {
        let err = sum_words(&[&[1u8]], &opts(Some(0))).unwrap_err();
        assert!(matches!(err, crate::Error::InvalidArgument(_)));
    }

    #[test]
    fn release_pages_on_a_file_mapping_keeps_the_sum() {
        use std::io::Write;
        let mut file = tempfile::tempfile().unwrap();
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
        file.write_all(&data).unwrap();
        // SAFETY: the temporary file is private to this test and not modified while mapped.
        let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
        let with_release = FloorOptions {
            threads: Some(2),
            release_pages: true,
        };
        assert_eq!(
            sum_words(&[&map[3..]], &with_release).unwrap(),
            reference(&[&data[3..]])
        );
        assert_eq!(
            sum_words(&[&map[3..]], &with_release).unwrap(),
            reference(&[&data[3..]])
        );
    }

    proptest! {
        #[test]
        fn matches_reference(
            buffers in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..200), 0..6),
            threads in 1usize..4,
        ) {
            let slices: Vec<&[u8]> = buffers.iter().map(Vec::as_slice).collect();
            prop_assert_eq!(sum_words(&slices, &opts(Some(threads))).unwrap(), reference(&slices));
        }
    }
}
