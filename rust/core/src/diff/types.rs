//! The public request and result types of the numeric diff.

use crate::stats::DEFAULT_CHUNK_BYTES;
use crate::Dtype;

/// One side of a pair: a tensor's dtype, shape and exact bytes.
#[derive(Debug, Clone, Copy)]
pub struct PairSide<'a> {
    /// Element type.
    pub dtype: Dtype,
    /// Shape (empty for a scalar).
    pub shape: &'a [u64],
    /// Exactly the tensor's bytes: `dtype.byte_len(product(shape))` of them.
    pub data: &'a [u8],
}

impl PairSide<'_> {
    /// Number of elements, `None` when the shape product overflows.
    pub fn numel(&self) -> Option<u64> {
        self.shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d))
    }
}

/// Two tensors to compare: `a` is the reference side of `rel_l2`, `b` the side of the tolerance
/// rule's `rtol * |b|` (as in `torch.testing.assert_close(actual=a, expected=b)`).
#[derive(Debug, Clone, Copy)]
pub struct PairTask<'a> {
    /// Side A.
    pub a: PairSide<'a>,
    /// Side B.
    pub b: PairSide<'a>,
}

/// How to run [`crate::diff::compare_pairs`].
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// Worker threads: `Some(n)` runs on a private pool of `n` threads, `None` on the global pool.
    /// Results do not depend on this.
    pub threads: Option<usize>,
    /// Relative tolerance for every pair; `None` uses [`crate::diff::pair_tolerance`].
    pub rtol: Option<f64>,
    /// Absolute tolerance for every pair; `None` uses [`crate::diff::pair_tolerance`].
    pub atol: Option<f64>,
    /// Target bytes per chunk on the wider side (the unit of work, progress and cancellation).
    /// Must be positive; results depend on it only through floating-point summation order.
    pub chunk_bytes: usize,
    /// After each chunk, drop its whole pages from the resident set (see
    /// [`crate::pages::release`]). Only set this when all data lies in read-only file mappings.
    pub release_pages: bool,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            threads: None,
            rtol: None,
            atol: None,
            chunk_bytes: DEFAULT_CHUNK_BYTES,
            release_pages: false,
        }
    }
}

/// The verdict on one pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairStatus {
    /// Same dtype, same shape, identical bytes.
    Equal,
    /// Same shape and every element within tolerance, but the bytes (or dtype) differ.
    Close,
    /// Shape or element count changed, values cannot be compared, or some element is outside
    /// tolerance.
    Differ,
}

impl PairStatus {
    /// `"equal"`, `"close"` or `"differ"`.
    pub fn name(self) -> &'static str {
        match self {
            PairStatus::Equal => "equal",
            PairStatus::Close => "close",
            PairStatus::Differ => "differ",
        }
    }
}

/// The comparison of one pair.
///
/// The metric fields are `None` when the values were not compared (element counts differ, or
/// C64 against a real dtype). Pairs with equal element counts but different shapes are compared
/// in flat row-major order (a reshape shows as all-equal values) and are still `Differ`.
/// Bitwise-equal pairs are not decoded: their metrics are the identity values (0 differences,
/// `rel_l2` 0, `cosine` 1, no mismatches, no location).
#[derive(Debug, Clone, PartialEq)]
pub struct PairDiff {
    /// The verdict.
    pub status: PairStatus,
    /// True when the dtypes are equal and the bytes are identical.
    pub bytes_equal: bool,
    /// Values compared (for C64 pairs: real and imaginary parts, so twice the element count).
    pub numel: u64,
    /// Relative tolerance used.
    pub rtol: f64,
    /// Absolute tolerance used.
    pub atol: f64,
    /// Largest |a - b| over places where both are finite.
    pub max_abs: Option<f64>,
    /// Flat index of the first place attaining `max_abs` (None when it is 0 or nothing compared).
    pub max_abs_index: Option<u64>,
    /// `max_abs_index` as a multi-index into A's shape.
    pub max_abs_at: Option<Vec<u64>>,
    /// Mean |a - b| over places where both are finite.
    pub mean_abs: Option<f64>,
    /// ||a - b|| / ||a|| over places where both are finite (0 when both norms are 0; None when
    /// only ||a|| is 0, or when a sum of squares overflows `f64`).
    pub rel_l2: Option<f64>,
    /// a·b / (||a|| ||b||) over places where both are finite (1 when both are all zero; None
    /// when exactly one is, or when a sum overflows `f64`).
    pub cosine: Option<f64>,
    /// Places outside `|a-b| <= atol + rtol*|b|`, counting NaN-vs-non-NaN and mismatched
    /// infinities. For two I64 (or two U64) tensors with exact tolerance: elements whose raw
    /// values differ, even where both round to the same `f64`.
    pub mismatched: Option<u64>,
    /// The part of `mismatched` where at least one side is NaN or infinite.
    pub nonfinite_mismatched: Option<u64>,
}
