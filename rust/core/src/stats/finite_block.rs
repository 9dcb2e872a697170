//! The corrected two-pass kernel over a cache-resident block of f64 values, with the filter for
//! non-finite values and the rescaled redo for values at the edges of f64's range.
//!
//! Accuracy: the sum gives a provisional mean, then Σ(x−mean) and Σ(x−mean)² give a corrected
//! mean and M2 (the "corrected two-pass" algorithm).
//!
//! Range: when a block's sums or squares overflow (F64 near its largest value) or its squares
//! underflow (magnitudes below 2^-400), the block is redone on `values · 2^s` with the largest
//! magnitude brought near 1 (exact, except for values that become subnormal, which are then
//! negligible against the largest one), and M2 is returned scaled (`m2 · 4^m2_exp`). The check
//! reads the result only, so the common case costs nothing extra.
//!
//! Determinism: the kernel sums in 8 fixed lanes combined in a fixed tree, and Rust never fuses
//! `a * b + c` into an FMA on its own, so the AVX2 build of the kernel gives the same bits as the
//! baseline one, on the plain and the rescaled path alike.

use super::moments::Moments;
use super::pow2::{exponent, ldexp};

const LANES: usize = 8;

/// Below this magnitude (2^-400) a block's squared deviations may underflow, so it is rescaled.
const TINY: f64 = 3.872591914849318e-121;

/// Moments of `values`, which must all be finite (a non-finite value gives a non-finite mean;
/// callers detect that and filter, see [`of_block`]). Values whose sums or squares leave f64's
/// range give a non-finite or inaccurate result here; [`of_block`] handles those.
pub(crate) fn of_finite(values: &[f64]) -> Moments {
    of_finite_with(values, crate::elements::cpu::has_avx2())
}

/// Moments of the finite values in `values`. When there are non-finite ones (detected by a
/// non-finite result, so the common case costs nothing extra) they are counted as
/// `[nan, +inf, -inf]` and filtered out of `values` in place. Values at the edges of f64's range
/// are redone rescaled, also in place.
pub(crate) fn of_block(values: &mut Vec<f64>) -> (Moments, [u64; 3]) {
    of_block_with(values, crate::elements::cpu::has_avx2())
}

fn of_block_with(values: &mut Vec<f64>, avx2: bool) -> (Moments, [u64; 3]) {
    let m = of_finite_with(values, avx2);
    if !needs_rescale(&m) {
        return (m, [0; 3]);
    }
    let mut counts = [0u64; 3];
    if !(m.mean.is_finite() && m.m2.is_finite()) {
        for v in values.iter() {
            counts[0] += u64::from(v.is_nan());
            counts[1] += u64::from(*v == f64::INFINITY);
            counts[2] += u64::from(*v == f64::NEG_INFINITY);
        }
    }
    if counts == [0; 3] {
        return (rescaled(values, &m, avx2), counts);
    }
    values.retain(|v| v.is_finite());
    let m = of_finite_with(values, avx2);
    if needs_rescale(&m) {
        return (rescaled(values, &m, avx2), counts);
    }
    (m, counts)
}

/// True when a block's moments need the rescaled redo: a non-finite mean or M2 (from non-finite
/// values, or from finite ones that overflow), or magnitudes so small that squares lose bits.
fn needs_rescale(m: &Moments) -> bool {
    let abs_max = m.max.abs().max(m.min.abs());
    !(m.mean.is_finite() && m.m2.is_finite()) || (abs_max < TINY && abs_max > 0.0)
}

/// Moments of finite `values` computed on `values · 2^s` with the largest magnitude brought into
/// `[0.5, 1)`, then scaled back; `first` is the plain result, whose n, min, max and zero count are
/// exact whatever the range. Overwrites `values`.
fn rescaled(values: &mut [f64], first: &Moments, avx2: bool) -> Moments {
    let s = -exponent(first.max.abs().max(first.min.abs()));
    for v in values.iter_mut() {
        *v = ldexp(*v, s);
    }
    let m = of_finite_with(values, avx2);
    Moments {
        mean: ldexp(m.mean, -s).clamp(first.min, first.max),
        m2: m.m2,
        m2_exp: -s,
        ..*first
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
        // SAFETY: callers pass `avx2` true only after `has_avx2()` confirmed the CPU has it.
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
        // Not `max(0.0)`: that would turn the NaN of an overflowed `inf - inf` into 0.
        m2: non_negative(sdd - sd * sd / nf),
        m2_exp: 0,
        min: acc1[1].into_iter().fold(f64::INFINITY, f64::min),
        max: acc1[2].into_iter().fold(f64::NEG_INFINITY, f64::max),
        zeros: lane_sum(acc1[3]) as u64,
    }
}

/// `x`, or 0 when rounding made it negative; NaN stays NaN so [`needs_rescale`] sees it.
#[inline(always)]
fn non_negative(x: f64) -> f64 {
    if x < 0.0 {
        0.0
    } else {
        x
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
        let m = of_finite(&v);
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
        let whole = of_finite(&v);
        let mut parts = Moments::EMPTY;
        for c in v.chunks(50) {
            parts.merge(&of_finite(c));
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
        let (m, counts) = of_block(&mut v);
        assert_eq!(counts, [1, 1, 0]);
        assert_eq!(m.n, 4);
        assert_eq!(m.zeros, 2);
        assert_eq!(m.mean, 1.0);
        let (_, counts) = of_block(&mut vec![1.0, 2.0]);
        assert_eq!(counts, [0; 3]);
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn rescaled_blocks_agree_bitwise_across_paths() {
        let avx2 = crate::elements::cpu::has_avx2();
        let big: Vec<f64> = (0..4099)
            .map(|i| f64::MAX * (((i * 7919) % 1013) as f64 / 1013.0 - 0.4))
            .collect();
        let tiny: Vec<f64> = big.iter().map(|&x| ldexp(x, -2000)).collect();
        for v in [big, tiny] {
            let (a, ca) = of_block_with(&mut v.clone(), avx2);
            let (b, cb) = of_block_with(&mut v.clone(), false);
            assert_ne!(a.m2_exp, 0);
            assert_eq!(format!("{a:?} {ca:?}"), format!("{b:?} {cb:?}"));
        }
    }

    #[test]
    fn overflowing_block_is_rescaled_not_nan() {
        let mut v = vec![f64::MAX, f64::MAX, -f64::MAX, 1.0];
        let (m, counts) = of_block(&mut v);
        assert_eq!(counts, [0; 3]);
        assert!(m.mean.is_finite() && m.m2.is_finite() && m.m2_exp > 0);
        assert!((m.mean - f64::MAX / 4.0).abs() <= 1e-15 * f64::MAX);
        let mut w = vec![f64::MAX, f64::NAN, f64::MAX];
        let (m, counts) = of_block(&mut w);
        assert_eq!((counts, m.n, m.mean), ([1, 0, 0], 2, f64::MAX));
    }
}
