//! AVX2 BF16 decode: 8 elements per step (zero-extend, shift into the f32 exponent position,
//! widen to f64), the same exact conversion as the portable loop.

use std::arch::x86_64::*;

/// Decodes BF16 `bytes` into `out` (one value per 2 bytes, up to `out.len()`), 8 at a time;
/// returns how many were written. The caller finishes any tail.
#[target_feature(enable = "avx2")]
pub(super) fn decode_bf16(bytes: &[u8], out: &mut [f64]) -> usize {
    let mut done = 0;
    for (src, dst) in bytes.chunks_exact(16).zip(out.chunks_exact_mut(8)) {
        // SAFETY: `src` is 16 readable bytes, `dst` 8 writable f64; unaligned access is allowed.
        unsafe {
            let h = _mm_loadu_si128(src.as_ptr().cast());
            let w = _mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(h));
            let f = _mm256_castsi256_ps(w);
            _mm256_storeu_pd(dst.as_mut_ptr(), _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
            _mm256_storeu_pd(
                dst.as_mut_ptr().add(4),
                _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(f)),
            );
        }
        done += 8;
    }
    done
}
