//! AVX2 body loop of the shifted kernel ([`super::shifted`]): 8 elements per step, lane for lane
//! the same operations as the portable loop (f32 lanes 0-7 widen to f64 lanes 0-3 and 4-7).

use super::shifted::Acc;
use crate::Dtype;
use std::arch::x86_64::*;

/// Runs the first `n` (a multiple of 8) elements into `acc` when the CPU has the features the
/// dtype needs; returns how many elements were done (0 when it could not run).
pub(super) fn body(dtype: Dtype, bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    if !std::arch::is_x86_feature_detected!("avx2") {
        return 0;
    }
    match dtype {
        // SAFETY: AVX2 is present (checked above).
        Dtype::Bf16 => unsafe { run_avx2::<0>(bytes, n, k, acc) },
        Dtype::F16 if std::arch::is_x86_feature_detected!("f16c") => {
            // SAFETY: AVX2 and F16C are present.
            unsafe { run_f16c(bytes, n, k, acc) }
        }
        // SAFETY: AVX2 is present.
        Dtype::F32 => unsafe { run_avx2::<2>(bytes, n, k, acc) },
        _ => 0,
    }
}

/// Loads 8 elements at byte offset `at` as f32 lanes. `KIND`: 0 BF16, 1 F16, 2 F32.
///
/// # Safety
/// `bytes[at..]` must hold 8 elements, and the CPU must have AVX2 (and F16C for `KIND == 1`).
#[inline(always)]
unsafe fn load8<const KIND: u8>(bytes: &[u8], at: usize) -> __m256 {
    // SAFETY: the caller guarantees 8 elements (16 or 32 bytes) are readable at `at`; unaligned
    // loads are allowed; the features are present per the caller.
    unsafe {
        let p = bytes.as_ptr().add(at);
        match KIND {
            0 => {
                let h = _mm_loadu_si128(p.cast());
                _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(h)))
            }
            1 => _mm256_cvtph_ps(_mm_loadu_si128(p.cast())),
            _ => _mm256_loadu_ps(p.cast()),
        }
    }
}

#[target_feature(enable = "avx2")]
unsafe fn run_avx2<const KIND: u8>(bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    // SAFETY: AVX2 is enabled here; KIND is 0 or 2, which need nothing more.
    unsafe { run::<KIND>(bytes, n, k, acc) }
}

#[target_feature(enable = "avx2,f16c")]
unsafe fn run_f16c(bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    // SAFETY: AVX2 and F16C are enabled here.
    unsafe { run::<1>(bytes, n, k, acc) }
}

/// The loop; inlined into a wrapper that enables the features.
///
/// # Safety
/// The CPU must have AVX2 (and F16C for `KIND == 1`).
#[inline(always)]
unsafe fn run<const KIND: u8>(bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    // SAFETY: the caller guarantees the CPU features. Every pointer access is in bounds: the
    // arrays of `acc` hold 8 f32 or 8 f64 (two halves of 4), and the loop reads 8 elements at
    // element i with i + 8 <= n <= bytes.len() / width. All loads and stores are unaligned ones.
    unsafe {
        let width = if KIND == 2 { 4 } else { 2 };
        let n = n.min(bytes.len() / width) / 8 * 8;
        let (mut lo, mut hi, mut z, mut a0, mut a1, mut b0, mut b1) = (
            _mm256_loadu_ps(acc.lo.as_ptr()),
            _mm256_loadu_ps(acc.hi.as_ptr()),
            _mm256_loadu_ps(acc.zeros.as_ptr()),
            _mm256_loadu_pd(acc.s1.as_ptr()),
            _mm256_loadu_pd(acc.s1.as_ptr().add(4)),
            _mm256_loadu_pd(acc.s2.as_ptr()),
            _mm256_loadu_pd(acc.s2.as_ptr().add(4)),
        );
        let kv = _mm256_set1_pd(k);
        let zero = _mm256_setzero_ps();
        let one = _mm256_set1_ps(1.0);
        let mut i = 0;
        while i < n {
            // i + 8 <= n and n * width <= bytes.len().
            let x = load8::<KIND>(bytes, i * width);
            lo = _mm256_min_ps(x, lo);
            hi = _mm256_max_ps(x, hi);
            z = _mm256_add_ps(z, _mm256_and_ps(_mm256_cmp_ps::<_CMP_EQ_OQ>(x, zero), one));
            let d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(x)), kv);
            let d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps::<1>(x)), kv);
            a0 = _mm256_add_pd(a0, d0);
            a1 = _mm256_add_pd(a1, d1);
            b0 = _mm256_add_pd(b0, _mm256_mul_pd(d0, d0));
            b1 = _mm256_add_pd(b1, _mm256_mul_pd(d1, d1));
            i += 8;
        }
        {
            _mm256_storeu_ps(acc.lo.as_mut_ptr(), lo);
            _mm256_storeu_ps(acc.hi.as_mut_ptr(), hi);
            _mm256_storeu_ps(acc.zeros.as_mut_ptr(), z);
            _mm256_storeu_pd(acc.s1.as_mut_ptr(), a0);
            _mm256_storeu_pd(acc.s1.as_mut_ptr().add(4), a1);
            _mm256_storeu_pd(acc.s2.as_mut_ptr(), b0);
            _mm256_storeu_pd(acc.s2.as_mut_ptr().add(4), b1);
        }
        n
    }
}
