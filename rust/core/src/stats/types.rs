//! The public request and result types of the statistics engine.

use crate::Dtype;

/// One tensor to summarise.
#[derive(Debug, Clone, Copy)]
pub struct StatsTask<'a> {
    /// Element type.
    pub dtype: Dtype,
    /// Number of elements (product of the shape; 1 for a scalar, 0 for an empty tensor).
    pub numel: u64,
    /// Exactly the tensor's bytes: `dtype.byte_len(numel)` of them, little-endian.
    pub data: &'a [u8],
}

/// How to run [`crate::stats::compute_stats`].
#[derive(Debug, Clone)]
pub struct StatsOptions {
    /// Worker threads: `Some(n)` runs on a private pool of `n` threads (`n >= 1`) built for this
    /// call, `None` on the global rayon pool (cheaper for many small calls). Results do not
    /// depend on this.
    pub threads: Option<usize>,
    /// Also compute the content hash (see [`crate::stats::hash_bytes`]) in the same pass.
    pub hash: bool,
    /// Size of the unit of parallel work, progress and cancellation, and the hash leaf size.
    /// Must be a positive multiple of 24 (so every chunk holds whole elements of every dtype).
    /// Results are identical for every thread count, but the hash depends on this value and the
    /// float statistics may differ in the last bits, so keep the default when comparing runs.
    pub chunk_bytes: usize,
    /// After each chunk, drop its whole pages from the resident set (see [`crate::pages::release`]).
    /// Only set this when every task's `data` lies in a read-only file mapping.
    pub release_pages: bool,
}

/// The default chunk size: 6 MiB (a multiple of 24).
pub const DEFAULT_CHUNK_BYTES: usize = 6 << 20;

impl Default for StatsOptions {
    fn default() -> Self {
        StatsOptions {
            threads: None,
            hash: false,
            chunk_bytes: DEFAULT_CHUNK_BYTES,
            release_pages: false,
        }
    }
}

/// Statistics of one tensor.
///
/// For float dtypes the value statistics (`min` .. `l2`) are over the finite elements only and
/// `None` when there are none. Integer and BOOL tensors have no non-finite elements; BOOL values
/// count as 0 and 1. C64 statistics are over the magnitudes |z| = hypot(re, im): an element is NaN
/// if either part is NaN, otherwise +Inf if either part is infinite (`neginf` stays 0), and zero if
/// both parts are zero.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorStats {
    /// Element type.
    pub dtype: Dtype,
    /// Number of elements.
    pub numel: u64,
    /// NaN elements.
    pub nan: u64,
    /// +Inf elements.
    pub posinf: u64,
    /// −Inf elements.
    pub neginf: u64,
    /// Elements equal to +0 or −0 (for BOOL: false elements).
    pub zeros: u64,
    /// Finite elements (`numel - nan - posinf - neginf`).
    pub finite: u64,
    /// Smallest finite value.
    pub min: Option<f64>,
    /// Largest finite value.
    pub max: Option<f64>,
    /// Mean of the finite values (for integers: the exact sum divided by the count, rounded once).
    pub mean: Option<f64>,
    /// Population standard deviation of the finite values.
    pub std: Option<f64>,
    /// Largest absolute finite value.
    pub abs_max: Option<f64>,
    /// Euclidean norm of the finite values.
    pub l2: Option<f64>,
    /// Exact minimum, for integer dtypes.
    pub int_min: Option<i128>,
    /// Exact maximum, for integer dtypes.
    pub int_max: Option<i128>,
    /// Exact sum, for integer dtypes (0 for an empty tensor).
    pub int_sum: Option<i128>,
    /// Number of true (non-zero) bytes, for BOOL.
    pub true_count: Option<u64>,
    /// Content hash of the bytes, when asked for.
    pub hash: Option<u128>,
}
