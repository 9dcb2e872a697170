//! The per-chunk partial result, its fixed-order merge, and the conversion of a tensor's merged
//! partial into [`TensorStats`].

use super::moments::Moments;
use super::types::TensorStats;
use crate::Dtype;

/// Exact integer accumulators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IntAcc {
    pub sum: i128,
    pub min: i128,
    pub max: i128,
}

impl IntAcc {
    pub const EMPTY: IntAcc = IntAcc {
        sum: 0,
        min: i128::MAX,
        max: i128::MIN,
    };

    pub fn merge(&mut self, other: &IntAcc) {
        // Cannot overflow: fewer than 2^61 elements of magnitude at most 2^64.
        self.sum = self.sum.saturating_add(other.sum);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }
}

/// Everything one chunk contributes to its tensor's statistics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Partial {
    pub nan: u64,
    pub posinf: u64,
    pub neginf: u64,
    pub moments: Moments,
    pub ints: IntAcc,
    pub true_count: u64,
}

impl Partial {
    pub const EMPTY: Partial = Partial {
        nan: 0,
        posinf: 0,
        neginf: 0,
        moments: Moments::EMPTY,
        ints: IntAcc::EMPTY,
        true_count: 0,
    };

    /// Adds `other`, whose elements come after `self`'s.
    pub fn merge(&mut self, other: &Partial) {
        self.nan += other.nan;
        self.posinf += other.posinf;
        self.neginf += other.neginf;
        self.moments.merge(&other.moments);
        self.ints.merge(&other.ints);
        self.true_count += other.true_count;
    }

    /// The tensor statistics of a whole tensor's merged partial.
    pub fn finish(&self, dtype: Dtype, numel: u64, hash: Option<u128>) -> TensorStats {
        let m = &self.moments;
        let has = m.n > 0;
        let nf = m.n as f64;
        let is_int = dtype.is_int();
        let mean = if is_int && has {
            // The exact sum rounds once to f64, then one division.
            self.ints.sum as f64 / nf
        } else {
            m.mean
        };
        TensorStats {
            dtype,
            numel,
            nan: self.nan,
            posinf: self.posinf,
            neginf: self.neginf,
            zeros: m.zeros,
            finite: m.n,
            min: has.then_some(m.min),
            max: has.then_some(m.max),
            mean: has.then_some(mean),
            std: has.then(|| m.std()),
            abs_max: has.then(|| m.max.abs().max(m.min.abs())),
            // Σx² = M2 + n·mean²: two non-negative terms, so no cancellation.
            l2: has.then(|| m.l2()),
            int_min: (is_int && has).then_some(self.ints.min),
            int_max: (is_int && has).then_some(self.ints.max),
            int_sum: is_int.then_some(self.ints.sum),
            true_count: (dtype == Dtype::Bool).then_some(self.true_count),
            hash,
        }
    }
}
