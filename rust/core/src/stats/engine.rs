//! [`compute_stats`]: validates the tasks, cuts every tensor into fixed chunks, runs all chunks of
//! all tensors on one rayon pool (so a single large tensor uses every core, and many small ones are
//! spread too), then merges each tensor's chunk partials in chunk order.

use super::chunk::{chunk_partial, BLOCK_ELEMS};
use super::hash::combine_leaves;
use super::partial::Partial;
use super::types::{StatsOptions, StatsTask, TensorStats};
use super::xxh3::Leaf;
use crate::{pages, Error, Progress, Result};
use rayon::prelude::*;

/// Chunk sizes must be a multiple of this, so every chunk holds whole elements of every dtype
/// (8-byte elements, 3-byte F6 groups).
pub const CHUNK_QUANTUM: usize = 24;

/// One chunk: which task, and which bytes of it.
struct Item {
    task: usize,
    start: usize,
    end: usize,
}

/// What a chunk produces.
struct ChunkOut {
    partial: Partial,
    leaf: Option<u128>,
}

/// Statistics of every task, in task order. See [`TensorStats`] for the fields, the crate docs of
/// [`crate::stats`] for the method. Results are bit-for-bit identical for any thread count.
///
/// Errors: [`Error::InvalidArgument`] for a task whose byte length is not `dtype × numel`, a
/// `chunk_bytes` that is not a positive multiple of 24, or `threads: Some(0)`;
/// [`Error::Cancelled`] when `progress` asks to stop (checked before every chunk).
pub fn compute_stats(
    tasks: &[StatsTask<'_>],
    opts: &StatsOptions,
    progress: &dyn Progress,
) -> Result<Vec<TensorStats>> {
    validate(tasks, opts)?;
    let items = plan(tasks, opts.chunk_bytes);
    let run = || -> Result<Vec<ChunkOut>> {
        items
            .par_iter()
            .map_init(
                || Vec::with_capacity(2 * BLOCK_ELEMS),
                |buf, item| run_item(tasks, item, opts, progress, buf),
            )
            .collect()
    };
    let outs = crate::pool::run_with_threads(opts.threads, run)?;
    Ok(assemble(tasks, &items, &outs, opts.hash))
}

fn validate(tasks: &[StatsTask<'_>], opts: &StatsOptions) -> Result<()> {
    if opts.chunk_bytes == 0 || !opts.chunk_bytes.is_multiple_of(CHUNK_QUANTUM) {
        return Err(Error::InvalidArgument(format!(
            "chunk_bytes must be a positive multiple of {CHUNK_QUANTUM}, got {}",
            opts.chunk_bytes
        )));
    }
    crate::pool::check_threads(opts.threads)?;
    for (i, t) in tasks.iter().enumerate() {
        let want = t.dtype.byte_len(t.numel);
        if want != Some(t.data.len() as u64) {
            let want = want.map_or("an impossible number of".to_string(), |w| w.to_string());
            return Err(Error::InvalidArgument(format!(
                "task {i}: {} x {} needs {want} bytes, got {}",
                t.numel,
                t.dtype,
                t.data.len()
            )));
        }
    }
    Ok(())
}

/// Fixed chunks in task order, then byte order.
fn plan(tasks: &[StatsTask<'_>], chunk_bytes: usize) -> Vec<Item> {
    let mut items = Vec::new();
    for (task, t) in tasks.iter().enumerate() {
        let mut start = 0;
        while start < t.data.len() {
            let end = t.data.len().min(start.saturating_add(chunk_bytes));
            items.push(Item { task, start, end });
            start = end;
        }
    }
    items
}

fn run_item(
    tasks: &[StatsTask<'_>],
    item: &Item,
    opts: &StatsOptions,
    progress: &dyn Progress,
    buf: &mut Vec<f64>,
) -> Result<ChunkOut> {
    if progress.is_cancelled() {
        return Err(Error::Cancelled);
    }
    let task = &tasks[item.task];
    let bytes = &task.data[item.start..item.end];
    let mut leaf = opts.hash.then(|| Leaf::new(bytes));
    let partial = chunk_partial(task.dtype, bytes, leaf.as_mut(), buf);
    // The leaf's last partial block and last stripe are read by `finish`: before the pages go,
    // while they are still in cache (after, a mapped page would fault back in).
    let leaf = leaf.map(Leaf::finish);
    if opts.release_pages {
        pages::release(bytes);
    }
    progress.advance(bytes.len() as u64);
    Ok(ChunkOut { partial, leaf })
}

/// Merges each task's chunk outputs in chunk order.
fn assemble(
    tasks: &[StatsTask<'_>],
    items: &[Item],
    outs: &[ChunkOut],
    hash: bool,
) -> Vec<TensorStats> {
    let mut next = 0;
    tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let first = next;
            while next < items.len() && items[next].task == i {
                next += 1;
            }
            let mine = &outs[first..next];
            let mut total = Partial::EMPTY;
            for out in mine {
                total.merge(&out.partial);
            }
            let digest = hash
                .then(|| combine_leaves(mine.iter().filter_map(|o| o.leaf), t.data.len() as u64));
            total.finish(t.dtype, t.numel, digest)
        })
        .collect()
}
