//! AVX2 + F16C form of the fused kernel: four elements per step, with the four sums
//! `[sum_abs, sum_sq_diff, sum_sq_a, sum_sq_b]` kept as the lanes of one vector, so each element
//! costs one vector add on that chain (plus one scalar add for `dot`) in the same order as the
//! scalar loop. Multiplies and adds stay separate instructions (no FMA), so every rounding is
//! the scalar loop's; maxima and counts are order-free. Bit-for-bit equal to `fused::run`.

use super::accum::Acc;
use std::arch::x86_64::*;

/// Which dtype the bytes hold (a const parameter, so each gets its own loop).
pub(super) const BF16: u8 = 0;
/// See [`BF16`].
pub(super) const F16: u8 = 1;
/// See [`BF16`].
pub(super) const F32: u8 = 2;

/// Four elements of `KIND` at `p`, widened exactly to `f64`.
///
/// # Safety
/// `p` must point to 4 readable elements of `KIND`; the CPU must support AVX2 and F16C.
#[inline]
#[target_feature(enable = "avx2,f16c")]
unsafe fn load4<const KIND: u8>(p: *const u8) -> __m256d {
    // SAFETY: the caller guarantees 4 readable elements (8 bytes for 16-bit kinds, 16 for F32);
    // unaligned loads are allowed.
    unsafe {
        match KIND {
            BF16 => {
                let h = _mm_loadl_epi64(p.cast());
                let w = _mm_slli_epi32::<16>(_mm_cvtepu16_epi32(h));
                _mm256_cvtps_pd(_mm_castsi128_ps(w))
            }
            F16 => _mm256_cvtps_pd(_mm_cvtph_ps(_mm_loadl_epi64(p.cast()))),
            _ => _mm256_cvtps_pd(_mm_loadu_ps(p.cast())),
        }
    }
}

/// Runs the fused loop over the first `4 * (n / 4)` elements of `a` and `b` (each `n` elements
/// of `KIND`), starting from `acc`, which must be [`Acc::EMPTY`] (the block's first place is
/// this call's first). Returns how many elements it consumed; the caller finishes the tail with
/// the scalar loop. The `max_index` left in `acc` is relative to the block start.
///
/// # Safety
/// The CPU must support AVX2 and F16C; `a` and `b` must hold `n` elements of `KIND` each.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn run<const KIND: u8>(
    a: &[u8],
    b: &[u8],
    n: usize,
    (rtol, atol): (f64, f64),
    acc: &mut Acc,
) -> usize {
    let w = if KIND == F32 { 4 } else { 2 };
    let steps = n / 4;
    let abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(i64::MAX));
    let (rtol_v, atol_v) = (_mm256_set1_pd(rtol), _mm256_set1_pd(atol));
    let mut sums = _mm256_setr_pd(acc.sum_abs, acc.sum_sq_diff, acc.sum_sq_a, acc.sum_sq_b);
    let mut dot = acc.dot;
    // Per lane: the largest finite |a-b| so far and the first step attaining it (few live
    // vectors, so the sums stay in registers).
    let mut lane_max = _mm256_setzero_pd();
    let mut lane_at = _mm256_setzero_si256();
    // Per-lane counts (a true mask is -1, so subtracting it counts one): finite places, places
    // that are finite or the same non-finite value, and finite places out of tolerance.
    let (mut n_fin, mut n_ok, mut n_out) = (
        _mm256_setzero_si256(),
        _mm256_setzero_si256(),
        _mm256_setzero_si256(),
    );
    for s in 0..steps {
        // SAFETY: elements 4s..4s+4 lie within the n elements of each side.
        let (x, y) = unsafe {
            (
                load4::<KIND>(a.as_ptr().add(4 * s * w)),
                load4::<KIND>(b.as_ptr().add(4 * s * w)),
            )
        };
        // v - v is 0 for a finite v and NaN for NaN or an infinity.
        let fin = _mm256_cmp_pd::<_CMP_ORD_Q>(_mm256_sub_pd(x, x), _mm256_sub_pd(y, y));
        let d = _mm256_and_pd(_mm256_sub_pd(x, y), abs_mask);
        let (dm, xm, ym) = (
            _mm256_and_pd(d, fin),
            _mm256_and_pd(x, fin),
            _mm256_and_pd(y, fin),
        );
        // Strictly greater, so each lane keeps its first index of its maximum.
        let gt = _mm256_cmp_pd::<_CMP_GT_OQ>(dm, lane_max);
        lane_max = _mm256_max_pd(dm, lane_max);
        lane_at = _mm256_castpd_si256(_mm256_blendv_pd(
            _mm256_castsi256_pd(lane_at),
            _mm256_castsi256_pd(_mm256_set1_epi64x(s as i64)),
            gt,
        ));
        // Rows per element: [dm, dm*dm, xm*xm, ym*ym] (a 4x4 transpose).
        let (d2, x2, y2) = (
            _mm256_mul_pd(dm, dm),
            _mm256_mul_pd(xm, xm),
            _mm256_mul_pd(ym, ym),
        );
        let xy = _mm256_mul_pd(xm, ym);
        let t0 = _mm256_unpacklo_pd(dm, d2); // dm0 d2_0 | dm2 d2_2
        let t1 = _mm256_unpackhi_pd(dm, d2); // dm1 d2_1 | dm3 d2_3
        let t2 = _mm256_unpacklo_pd(x2, y2);
        let t3 = _mm256_unpackhi_pd(x2, y2);
        let r0 = _mm256_permute2f128_pd::<0x20>(t0, t2);
        let r1 = _mm256_permute2f128_pd::<0x20>(t1, t3);
        let r2 = _mm256_permute2f128_pd::<0x31>(t0, t2);
        let r3 = _mm256_permute2f128_pd::<0x31>(t1, t3);
        sums = _mm256_add_pd(sums, r0);
        sums = _mm256_add_pd(sums, r1);
        sums = _mm256_add_pd(sums, r2);
        sums = _mm256_add_pd(sums, r3);
        let (lo, hi) = (_mm256_castpd256_pd128(xy), _mm256_extractf128_pd::<1>(xy));
        dot += _mm_cvtsd_f64(lo);
        dot += _mm_cvtsd_f64(_mm_unpackhi_pd(lo, lo));
        dot += _mm_cvtsd_f64(hi);
        dot += _mm_cvtsd_f64(_mm_unpackhi_pd(hi, hi));
        // Counts: finite places out of tolerance (bound = atol + rtol*|b|, rounded as in the
        // scalar loop), and non-finite places that are not the same non-finite value.
        let bound = _mm256_add_pd(atol_v, _mm256_mul_pd(rtol_v, _mm256_and_pd(y, abs_mask)));
        let out = _mm256_cmp_pd::<_CMP_GT_OQ>(d, bound);
        let both_nan = _mm256_and_pd(
            _mm256_cmp_pd::<_CMP_UNORD_Q>(x, x),
            _mm256_cmp_pd::<_CMP_UNORD_Q>(y, y),
        );
        let same = _mm256_or_pd(both_nan, _mm256_cmp_pd::<_CMP_EQ_OQ>(x, y));
        let count = |n: __m256i, mask: __m256d| _mm256_sub_epi64(n, _mm256_castpd_si256(mask));
        n_fin = count(n_fin, fin);
        n_ok = count(n_ok, _mm256_or_pd(fin, same));
        n_out = count(n_out, _mm256_and_pd(fin, out));
    }
    let mut lanes = [0.0f64; 4];
    // SAFETY: `lanes` is 4 writable f64.
    unsafe { _mm256_storeu_pd(lanes.as_mut_ptr(), sums) };
    [acc.sum_abs, acc.sum_sq_diff, acc.sum_sq_a, acc.sum_sq_b] = lanes;
    acc.dot = dot;
    let total = |n: __m256i| {
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` is 4 writable u64.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), n) };
        lanes.iter().sum::<u64>()
    };
    let bad_nonfinite = (4 * steps as u64).saturating_sub(total(n_ok));
    acc.finite += total(n_fin);
    acc.mismatched += total(n_out) + bad_nonfinite;
    acc.nonfinite_mismatched += bad_nonfinite;
    let (mut maxes, mut ats) = ([0.0f64; 4], [0i64; 4]);
    // SAFETY: both arrays are 4 writable 8-byte lanes.
    unsafe {
        _mm256_storeu_pd(maxes.as_mut_ptr(), lane_max);
        _mm256_storeu_si256(ats.as_mut_ptr().cast(), lane_at);
    }
    // The first place of the largest value: the smallest index among lanes that attain it.
    for (lane, (&m, &step)) in maxes.iter().zip(&ats).enumerate() {
        let at = 4 * step as u64 + lane as u64;
        if m > acc.max_abs || (m == acc.max_abs && m > 0.0 && at < acc.max_index) {
            acc.max_abs = m;
            acc.max_index = at;
        }
    }
    4 * steps
}
