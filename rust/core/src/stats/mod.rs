//! Fused, parallel, deterministic per-tensor statistics: counts of NaN/±Inf/zero, finite min, max,
//! mean, population std, abs max and L2 norm, exact integer sums, BOOL true counts, and an optional
//! content hash, all in one pass over the bytes.
//!
//! Method: every tensor is cut into fixed chunks of `chunk_bytes` (by element index, independent
//! of threads). All chunks of all tensors run on one rayon pool. A chunk is walked in fixed blocks
//! of 4096 elements; each block is decoded exactly to a cache-resident `f64` buffer (a shift for
//! BF16, a 256-entry table for FP8, F4 and F6) and summarised with a corrected two-pass kernel.
//! Non-finite values are detected from a non-finite block result, then counted and filtered, so
//! clean blocks pay nothing for classification. Block partials merge into chunk partials, chunk
//! partials into the tensor result, always in element order with Chan's update: the result is
//! bit-for-bit the same for any thread count, and accurate even when mean ≫ std.
//!
//! Memory: per worker one 32 KiB scratch buffer; per chunk a few dozen bytes of partial.

mod chunk;
mod engine;
mod hash;
#[cfg(target_arch = "x86_64")]
mod kernel_avx2;
pub mod moments;
mod partial;
mod shifted;
#[cfg(target_arch = "x86_64")]
mod shifted_avx2;
mod types;

pub use engine::{compute_stats, CHUNK_QUANTUM};
pub use hash::hash_bytes;
pub use types::{StatsOptions, StatsTask, TensorStats, DEFAULT_CHUNK_BYTES};

#[cfg(test)]
mod tests;
