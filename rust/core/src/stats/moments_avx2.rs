//! AVX2 versions of the two passes of the moments kernel.
//!
//! Each computes exactly what the portable code computes, lane for lane: lane `l` of the eight
//! accumulators sees elements `l, l+8, ...` (two `__m256d` registers hold lanes 0-3 and 4-7),
//! `min_pd(x, lo)` is `if x < lo { x } else { lo }`, and no FMA is used. So results are
//! bit-identical whichever path runs; the tests check this.

use std::arch::x86_64::*;

/// The lane accumulators of pass 1 (sum, min, max, zero count as f64) over `body`, whose length
/// must be a multiple of 8.
#[target_feature(enable = "avx2")]
pub(super) fn pass1(body: &[f64], acc: &mut [[f64; 8]; 4]) {
    let load = |a: &[f64; 8]| {
        // SAFETY: `a` is 8 readable f64; unaligned loads are allowed.
        unsafe {
            (
                _mm256_loadu_pd(a.as_ptr()),
                _mm256_loadu_pd(a.as_ptr().add(4)),
            )
        }
    };
    let (mut s0, mut s1) = load(&acc[0]);
    let (mut lo0, mut lo1) = load(&acc[1]);
    let (mut hi0, mut hi1) = load(&acc[2]);
    let (mut z0, mut z1) = load(&acc[3]);
    let zero = _mm256_setzero_pd();
    let one = _mm256_set1_pd(1.0);
    for c in body.chunks_exact(8) {
        // SAFETY: `c` has exactly 8 elements.
        let (x0, x1) = unsafe {
            (
                _mm256_loadu_pd(c.as_ptr()),
                _mm256_loadu_pd(c.as_ptr().add(4)),
            )
        };
        s0 = _mm256_add_pd(s0, x0);
        s1 = _mm256_add_pd(s1, x1);
        lo0 = _mm256_min_pd(x0, lo0);
        lo1 = _mm256_min_pd(x1, lo1);
        hi0 = _mm256_max_pd(x0, hi0);
        hi1 = _mm256_max_pd(x1, hi1);
        z0 = _mm256_add_pd(
            z0,
            _mm256_and_pd(_mm256_cmp_pd::<_CMP_EQ_OQ>(x0, zero), one),
        );
        z1 = _mm256_add_pd(
            z1,
            _mm256_and_pd(_mm256_cmp_pd::<_CMP_EQ_OQ>(x1, zero), one),
        );
    }
    let store = |a: &mut [f64; 8], v0: __m256d, v1: __m256d| {
        // SAFETY: `a` is 8 writable f64; unaligned stores are allowed.
        unsafe {
            _mm256_storeu_pd(a.as_mut_ptr(), v0);
            _mm256_storeu_pd(a.as_mut_ptr().add(4), v1);
        }
    };
    store(&mut acc[0], s0, s1);
    store(&mut acc[1], lo0, lo1);
    store(&mut acc[2], hi0, hi1);
    store(&mut acc[3], z0, z1);
}

/// The lane accumulators of pass 2 (Σd, Σd² with d = x − mean) over `body` (length a multiple
/// of 8), added to `acc`.
#[target_feature(enable = "avx2")]
pub(super) fn pass2(body: &[f64], mean: f64, acc: &mut [[f64; 8]; 2]) {
    let m = _mm256_set1_pd(mean);
    // SAFETY: each array is 8 readable f64.
    let (mut a0, mut a1, mut b0, mut b1) = unsafe {
        (
            _mm256_loadu_pd(acc[0].as_ptr()),
            _mm256_loadu_pd(acc[0].as_ptr().add(4)),
            _mm256_loadu_pd(acc[1].as_ptr()),
            _mm256_loadu_pd(acc[1].as_ptr().add(4)),
        )
    };
    for c in body.chunks_exact(8) {
        // SAFETY: `c` has exactly 8 elements.
        let (x0, x1) = unsafe {
            (
                _mm256_loadu_pd(c.as_ptr()),
                _mm256_loadu_pd(c.as_ptr().add(4)),
            )
        };
        let d0 = _mm256_sub_pd(x0, m);
        let d1 = _mm256_sub_pd(x1, m);
        a0 = _mm256_add_pd(a0, d0);
        a1 = _mm256_add_pd(a1, d1);
        b0 = _mm256_add_pd(b0, _mm256_mul_pd(d0, d0));
        b1 = _mm256_add_pd(b1, _mm256_mul_pd(d1, d1));
    }
    // SAFETY: each array is 8 writable f64.
    unsafe {
        _mm256_storeu_pd(acc[0].as_mut_ptr(), a0);
        _mm256_storeu_pd(acc[0].as_mut_ptr().add(4), a1);
        _mm256_storeu_pd(acc[1].as_mut_ptr(), b0);
        _mm256_storeu_pd(acc[1].as_mut_ptr().add(4), b1);
    }
}
