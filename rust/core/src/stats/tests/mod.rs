//! Tests of `compute_stats`: exact references (accuracy), thread-count and kernel-path invariance,
//! per-dtype semantics, edge cases and errors, and property tests.

mod accuracy;
mod dtypes;
mod edge;
mod invariance;
mod props;
mod range;

use super::*;
use crate::Dtype;
use crate::NoProgress;

/// A small deterministic generator (splitmix64) so the tests need no extra crate.
pub(super) fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed;
    move || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

pub(super) fn opts(threads: usize, chunk_bytes: usize) -> StatsOptions {
    StatsOptions {
        threads: Some(threads),
        hash: true,
        chunk_bytes,
        release_pages: false,
    }
}

pub(super) fn one(dtype: Dtype, data: &[u8], o: &StatsOptions) -> TensorStats {
    let numel = data.len() as u64 * 8 / dtype.bits();
    let task = StatsTask { dtype, numel, data };
    compute_stats(&[task], o, &NoProgress).unwrap().remove(0)
}

pub(super) fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(f64::MIN_POSITIVE)
}
