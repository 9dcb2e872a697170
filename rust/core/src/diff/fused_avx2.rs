//! AVX2 body loops of the fused diff kernel (see `fused` and `lanes`): lane for lane the
//! operations of [`Lanes::step`] for finite values, in the same order.
//!
//! Sixteen lanes of six accumulators do not fit in the 16 `ymm` registers, so a block is swept
//! four times, a quarter of the lanes (4 of 16, one register per accumulator) at a time: sweep
//! `q` takes places `16k + 4q .. 16k + 4q + 4` of every group of 16. The block is 8-16 KiB per
//! side, so the three later sweeps read it from L1; the first prefetches ahead.
//!
//! As on AVX-512: squares and products are fused multiply-adds, the tolerance bound is rounded
//! product then sum ([`Lanes::step`]); the mismatch count is a mask popcount.

use super::lanes::Lanes;
use crate::elements::cpu::{has_avx2_f16c, has_avx2_fma};
use crate::Dtype;
use std::arch::is_x86_feature_detected;
use std::arch::x86_64::*;

/// Which dtype the bytes hold (a const parameter, so each gets its own loop).
const BF16: u8 = 0;
const F16: u8 = 1;
const F32: u8 = 2;

/// How far ahead (bytes) to prefetch each side in the first sweep (the stats AVX2 loops').
const PREFETCH_AHEAD: usize = 2048;

/// Runs the first `n` places (rounded down to a multiple of 16) of `a` and `b` into `lanes`
/// when the CPU has AVX2, FMA, F16C and POPCNT, assuming every value is finite; returns how many were
/// done (0 when it could not run).
pub(super) fn body(
    dtype: Dtype,
    a: &[u8],
    b: &[u8],
    n: usize,
    tol: (f64, f64),
    lanes: &mut Lanes,
) -> usize {
    if !(has_avx2_fma() && has_avx2_f16c() && is_x86_feature_detected!("popcnt")) {
        return 0;
    }
    match dtype {
        // SAFETY: AVX2, FMA, F16C and POPCNT are present (checked above).
        Dtype::Bf16 => unsafe { run::<BF16>(a, b, n, tol, lanes) },
        // SAFETY: as above.
        Dtype::F16 => unsafe { run::<F16>(a, b, n, tol, lanes) },
        // SAFETY: as above.
        Dtype::F32 => unsafe { run::<F32>(a, b, n, tol, lanes) },
        _ => 0,
    }
}

/// Four elements of `KIND` at `p`, widened exactly to `f64` (a macro: a function would need its
/// own target features).
macro_rules! load4 {
    ($kind:expr, $p:expr) => {
        match $kind {
            BF16 => _mm256_cvtps_pd(_mm_castsi128_ps(_mm_slli_epi32::<16>(_mm_cvtepu16_epi32(
                _mm_loadl_epi64($p.cast()),
            )))),
            F16 => _mm256_cvtps_pd(_mm_cvtph_ps(_mm_loadl_epi64($p.cast()))),
            _ => _mm256_cvtps_pd(_mm_loadu_ps($p.cast())),
        }
    };
}

/// The four sweeps.
#[target_feature(enable = "avx2,fma,f16c,popcnt")]
unsafe fn run<const KIND: u8>(
    a: &[u8],
    b: &[u8],
    n: usize,
    (rtol, atol): (f64, f64),
    lanes: &mut Lanes,
) -> usize {
    let w = if KIND == F32 { 4 } else { 2 };
    let n = n.min(a.len() / w).min(b.len() / w) / 16 * 16;
    let mut mism = 0u64;
    // SAFETY: the features are enabled here. Every lane access reads or writes 4 f64 at lane
    // 4q <= 12 of a 16-lane array; the loop reads 4 elements of each side at element i with
    // i + 4 <= n <= len / w. Loads and stores are unaligned ones; the prefetch addresses use
    // wrapping arithmetic and prefetches never fault.
    unsafe {
        let sign = _mm256_set1_pd(-0.0);
        let (rv, av) = (_mm256_set1_pd(rtol), _mm256_set1_pd(atol));
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        for q in 0..4 {
            let at = 4 * q;
            let mut abs = _mm256_loadu_pd(lanes.sum_abs.as_ptr().add(at));
            let mut sqd = _mm256_loadu_pd(lanes.sum_sq_diff.as_ptr().add(at));
            let mut sqa = _mm256_loadu_pd(lanes.sum_sq_a.as_ptr().add(at));
            let mut sqb = _mm256_loadu_pd(lanes.sum_sq_b.as_ptr().add(at));
            let mut dot = _mm256_loadu_pd(lanes.dot.as_ptr().add(at));
            let mut max = _mm256_loadu_pd(lanes.max_abs.as_ptr().add(at));
            let mut i = at;
            while i < n {
                let (p, r) = (pa.add(w * i), pb.add(w * i));
                if q == 0 {
                    _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(PREFETCH_AHEAD).cast());
                    _mm_prefetch::<_MM_HINT_T0>(r.wrapping_add(PREFETCH_AHEAD).cast());
                }
                let (x, y) = (load4!(KIND, p), load4!(KIND, r));
                let d = _mm256_andnot_pd(sign, _mm256_sub_pd(x, y));
                max = _mm256_max_pd(d, max);
                abs = _mm256_add_pd(abs, d);
                sqd = _mm256_fmadd_pd(d, d, sqd);
                sqa = _mm256_fmadd_pd(x, x, sqa);
                sqb = _mm256_fmadd_pd(y, y, sqb);
                dot = _mm256_fmadd_pd(x, y, dot);
                let bound = _mm256_add_pd(av, _mm256_mul_pd(rv, _mm256_andnot_pd(sign, y)));
                let out = _mm256_cmp_pd::<_CMP_GT_OQ>(d, bound);
                mism += u64::from(_mm256_movemask_pd(out).count_ones());
                i += 16;
            }
            _mm256_storeu_pd(lanes.sum_abs.as_mut_ptr().add(at), abs);
            _mm256_storeu_pd(lanes.sum_sq_diff.as_mut_ptr().add(at), sqd);
            _mm256_storeu_pd(lanes.sum_sq_a.as_mut_ptr().add(at), sqa);
            _mm256_storeu_pd(lanes.sum_sq_b.as_mut_ptr().add(at), sqb);
            _mm256_storeu_pd(lanes.dot.as_mut_ptr().add(at), dot);
            _mm256_storeu_pd(lanes.max_abs.as_mut_ptr().add(at), max);
        }
    }
    lanes.finite += n as u64;
    lanes.mismatched += mism;
    n
}
