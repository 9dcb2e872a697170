//! The AVX2 block loop of XXH3 (see `xxh3`): the eight accumulators in two registers, one
//! 64-byte stripe per step, as in the reference implementation's AVX2 path, but for the
//! cross-lane sum (`acc[i ^ 1] += value`), done once per block on the block's summed values.

use super::xxh3::{BLOCK, SCRAMBLE_KEY, SECRET, STRIPE, STRIPES_PER_BLOCK};
use crate::elements::cpu::has_avx2;
use std::arch::x86_64::*;

/// Runs the whole blocks of `data` (a multiple of [`BLOCK`] bytes) into `acc` when the CPU has
/// AVX2 and returns true; false (nothing done) otherwise.
pub(super) fn blocks(acc: &mut [u64; 8], data: &[u8]) -> bool {
    if !has_avx2() {
        return false;
    }
    // SAFETY: AVX2 is present (checked above).
    unsafe { run(acc, data) };
    true
}

#[target_feature(enable = "avx2")]
unsafe fn run(acc: &mut [u64; 8], data: &[u8]) {
    // SAFETY: AVX2 is enabled here. `acc` is 64 writable bytes (two 32-byte halves); each stripe
    // load reads 32 bytes at s * 64 + 32h < BLOCK of a whole block; the key loads read 32 bytes at
    // 8s + 32h <= 152 and at SCRAMBLE_KEY + 32h <= 160 of the 192-byte secret. All loads and
    // stores are unaligned ones.
    unsafe {
        let p = acc.as_mut_ptr().cast::<__m256i>();
        let mut a = [_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))];
        let prime = _mm256_set1_epi32(0x9E37_79B1u32 as i32);
        let key = SECRET.as_ptr().add(SCRAMBLE_KEY).cast::<__m256i>();
        let scramble_key = [_mm256_loadu_si256(key), _mm256_loadu_si256(key.add(1))];
        for block in data.chunks_exact(BLOCK) {
            // acc[i ^ 1] += value for every stripe: the block's values summed as they come and
            // swapped into place once, before the scramble (the same bits mod 2^64).
            let mut values = [_mm256_setzero_si256(); 2];
            for s in 0..STRIPES_PER_BLOCK {
                for (h, (acc_h, values_h)) in a.iter_mut().zip(&mut values).enumerate() {
                    let at = block.as_ptr().add(s * STRIPE + 32 * h);
                    let value = _mm256_loadu_si256(at.cast());
                    let key = _mm256_loadu_si256(SECRET.as_ptr().add(8 * s + 32 * h).cast());
                    let mixed = _mm256_xor_si256(value, key);
                    let product = _mm256_mul_epu32(mixed, _mm256_srli_epi64::<32>(mixed));
                    *acc_h = _mm256_add_epi64(*acc_h, product);
                    *values_h = _mm256_add_epi64(*values_h, value);
                }
            }
            for ((acc_h, key), values_h) in a.iter_mut().zip(scramble_key).zip(values) {
                // Swap the two 64-bit halves of every 128-bit lane.
                let swapped = _mm256_shuffle_epi32::<0b01_00_11_10>(values_h);
                *acc_h = _mm256_add_epi64(*acc_h, swapped);
                let shifted = _mm256_srli_epi64::<47>(*acc_h);
                let mixed = _mm256_xor_si256(_mm256_xor_si256(*acc_h, shifted), key);
                let lo = _mm256_mul_epu32(mixed, prime);
                let hi = _mm256_mul_epu32(_mm256_srli_epi64::<32>(mixed), prime);
                *acc_h = _mm256_add_epi64(lo, _mm256_slli_epi64::<32>(hi));
            }
        }
        _mm256_storeu_si256(p, a[0]);
        _mm256_storeu_si256(p.add(1), a[1]);
    }
}
