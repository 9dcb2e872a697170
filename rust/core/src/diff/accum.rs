//! The per-chunk accumulator of a pair comparison, its in-order merge, and the metrics it yields.

/// Everything one chunk contributes: sums over places where both values are finite, the first
/// place of the largest difference, and mismatch counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Acc {
    /// Places where both values are finite.
    pub finite: u64,
    pub max_abs: f64,
    /// Flat index of the first place attaining `max_abs` (only meaningful when `max_abs > 0`).
    pub max_index: u64,
    pub sum_abs: f64,
    pub sum_sq_diff: f64,
    pub sum_sq_a: f64,
    pub sum_sq_b: f64,
    pub dot: f64,
    pub mismatched: u64,
    pub nonfinite_mismatched: u64,
}

impl Acc {
    pub const EMPTY: Acc = Acc {
        finite: 0,
        max_abs: 0.0,
        max_index: 0,
        sum_abs: 0.0,
        sum_sq_diff: 0.0,
        sum_sq_a: 0.0,
        sum_sq_b: 0.0,
        dot: 0.0,
        mismatched: 0,
        nonfinite_mismatched: 0,
    };

    /// Adds `other`, whose places all come after `self`'s: a tie in `max_abs` keeps the earlier
    /// place, so the location is the first occurrence, as `numpy.argmax` reports it.
    pub fn merge(&mut self, other: &Acc) {
        if other.max_abs > self.max_abs {
            self.max_abs = other.max_abs;
            self.max_index = other.max_index;
        }
        self.finite += other.finite;
        self.sum_abs += other.sum_abs;
        self.sum_sq_diff += other.sum_sq_diff;
        self.sum_sq_a += other.sum_sq_a;
        self.sum_sq_b += other.sum_sq_b;
        self.dot += other.dot;
        self.mismatched += other.mismatched;
        self.nonfinite_mismatched += other.nonfinite_mismatched;
    }

    /// Mean |a - b| over the finite places (0 when there are none).
    pub fn mean_abs(&self) -> f64 {
        if self.finite == 0 {
            0.0
        } else {
            self.sum_abs / self.finite as f64
        }
    }

    /// True when a sum of squares overflowed (F64 values beyond about 1e154): the norm-based
    /// metrics are then not representable and reported as None.
    fn overflowed(&self) -> bool {
        !(self.sum_sq_a.is_finite() && self.sum_sq_b.is_finite() && self.sum_sq_diff.is_finite())
    }

    /// ||a - b|| / ||a||: 0 when both are 0, None when only ||a|| is (or on overflow).
    pub fn rel_l2(&self) -> Option<f64> {
        if self.overflowed() {
            None
        } else if self.sum_sq_a > 0.0 {
            Some((self.sum_sq_diff / self.sum_sq_a).sqrt())
        } else {
            (self.sum_sq_diff == 0.0).then_some(0.0)
        }
    }

    /// a·b / (||a|| ||b||): 1 when both are all zero, None when exactly one is (or on overflow).
    pub fn cosine(&self) -> Option<f64> {
        if self.overflowed() || !self.dot.is_finite() {
            return None;
        }
        match (self.sum_sq_a > 0.0, self.sum_sq_b > 0.0) {
            (true, true) => Some(self.dot / (self.sum_sq_a.sqrt() * self.sum_sq_b.sqrt())),
            (false, false) => Some(1.0),
            _ => None,
        }
    }
}
