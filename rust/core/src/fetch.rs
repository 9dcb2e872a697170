//! Tensor bytes for a data pass over many tensors: borrowed from the maps all at once, or read
//! from ranged sources in parallel, in batches of bounded size, so a pass over a remote
//! checkpoint holds at most [`FETCH_BATCH_BYTES`] of it in memory whatever its size.

use crate::header::TensorEntry;
use crate::progress::Progress;
use crate::shard::Shard;
use crate::{Checkpoint, Result};
use rayon::prelude::*;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most bytes of ranged tensor data one pass holds at once (a larger tensor is read alone).
pub const FETCH_BATCH_BYTES: u64 = 256 << 20;

/// The batch limit in force: [`FETCH_BATCH_BYTES`] unless a test lowered it.
static BATCH_LIMIT: AtomicU64 = AtomicU64::new(FETCH_BATCH_BYTES);

/// Sets the batch limit for every later pass in the process and returns the previous one (0
/// restores [`FETCH_BATCH_BYTES`]). For tests only: they prove the memory bound on a few MiB
/// instead of several times 256 MiB.
#[doc(hidden)]
pub fn set_batch_limit_for_tests(bytes: u64) -> u64 {
    let bytes = if bytes == 0 { FETCH_BATCH_BYTES } else { bytes };
    BATCH_LIMIT.swap(bytes, Ordering::Relaxed)
}

/// Concurrent ranged reads when the caller does not choose: reads wait on the network, not on
/// the cores, so more are in flight than there are cores.
pub const FETCH_THREADS: usize = 8;

/// One tensor's bytes with where they come from.
#[derive(Debug)]
pub struct Fetched<'a> {
    /// The shard holding it.
    pub shard: &'a Shard,
    /// Its header entry.
    pub entry: &'a TensorEntry,
    /// Its bytes.
    pub data: Cow<'a, [u8]>,
}

/// What a batch's work is told besides its bytes.
pub struct BatchContext<'p> {
    /// Progress and cancellation for the work. For ranged bytes the reads already advanced the
    /// progress, so this one only carries cancellation.
    pub progress: &'p dyn Progress,
    /// True when every byte is borrowed from a map (page release after reading is then safe; on
    /// read buffers it would zero live heap pages).
    pub mapped: bool,
}

struct CancelOnly<'p>(&'p dyn Progress);

impl Progress for CancelOnly<'_> {
    fn advance(&self, _bytes: u64) {}
    fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

/// Runs `work` over the bytes of `items` (`(checkpoint, tensor name)`), in item order, grouped
/// `group` items at a time (a batch never splits a group: diff's pairs are groups of two), and
/// concatenates its outputs. All in one batch when nothing is ranged; otherwise batches of at
/// most [`FETCH_BATCH_BYTES`] (a tensor larger than that alone), each read on `threads` threads (default [`FETCH_THREADS`]) before
/// its work runs.
pub fn for_each_batch<'c, R>(
    items: &[(&'c Checkpoint, &str)],
    group: usize,
    threads: Option<usize>,
    progress: &dyn Progress,
    mut work: impl FnMut(Range<usize>, Vec<Fetched<'c>>, &BatchContext<'_>) -> Result<Vec<R>>,
) -> Result<Vec<R>> {
    let ranged = items.iter().any(|(c, _)| c.is_ranged());
    if !ranged {
        let fetched = items
            .iter()
            .map(|(c, n)| fetch_one(c, n))
            .collect::<Result<Vec<_>>>()?;
        let context = BatchContext {
            progress,
            mapped: true,
        };
        return work(0..items.len(), fetched, &context);
    }
    let cancel_only = CancelOnly(progress);
    let context = BatchContext {
        progress: &cancel_only,
        mapped: false,
    };
    let mut out = Vec::with_capacity(items.len() / group.max(1));
    let sizes: Vec<u64> = items.iter().map(|(c, n)| declared_len(c, n)).collect();
    // One pool for the whole pass: a pool per batch would start and retire threads per batch.
    let pool = crate::pool::build_pool(threads.unwrap_or(FETCH_THREADS))?;
    let limit = BATCH_LIMIT.load(Ordering::Relaxed);
    for range in batches(&sizes, group.max(1), limit) {
        let fetched = pool.install(|| {
            items[range.clone()]
                .par_iter()
                .map(|(c, n)| {
                    if progress.is_cancelled() {
                        return Err(crate::Error::Cancelled);
                    }
                    let one = fetch_one(c, n)?;
                    progress.advance(one.data.len() as u64);
                    Ok(one)
                })
                .collect::<Result<Vec<_>>>()
        })?;
        out.extend(work(range, fetched, &context)?);
    }
    Ok(out)
}

fn fetch_one<'c>(ckpt: &'c Checkpoint, name: &str) -> Result<Fetched<'c>> {
    let (shard, entry, data) = ckpt.tensor_bytes(name)?;
    Ok(Fetched { shard, entry, data })
}

/// Consecutive ranges of whole groups (of `group` sizes) whose sizes sum to at most `limit`; a
/// group over the limit is a batch alone. Covers every index once, in order.
fn batches(sizes: &[u64], group: usize, limit: u64) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0usize, 0u64);
    for (g, chunk) in sizes.chunks(group).enumerate() {
        let size = chunk.iter().fold(0u64, |a, &b| a.saturating_add(b));
        let at = g * group;
        if at > start && bytes.saturating_add(size) > limit {
            out.push(start..at);
            (start, bytes) = (at, 0);
        }
        bytes = bytes.saturating_add(size);
    }
    if start < sizes.len() {
        out.push(start..sizes.len());
    }
    out
}

fn declared_len(ckpt: &Checkpoint, name: &str) -> u64 {
    ckpt.entry(name).and_then(|(_, e)| e.nbytes()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::batches;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn batches_cover_everything_in_order_within_the_limit(
            sizes in proptest::collection::vec(0u64..100, 0..40),
            group in 1usize..3,
            limit in 1u64..300,
        ) {
            let out = batches(&sizes, group, limit);
            let mut next = 0;
            for range in &out {
                prop_assert_eq!(range.start, next);
                prop_assert!(range.end > range.start);
                prop_assert!(range.start % group == 0);
                let total: u64 = sizes[range.clone()].iter().sum();
                prop_assert!(total <= limit || range.len() <= group, "{range:?} {total}");
                next = range.end;
            }
            prop_assert_eq!(next, sizes.len());
        }
    }
}
