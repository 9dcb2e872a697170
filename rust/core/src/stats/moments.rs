//! Count, mean, centred second moment, min and max of finite values: the block kernel and the
//! fixed-order merge.
//!
//! Accuracy: each block (a few thousand values, cache-resident) is done in two passes: the sum
//! gives a provisional mean, then Σ(x−mean) and Σ(x−mean)² give a corrected mean and M2 (the
//! "corrected two-pass" algorithm). Blocks and chunks are combined with Chan et al.'s pairwise
//! update in a fixed order. Nothing here ever forms `E[x²]−E[x]²`, so data with mean ≫ std (norm
//! weights ≈ 1 ± 1e-4) keeps full relative accuracy in the std.
//!
//! Determinism: the kernel sums in 8 fixed lanes combined in a fixed tree, and Rust never fuses
//! `a * b + c` into an FMA on its own, so the AVX2 build of the kernel gives the same bits as the
//! baseline one.

const LANES: usize = 8;

/// Moments of a set of finite values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moments {
    /// Number of values.
    pub n: u64,
    /// Their mean (0 when `n == 0`).
    pub mean: f64,
    /// Σ(x − mean)² (0 when `n == 0`).
    pub m2: f64,
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
        min: f64::INFINITY,
        max: f64::NEG_INFINITY,
        zeros: 0,
    };

    /// Moments of `values`, which must all be finite (a non-finite value gives a non-finite mean;
    /// callers detect that and filter, see [`Moments::of_block`]).
    pub fn of_finite(values: &[f64]) -> Moments {
        of_finite_with(values, crate::elements::cpu::has_avx2())
    }

    /// Moments of the finite values in `values`. When there are non-finite ones (detected by a
    /// non-finite result, so the common case costs nothing extra) they are counted as
    /// `[nan, +inf, -inf]` and filtered out of `values` in place.
    pub fn of_block(values: &mut Vec<f64>) -> (Moments, [u64; 3]) {
        let m = Moments::of_finite(values);
        if m.mean.is_finite() && m.m2.is_finite() {
            return (m, [0; 3]);
        }
        let mut counts = [0u64; 3];
        for v in values.iter() {
            counts[0] += u64::from(v.is_nan());
            counts[1] += u64::from(*v == f64::INFINITY);
            counts[2] += u64::from(*v == f64::NEG_INFINITY);
        }
        values.retain(|v| v.is_finite());
        (Moments::of_finite(values), counts)
    }

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
        self.mean += delta * (nb / nf);
        self.m2 += other.m2 + delta * delta * (na * (nb / nf));
        self.n = n;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.zeros += other.zeros;
    }
}

/// Sums lanes in a fixed tree.
#[inline(always)]
fn lane_sum(l: [f64; LANES]) -> f64 {
    ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))
}

/// Pass-1 lane update: sum, min, max, zero count.
#[inline(always)]
fn step1(acc: &mut [[f64; LANES]; 4], l: usize, x: f64) {
    acc[0][l] += x;
    acc[1][l] = if x < acc[1][l] { x } else { acc[1][l] };
    acc[2][l] = if x > acc[2][l] { x } else { acc[2][l] };
    acc[3][l] += if x == 0.0 { 1.0 } else { 0.0 };
}

/// Pass-2 lane update: Σd and Σd² for d = x − mean.
#[inline(always)]
fn step2(acc: &mut [[f64; LANES]; 2], l: usize, x: f64, mean: f64) {
    let d = x - mean;
    acc[0][l] += d;
    acc[1][l] += d * d;
}

/// The corrected two-pass kernel; `avx2` selects the vector loops (caller checked the CPU).
fn of_finite_with(v: &[f64], avx2: bool) -> Moments {
    if v.is_empty() {
        return Moments::EMPTY;
    }
    let (body, rest) = v.split_at(v.len() / LANES * LANES);
    // Zero counts are kept in f64 (exact below 2^53) so the vector compare stays in float lanes.
    let mut acc1 = [
        [0.0; LANES],
        [f64::INFINITY; LANES],
        [f64::NEG_INFINITY; LANES],
        [0.0; LANES],
    ];
    if avx2 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: only called with `avx2` true after the CPU check in `of_finite`.
        unsafe {
            super::moments_avx2::pass1(body, &mut acc1)
        };
    } else {
        for c in body.chunks_exact(LANES) {
            for (l, &x) in c.iter().enumerate() {
                step1(&mut acc1, l, x);
            }
        }
    }
    for (l, &x) in rest.iter().enumerate() {
        step1(&mut acc1, l, x);
    }
    let nf = v.len() as f64;
    let mean0 = lane_sum(acc1[0]) / nf;
    let mut acc2 = [[0.0; LANES]; 2];
    if avx2 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        unsafe {
            super::moments_avx2::pass2(body, mean0, &mut acc2)
        };
    } else {
        for c in body.chunks_exact(LANES) {
            for (l, &x) in c.iter().enumerate() {
                step2(&mut acc2, l, x, mean0);
            }
        }
    }
    for (l, &x) in rest.iter().enumerate() {
        step2(&mut acc2, l, x, mean0);
    }
    let (sd, sdd) = (lane_sum(acc2[0]), lane_sum(acc2[1]));
    Moments {
        n: v.len() as u64,
        mean: mean0 + sd / nf,
        m2: (sdd - sd * sd / nf).max(0.0),
        min: acc1[1].into_iter().fold(f64::INFINITY, f64::min),
        max: acc1[2].into_iter().fold(f64::NEG_INFINITY, f64::max),
        zeros: lane_sum(acc1[3]) as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(v: &[f64]) -> (f64, f64) {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        (mean, v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>())
    }

    #[test]
    fn matches_naive_two_pass() {
        let v: Vec<f64> = (0..1000)
            .map(|i| ((i * 7919) % 1013) as f64 * 0.37 - 90.0)
            .collect();
        let m = Moments::of_finite(&v);
        let (mean, m2) = naive(&v);
        assert!((m.mean - mean).abs() <= 1e-12 * mean.abs());
        assert!((m.m2 - m2).abs() <= 1e-12 * m2);
        assert_eq!(m.n, 1000);
        assert_eq!(m.min, v.iter().copied().fold(f64::INFINITY, f64::min));
        assert_eq!(m.max, v.iter().copied().fold(f64::NEG_INFINITY, f64::max));
    }

    #[test]
    fn merge_equals_whole() {
        let v: Vec<f64> = (0..777)
            .map(|i| 1.0 + ((i * 31) % 97) as f64 * 1e-6)
            .collect();
        let whole = Moments::of_finite(&v);
        let mut parts = Moments::EMPTY;
        for c in v.chunks(50) {
            parts.merge(&Moments::of_finite(c));
        }
        assert_eq!(parts.n, whole.n);
        assert!((parts.mean - whole.mean).abs() <= 1e-15);
        assert!((parts.m2 - whole.m2).abs() <= 1e-9 * whole.m2);
        assert_eq!((parts.min, parts.max), (whole.min, whole.max));
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn avx2_and_baseline_agree_bitwise() {
        let mut v: Vec<f64> = (0..4099)
            .map(|i| ((i * 2654435761u64) % 10007) as f64 / 3.0 - 1000.0)
            .collect();
        v[17] = 0.0;
        v[18] = -0.0;
        let a = of_finite_with(&v, crate::elements::cpu::has_avx2());
        let b = of_finite_with(&v, false);
        assert_eq!(a.mean.to_bits(), b.mean.to_bits());
        assert_eq!(a.m2.to_bits(), b.m2.to_bits());
        assert_eq!((a.min, a.max, a.zeros), (b.min, b.max, b.zeros));
    }

    #[test]
    fn block_filters_non_finite() {
        let mut v = vec![1.0, f64::NAN, 3.0, f64::INFINITY, 0.0, -0.0];
        let (m, counts) = Moments::of_block(&mut v);
        assert_eq!(counts, [1, 1, 0]);
        assert_eq!(m.n, 4);
        assert_eq!(m.zeros, 2);
        assert_eq!(m.mean, 1.0);
        let (_, counts) = Moments::of_block(&mut vec![1.0, 2.0]);
        assert_eq!(counts, [0; 3]);
    }
}
