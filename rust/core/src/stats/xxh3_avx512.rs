//! The AVX-512 block loop of XXH3 (see `xxh3`): the eight accumulators in one register, one
//! 64-byte stripe per step, as in the reference implementation's AVX-512 path, but for the
//! cross-lane sum (`acc[i ^ 1] += value`), done once per block on the block's summed values.

use super::xxh3::{BLOCK, SCRAMBLE_KEY, SECRET, STRIPE, STRIPES_PER_BLOCK};
use crate::elements::cpu::has_avx512;
use std::arch::x86_64::*;

/// Runs the whole blocks of `data` (a multiple of [`BLOCK`] bytes) into `acc` when the CPU has
/// AVX-512 and returns true; false (nothing done) otherwise.
pub(super) fn blocks(acc: &mut [u64; 8], data: &[u8]) -> bool {
    if !has_avx512() {
        return false;
    }
    // SAFETY: AVX-512 F is present (checked above).
    unsafe { run(acc, data) };
    true
}

#[target_feature(enable = "avx512f")]
unsafe fn run(acc: &mut [u64; 8], data: &[u8]) {
    // SAFETY: AVX-512 F is enabled here. `acc` is 64 writable bytes; each stripe load reads 64
    // bytes at s * 64 < BLOCK of a whole block; the key loads read 64 bytes at 8s <= 120 and at
    // SCRAMBLE_KEY = 128 of the 192-byte secret. All loads and stores are unaligned ones.
    unsafe {
        let mut a = _mm512_loadu_si512(acc.as_ptr().cast());
        let prime = _mm512_set1_epi32(0x9E37_79B1u32 as i32);
        let scramble_key = _mm512_loadu_si512(SECRET.as_ptr().add(SCRAMBLE_KEY).cast());
        for block in data.chunks_exact(BLOCK) {
            // acc[i ^ 1] += value for every stripe: the additions are mod 2^64, so the block's
            // values are summed as they come and swapped into place once, before the scramble
            // (the same bits, one shuffle per block instead of one per stripe).
            let mut values = _mm512_setzero_si512();
            for s in 0..STRIPES_PER_BLOCK {
                let value = _mm512_loadu_si512(block.as_ptr().add(s * STRIPE).cast());
                let key = _mm512_loadu_si512(SECRET.as_ptr().add(8 * s).cast());
                let mixed = _mm512_xor_si512(value, key);
                let product = _mm512_mul_epu32(mixed, _mm512_srli_epi64::<32>(mixed));
                a = _mm512_add_epi64(a, product);
                values = _mm512_add_epi64(values, value);
            }
            // Swap the two 64-bit halves of every 128-bit lane.
            a = _mm512_add_epi64(a, _mm512_shuffle_epi32::<0b01_00_11_10>(values));
            let shifted = _mm512_srli_epi64::<47>(a);
            let mixed = _mm512_xor_si512(_mm512_xor_si512(a, shifted), scramble_key);
            let lo = _mm512_mul_epu32(mixed, prime);
            let hi = _mm512_mul_epu32(_mm512_srli_epi64::<32>(mixed), prime);
            a = _mm512_add_epi64(lo, _mm512_slli_epi64::<32>(hi));
        }
        _mm512_storeu_si512(acc.as_mut_ptr().cast(), a);
    }
}
