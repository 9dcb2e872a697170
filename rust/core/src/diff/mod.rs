//! Numeric comparison of matched tensor pairs from two checkpoints: a bitwise fast path (a
//! memcmp per chunk before any decoding), then max/mean absolute difference with its location,
//! relative L2, cosine similarity and the count of elements outside `|a-b| <= atol + rtol*|b|`.
//!
//! Method. Each pair is cut into fixed chunks by element index (the chunk size depends only on
//! [`DiffOptions::chunk_bytes`] and the two dtypes), all chunks of all pairs run on one rayon
//! pool, and each pair's chunk partials merge in chunk order. Within a chunk, blocks of 4096
//! elements each sum into 16 lanes (element `j` of a block into lane `j % 16`, in order), reduced
//! in one fixed tree, and block results add up in block order: the portable, AVX2 and AVX-512
//! loops follow that order exactly, so results are bit-for-bit the same for any thread count and
//! on any CPU (see `lanes`). The vector loops count mismatches through an exact screen on the
//! raw bits (see `screen`): places a few units apart are certainly within tolerance. A chunk whose bytes are identical on both sides (same dtype) is not
//! decoded while its pair is not known to differ; once some chunk of the pair differs, identical
//! chunks get their norms at once, and those seen before that are revisited at the end (the only
//! bytes read twice). Memory is bounded by the chunk scratch buffers: nothing is copied out of
//! the maps.
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
#[cfg(target_arch = "x86_64")]
mod fused_avx512;
mod hashes;
mod kernel;
mod lanes;
mod plan;
mod screen;
mod tolerance;
mod types;

#[cfg(test)]
mod tests;

pub use engine::compare_pairs;
pub use hashes::content_hashes;
pub use tolerance::{default_tolerance, pair_tolerance};
pub use types::{DiffOptions, PairDiff, PairSide, PairStatus, PairTask};
