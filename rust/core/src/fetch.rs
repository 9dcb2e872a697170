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

impl Fetched<'_> {
    /// True when the bytes are borrowed from the shard's read-only file map (page release after
    /// reading is then safe). A torch view's materialized values (strided, byte-swapped or
    /// inflated) and a ranged source's reads are heap buffers: releasing their pages would zero
    /// them under the pass still reading them.
    pub fn is_mapped(&self) -> bool {
        !self.shard.is_ranged() && matches!(self.data, Cow::Borrowed(_))
    }
}

/// What a batch's work is told besides its bytes.
pub struct BatchContext<'p> {
    /// Progress and cancellation for the work. For ranged bytes the reads already advanced the
    /// progress, so this one only carries cancellation.
    pub progress: &'p dyn Progress,
    /// True when every byte of the batch is borrowed from a map ([`Fetched::is_mapped`]: page
    /// release after reading is then safe; on read or materialized buffers it would zero live
    /// heap pages).
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
            mapped: fetched.iter().all(Fetched::is_mapped),
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
    use super::{batches, for_each_batch, Fetched};
    use crate::stats::{compute_stats, hash_bytes, StatsOptions, StatsTask, DEFAULT_CHUNK_BYTES};
    use crate::torch::test_files::{f32s, state_dict, torch_zip, Spec};
    use crate::{Checkpoint, Dtype, NoProgress};
    use proptest::prelude::*;

    /// A 64 x 4096 F32 weight `w` (1 MiB, many whole pages) and `t`, its transpose: a strided
    /// torch view whose values are materialized into a heap buffer when read.
    fn weight_and_transpose() -> (tempfile::TempDir, Vec<f32>, Vec<f32>) {
        let (rows, cols) = (64usize, 4096usize);
        let values: Vec<f32> = (0..rows * cols)
            .map(|i| (i % 1009) as f32 - 500.0)
            .collect();
        let transposed: Vec<f32> = (0..rows * cols)
            .map(|i| values[(i % rows) * cols + i / rows])
            .collect();
        let mut w = Spec::plain("w", "FloatStorage", "0", &[rows as u64, cols as u64]);
        let mut t = w.clone();
        t.name = "t".into();
        t.shape = vec![cols as u64, rows as u64];
        t.stride = vec![1, cols as u64];
        w.numel = (rows * cols) as u64;
        let bytes = torch_zip(state_dict(&[w, t], false), &[("0", f32s(&values))]);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pytorch_model.bin"), bytes).unwrap();
        (dir, values, transposed)
    }

    /// A materialized view is a heap buffer: its batch must not be released as a file map's
    /// pages (that zeroed the bytes under the pass, so the hash, whose last block is read after
    /// the statistics, was that of zeros), and a stats pass hashes its logical values.
    #[test]
    fn a_batch_holding_a_materialized_torch_view_is_not_mapped_and_hashes_its_values() {
        let (dir, values, transposed) = weight_and_transpose();
        let ckpt = Checkpoint::open(dir.path()).unwrap();
        for (names, want_mapped) in [(&["w"][..], true), (&["w", "t"][..], false)] {
            let items: Vec<_> = names.iter().map(|n| (&ckpt, *n)).collect();
            let hashes = for_each_batch(&items, 1, Some(2), &NoProgress, |_, fetched, context| {
                assert_eq!(context.mapped, want_mapped, "{names:?}");
                assert!(fetched[0].is_mapped(), "a zero-copy tensor is mapped");
                assert_eq!(fetched.iter().all(Fetched::is_mapped), want_mapped);
                let tasks: Vec<_> = fetched
                    .iter()
                    .map(|f| StatsTask {
                        dtype: Dtype::F32,
                        numel: f.entry.numel().unwrap(),
                        data: &f.data,
                    })
                    .collect();
                let opts = StatsOptions {
                    threads: Some(2),
                    hash: true,
                    release_pages: context.mapped,
                    ..StatsOptions::default()
                };
                let stats = compute_stats(&tasks, &opts, context.progress)?;
                Ok(stats.into_iter().map(|s| s.hash.unwrap()).collect())
            })
            .unwrap();
            let logical = [f32s(&values), f32s(&transposed)];
            for (hash, want) in hashes.iter().zip(&logical) {
                assert_eq!(*hash, hash_bytes(want, DEFAULT_CHUNK_BYTES), "{names:?}");
            }
        }
    }

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
