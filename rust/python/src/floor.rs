//! `sum_words`: the raw-read floor over a checkpoint's tensor bytes, for benchmarks (GIL released).

use crate::checkpoint::NativeCheckpoint;
use crate::errors::NativeError;
use eagle3_inspect_core::floor::{self, FloorOptions};
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
    let mut buffers = Vec::with_capacity(names.len());
    for name in &names {
        let (_, _, data) = ckpt.tensor_bytes(name).map_err(NativeError)?;
        buffers.push(data);
    }
    let slices: Vec<&[u8]> = buffers.iter().map(|b| &**b).collect();
    let opts = FloorOptions {
        threads,
        release_pages: release_pages && !ckpt.is_ranged(),
    };
    let sum = py.detach(|| floor::sum_words(&slices, &opts));
    Ok(sum.map_err(NativeError)?)
}
