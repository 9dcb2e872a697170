//! XXH3-128 (seed 0, the default secret): the same digests as `xxhash_rust::xxh3::xxh3_128`, with
//! the long-input loop dispatched at run time to AVX-512 or AVX2 (`xxh3_avx512`, `xxh3_avx2`;
//! the crate picks its loop at compile time, so a portable build would run SSE2 only), and fed
//! incrementally from one slice known in advance ([`Leaf`]), so the statistics pass can hash each
//! block right after reading it, while it is in L1.
//!
//! The long-input algorithm (inputs over 240 bytes, XXH3 specification): eight 64-bit
//! accumulators; every 64-byte stripe is accumulated with the secret at an offset of 8 bytes per
//! stripe; after every 16 stripes (a 1024-byte block) the accumulators are scrambled with the
//! last 64 bytes of the secret; the stripes of the last partial block and the input's last 64
//! bytes follow; two merges give the low and high halves. Shorter inputs go to the crate.

use xxhash_rust::const_xxh3::const_custom_default_secret;

/// The default secret (seed 0).
pub(super) const SECRET: [u8; SECRET_LEN] = const_custom_default_secret(0);
const SECRET_LEN: usize = 192;
/// Bytes per stripe.
pub(super) const STRIPE: usize = 64;
/// Stripes per block: (192 - 64) / 8.
pub(super) const STRIPES_PER_BLOCK: usize = (SECRET_LEN - STRIPE) / 8;
/// Bytes per block (between scrambles).
pub(crate) const BLOCK: usize = STRIPE * STRIPES_PER_BLOCK;
/// Inputs up to this length use the crate's short-input paths.
const MID_SIZE_MAX: usize = 240;
/// Where the scramble key starts in the secret.
pub(super) const SCRAMBLE_KEY: usize = SECRET_LEN - STRIPE;

const PRIME32_1: u64 = 0x9E37_79B1;
const PRIME32_2: u64 = 0x85EB_CA77;
const PRIME32_3: u64 = 0xC2B2_AE3D;
const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;
const PRIME64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const PRIME64_3: u64 = 0x1656_67B1_9E37_79F9;
const PRIME64_4: u64 = 0x85EB_CA77_C2B2_AE63;
const PRIME64_5: u64 = 0x27D4_EB2F_1656_67C5;

/// The accumulators before the first stripe.
const INITIAL_ACC: [u64; 8] = [
    PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1,
];

/// The XXH3-128 digest of `data` (equal to `xxhash_rust::xxh3::xxh3_128`).
pub fn xxh3_128(data: &[u8]) -> u128 {
    Leaf::new(data).finish()
}

/// The XXH3-128 of one slice, accumulated block by block as the caller reaches them
/// ([`Leaf::advance_to`]) and finished with [`Leaf::finish`].
pub(crate) struct Leaf<'a> {
    data: &'a [u8],
    acc: [u64; 8],
    /// Blocks accumulated and scrambled so far.
    done: usize,
    /// Blocks the long loop scrambles: `(len - 1) / BLOCK` (the last, possibly full, block is
    /// handled as the partial one); 0 for short inputs.
    full: usize,
}

impl<'a> Leaf<'a> {
    /// A digest of `data` to come.
    pub fn new(data: &'a [u8]) -> Leaf<'a> {
        let full = if data.len() > MID_SIZE_MAX {
            (data.len() - 1) / BLOCK
        } else {
            0
        };
        Leaf {
            data,
            acc: INITIAL_ACC,
            done: 0,
            full,
        }
    }

    /// Accumulates every block that lies within `data[..end]` and is not done yet.
    #[inline]
    pub fn advance_to(&mut self, end: usize) {
        let upto = (end / BLOCK).min(self.full);
        if upto > self.done {
            blocks(&mut self.acc, &self.data[self.done * BLOCK..upto * BLOCK]);
            self.done = upto;
        }
    }

    /// The digest.
    pub fn finish(mut self) -> u128 {
        let data = self.data;
        let len = data.len();
        if len <= MID_SIZE_MAX {
            return xxhash_rust::xxh3::xxh3_128(data);
        }
        self.advance_to(len);
        let acc = &mut self.acc;
        let tail = &data[self.full * BLOCK..];
        let stripes = (len - 1 - self.full * BLOCK) / STRIPE;
        for s in 0..stripes {
            accumulate_stripe(acc, &tail[s * STRIPE..], &SECRET[8 * s..]);
        }
        accumulate_stripe(
            acc,
            &data[len - STRIPE..],
            &SECRET[SECRET_LEN - STRIPE - 7..],
        );
        let n = len as u64;
        let lo = merge(acc, &SECRET[11..], n.wrapping_mul(PRIME64_1));
        let hi = merge(
            acc,
            &SECRET[SECRET_LEN - 64 - 11..],
            !n.wrapping_mul(PRIME64_2),
        );
        u128::from(lo) | (u128::from(hi) << 64)
    }
}

/// The little-endian `u64` at `at`.
#[inline(always)]
fn read64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(crate::elements::le(&bytes[at..]))
}

/// One stripe (the first 64 bytes of `input`) into `acc` with the key at the start of `secret`.
#[inline(always)]
pub(super) fn accumulate_stripe(acc: &mut [u64; 8], input: &[u8], secret: &[u8]) {
    for i in 0..8 {
        let value = read64(input, 8 * i);
        let key = value ^ read64(secret, 8 * i);
        acc[i ^ 1] = acc[i ^ 1].wrapping_add(value);
        acc[i] = acc[i].wrapping_add((key & 0xFFFF_FFFF).wrapping_mul(key >> 32));
    }
}

/// The scramble after each block.
#[inline(always)]
pub(super) fn scramble(acc: &mut [u64; 8]) {
    for (i, a) in acc.iter_mut().enumerate() {
        let key = read64(&SECRET[SCRAMBLE_KEY..], 8 * i);
        *a = ((*a ^ (*a >> 47)) ^ key).wrapping_mul(PRIME32_1);
    }
}

/// Whole blocks (`data.len()` a multiple of [`BLOCK`]) through the widest loop the CPU has.
fn blocks(acc: &mut [u64; 8], data: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        if super::xxh3_avx512::blocks(acc, data) || super::xxh3_avx2::blocks(acc, data) {
            return;
        }
    }
    blocks_portable(acc, data);
}

/// The portable block loop.
pub(super) fn blocks_portable(acc: &mut [u64; 8], data: &[u8]) {
    for block in data.chunks_exact(BLOCK) {
        for s in 0..STRIPES_PER_BLOCK {
            accumulate_stripe(acc, &block[s * STRIPE..], &SECRET[8 * s..]);
        }
        scramble(acc);
    }
}

/// The final merge of the accumulators into 64 bits.
fn merge(acc: &[u64; 8], secret: &[u8], start: u64) -> u64 {
    let mut result = start;
    for i in 0..4 {
        let a = acc[2 * i] ^ read64(secret, 16 * i);
        let b = acc[2 * i + 1] ^ read64(secret, 16 * i + 8);
        let product = u128::from(a) * u128::from(b);
        result = result.wrapping_add(product as u64 ^ (product >> 64) as u64);
    }
    // XXH3's avalanche.
    result ^= result >> 37;
    result = result.wrapping_mul(0x1656_6791_9E37_79F9);
    result ^ (result >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elements::cpu::{with_level, Level};
    use proptest::prelude::*;

    fn bytes(len: usize, seed: u64) -> Vec<u8> {
        let mut s = seed | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 24) as u8
            })
            .collect()
    }

    #[test]
    fn equals_the_crate_at_every_length_boundary_and_level() {
        let data = bytes(3 * BLOCK + 2 * STRIPE + 5, 7);
        let lens = (0..300)
            .chain([
                1023,
                1024,
                1025,
                1088,
                2047,
                2048,
                2049,
                3 * BLOCK,
                data.len(),
            ])
            .chain((BLOCK - 70..BLOCK + 70).step_by(7));
        for level in Level::ALL {
            for len in lens.clone() {
                let got = with_level(level, || xxh3_128(&data[..len]));
                assert_eq!(
                    got,
                    xxhash_rust::xxh3::xxh3_128(&data[..len]),
                    "{len} {level:?}"
                );
            }
        }
    }

    #[test]
    fn equals_the_crate_on_a_six_mib_leaf() {
        let data = bytes(6 << 20, 11);
        for level in Level::ALL {
            let got = with_level(level, || xxh3_128(&data));
            assert_eq!(got, xxhash_rust::xxh3::xxh3_128(&data), "{level:?}");
        }
    }

    proptest! {
        /// Fed in any steps, at any level, the digest is the crate's one-shot digest.
        #[test]
        fn incremental_equals_one_shot(len in 0usize..9000, seed in any::<u64>(),
                                       steps in prop::collection::vec(1usize..3000, 1..8),
                                       level in 0usize..3) {
            let data = bytes(len, seed);
            let want = xxhash_rust::xxh3::xxh3_128(&data);
            let got = with_level(Level::ALL[level], || {
                let mut leaf = Leaf::new(&data);
                let mut at = 0;
                for step in steps.iter().cycle().take(64) {
                    at = (at + step).min(len);
                    leaf.advance_to(at);
                }
                leaf.finish()
            });
            prop_assert_eq!(got, want);
        }
    }
}
