//! Fused, parallel, deterministic per-tensor statistics: counts of NaN/±Inf/zero, finite min, max,
//! mean, population std, abs max and L2 norm, exact integer sums, BOOL true counts, and an optional
//! content hash, all in one pass over the bytes.
//!
//! Method: every tensor is cut into fixed chunks of `chunk_bytes` (by element index, independent
//! of threads). All chunks of all tensors run on one rayon pool, so one large tensor uses every
//! core and many small ones spread too. A chunk is walked in fixed blocks of 4096 elements:
//! - BF16, F16, F32 blocks go through a single-pass kernel straight from the bytes (AVX-512 or
//!   AVX2 when available): f32 min/max/zero lanes, f64 sums of d and d² with d = x − K around a
//!   shift K near the mean, retried with a better K when cancellation would cost precision
//!   (see the `shifted` module).
//! - BOOL, U8, I8, every FP8 and F4 chunks are counted into a 256-bin byte histogram; all
//!   statistics then come exactly (counts, min, max, sums) or to a few ulps (mean, M2) from it.
//! - Every other dtype, and any block holding NaN/Inf, is decoded exactly into a cache-resident
//!   `f64` buffer (a table for F6) and summarised with a corrected two-pass kernel; non-finite
//!   values are counted and filtered first. Integers also get exact i128 sums.
//!
//! Block partials merge into chunk partials and chunk partials into the tensor result, always
//! in element order with Chan's update; no step depends on the thread count, so results are
//! bit-for-bit identical for any `threads`, and accurate even when mean ≫ std (never
//! `E[x²] − E[x]²`). The hash is a fixed-leaf xxh3-128 tree ([`hash_bytes`]) over the same chunks,
//! each leaf accumulated block by block right after the statistics kernel read the block (`xxh3`,
//! with its long-input loop on AVX-512 or AVX2 when the CPU has them).
//!
//! Memory: per worker one 32 KiB scratch buffer; per chunk ~100 bytes of partial, kept until
//! the end (a 1 TB checkpoint in 6 MiB chunks: ~17 MB).

pub(crate) mod chunk;
mod engine;
mod finite_block;
mod hash;
mod histogram;
pub mod moments;
#[cfg(target_arch = "x86_64")]
mod moments_avx2;
pub(crate) mod partial;
mod pow2;
mod shifted;
mod shifted_acc;
#[cfg(target_arch = "x86_64")]
mod shifted_avx2;
#[cfg(target_arch = "x86_64")]
mod shifted_avx512;
mod types;
mod xxh3;
#[cfg(target_arch = "x86_64")]
mod xxh3_avx2;
#[cfg(target_arch = "x86_64")]
mod xxh3_avx512;

pub use engine::{compute_stats, CHUNK_QUANTUM};
pub use hash::hash_bytes;
pub use types::{StatsOptions, StatsTask, TensorStats, DEFAULT_CHUNK_BYTES};
pub use xxh3::xxh3_128;

#[cfg(test)]
mod tests;
