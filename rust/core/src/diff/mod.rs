//! Numeric comparison of matched tensor pairs from two checkpoints: a bitwise fast path (a
//! memcmp per chunk before any decoding), then max/mean absolute difference with its location,
//! relative L2, cosine similarity and the count of elements outside `|a-b| <= atol + rtol*|b|`.
//!
//! Method. Each pair is cut into fixed chunks by element index (the chunk size depends only on
//! [`DiffOptions::chunk_bytes`] and the two dtypes), all chunks of all pairs run on one rayon
//! pool, and each pair's chunk partials merge in chunk order, so results are bit-for-bit the same
//! for any thread count. A chunk whose bytes are identical on both sides (same dtype) is not
//! decoded; only when some other chunk of the same pair differs is it revisited to add its norms.
//! Memory is bounded by the chunk scratch buffers: nothing is copied out of the maps.
//!
//! Values compare in `f64` (every element of every dtype decodes exactly, integers above 2^53
//! round). NaN equals only NaN at the same place; an infinity equals only the same infinity.
//! The magnitude metrics (max/mean abs, norms, cosine) are over the places where both values are
//! finite; `mismatched` counts every place that fails the tolerance rule, non-finite ones too.

mod accum;
mod engine;
mod fused;
#[cfg(target_arch = "x86_64")]
mod fused_avx2;
mod hashes;
mod kernel;
mod plan;
mod tolerance;
mod types;

#[cfg(test)]
mod tests;

pub use engine::compare_pairs;
pub use hashes::content_hashes;
pub use tolerance::{default_tolerance, pair_tolerance};
pub use types::{DiffOptions, PairDiff, PairSide, PairStatus, PairTask};
