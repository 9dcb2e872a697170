//! Count, mean, centred second moment (M2), min and max of finite values, and the fixed-order
//! merge of such summaries (Chan et al.'s pairwise update). Blocks and chunks are combined in a
//! fixed order, so results do not depend on threads. Nothing here ever forms `E[x²]−E[x]²`, so data
//! with mean ≫ std (norm weights ≈ 1 ± 1e-4) keeps full relative accuracy in the std.
//!
//! Range: M2 is carried as `m2 · 4^m2_exp`. The exponent is 0 except for F64 data whose squares
//! overflow or underflow (see the `finite_block` module); a merge whose plain result would overflow
//! moves to the smallest exponent at which it is finite. So mean, std and L2 are finite whenever
//! the true value is, and the common case runs the plain update unchanged.

use super::pow2::{exponent, ldexp};

/// Moments of a set of finite values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moments {
    /// Number of values.
    pub n: u64,
    /// Their mean (0 when `n == 0`).
    pub mean: f64,
    /// Σ(x − mean)² divided by `4^m2_exp` (0 when `n == 0`).
    pub m2: f64,
    /// The power of 4 that `m2` is scaled by: 0 except for values whose squares would overflow or
    /// underflow f64 (see the `scaled` module).
    pub m2_exp: i32,
    /// Smallest value (+inf when `n == 0`).
    pub min: f64,
    /// Largest value (−inf when `n == 0`).
    pub max: f64,
    /// How many values are ±0.
    pub zeros: u64,
}

impl Moments {
    /// The moments of no values.
    pub const EMPTY: Moments = Moments {
        n: 0,
        mean: 0.0,
        m2: 0.0,
        m2_exp: 0,
        min: f64::INFINITY,
        max: f64::NEG_INFINITY,
        zeros: 0,
    };

    /// Adds `other` (values that come after `self`'s in the fixed order) into `self`.
    pub fn merge(&mut self, other: &Moments) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *other;
            return;
        }
        let n = self.n + other.n;
        let (na, nb, nf) = (self.n as f64, other.n as f64, n as f64);
        let delta = other.mean - self.mean;
        let mean = self.mean + delta * (nb / nf);
        let m2 = self.m2 + (other.m2 + delta * delta * (na * (nb / nf)));
        if self.m2_exp == 0 && other.m2_exp == 0 && mean.is_finite() && m2.is_finite() {
            (self.mean, self.m2) = (mean, m2);
        } else {
            (self.mean, self.m2, self.m2_exp) = wide_merge(self, other);
        }
        self.n = n;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.zeros += other.zeros;
    }

    /// Population standard deviation `sqrt(M2 / n)` (0 when `n == 0`).
    pub fn std(&self) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        ldexp((self.m2 / self.n as f64).sqrt(), self.m2_exp)
    }

    /// Euclidean norm `sqrt(M2 + n·mean²)`, computed around the largest magnitude so neither term
    /// overflows or underflows on the way; infinite only when the norm itself exceeds f64's range.
    pub fn l2(&self) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let j = exponent(self.max.abs().max(self.min.abs()));
        let mean = ldexp(self.mean, -j);
        // Two non-negative terms, so no cancellation.
        let sum_sq = ldexp(self.m2, 2 * (self.m2_exp - j)) + self.n as f64 * mean * mean;
        ldexp(sum_sq.sqrt(), j)
    }
}

/// Chan's merge of `b` (later values) into `a`, for partials that are scaled or whose plain merge
/// overflowed: the mean from halves when the difference of the means overflows, M2 rescaled to a
/// power of 4 that puts its largest term near 2^500 (the result's `m2_exp`).
fn wide_merge(a: &Moments, b: &Moments) -> (f64, f64, i32) {
    let n = a.n + b.n;
    let (na, nb, nf) = (a.n as f64, b.n as f64, n as f64);
    let wb = nb / nf;
    let half_delta = b.mean * 0.5 - a.mean * 0.5;
    let delta = b.mean - a.mean;
    let mean = if delta.is_finite() {
        a.mean + delta * wb
    } else {
        (a.mean * 0.5 + half_delta * wb) * 2.0
    };
    let mean = mean.clamp(a.min.min(b.min), a.max.max(b.max));
    // M2 = M2a + M2b + delta²·na·nb/n (delta = 2·half_delta), in units of 4^e with e chosen so
    // the largest term is near 2^500: no term overflows, and what underflows is negligible.
    let w = na * wb;
    let d_log4 = (half_delta != 0.0).then(|| (2 * (exponent(half_delta) + 1) + exponent(w)) / 2);
    let e = [
        (a.m2 > 0.0).then(|| a.m2_exp + exponent(a.m2) / 2),
        (b.m2 > 0.0).then(|| b.m2_exp + exponent(b.m2) / 2),
        d_log4,
    ]
    .into_iter()
    .flatten()
    .max()
    .map_or(0, |top| top - 250);
    let d = ldexp(half_delta, 1 - e);
    let m2 = ldexp(a.m2, 2 * (a.m2_exp - e)) + (ldexp(b.m2, 2 * (b.m2_exp - e)) + d * d * w);
    (mean, m2, e)
}
