//! `sum_words`: the raw-read floor over a checkpoint's tensor bytes, for benchmarks (GIL released).

use crate::checkpoint::NativeCheckpoint;
use crate::errors::NativeError;
use crate::source::reraise;
use eagle3_inspect_core::fetch::for_each_batch;
use eagle3_inspect_core::floor::{self, FloorOptions};
use eagle3_inspect_core::NoProgress;
use pyo3::prelude::*;

/// The wrapping sum of the little-endian u64 words of the named readable tensors' bytes (all
/// readable ones when `names` is None): one parallel pass touching every byte, the floor any data
/// pass is measured against. `release_pages` drops each chunk's pages from the resident set after
/// reading it, as `tensor_stats` does.
#[pyfunction]
#[pyo3(signature = (checkpoint, names=None, *, threads=None, release_pages=true))]
pub fn sum_words(
    py: Python<'_>,
    checkpoint: &NativeCheckpoint,
    names: Option<Vec<String>>,
    threads: Option<usize>,
    release_pages: bool,
) -> PyResult<u64> {
    let ckpt = &*checkpoint.inner;
    let names = checkpoint.names_or_readable(names);
    let items: Vec<_> = names.iter().map(|n| (ckpt, n.as_str())).collect();
    // Through the batched fetch, so a ranged checkpoint is never held in memory whole; the
    // wrapping sum of the batches' sums is the sum over all of them.
    let sums = py.detach(|| {
        for_each_batch(&items, 1, threads, &NoProgress, |_, fetched, context| {
            let slices: Vec<&[u8]> = fetched.iter().map(|f| &*f.data).collect();
            let opts = FloorOptions {
                threads,
                release_pages: release_pages && context.mapped,
            };
            floor::sum_words(&slices, &opts).map(|sum| vec![sum])
        })
    });
    let sums = reraise(&[checkpoint], sums.map_err(|e| NativeError(e).into()))?;
    Ok(sums.into_iter().fold(0, u64::wrapping_add))
}
