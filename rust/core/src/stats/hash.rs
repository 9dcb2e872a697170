//! The content hash: a fixed-leaf tree of xxh3-128, so it can be computed in parallel, in the same
//! pass as the statistics, and comes out the same for any thread count.
//!
//! Definition: split the bytes into leaves of `chunk_bytes` bytes (the last may be shorter; no
//! leaves for empty data). The hash is xxh3-128 (seed 0) of the concatenation of every leaf's
//! xxh3-128 digest as 16 little-endian bytes, followed by the total byte length as 8
//! little-endian bytes. It depends on `chunk_bytes`; compare hashes made with the same value.
//! The leaves are computed by this crate's dispatched XXH3 (`xxh3`), which gives the reference
//! digests bit for bit, so the definition (and every hash already reported) is unchanged.

use super::xxh3::xxh3_128;
use xxhash_rust::xxh3::Xxh3;

/// The content hash of `data` with leaves of `chunk_bytes` bytes (0 is treated as 1), equal to
/// the `hash` that [`crate::stats::compute_stats`] reports with the same `chunk_bytes`.
pub fn hash_bytes(data: &[u8], chunk_bytes: usize) -> u128 {
    let leaves = data.chunks(chunk_bytes.max(1)).map(xxh3_128);
    combine_leaves(leaves, data.len() as u64)
}

/// The root of the tree from the leaf digests, in order, and the total length.
pub(crate) fn combine_leaves(leaves: impl IntoIterator<Item = u128>, total_len: u64) -> u128 {
    let mut root = Xxh3::new();
    for leaf in leaves {
        root.update(&leaf.to_le_bytes());
    }
    root.update(&total_len.to_le_bytes());
    root.digest128()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_written_definition() {
        // Through the reference crate's digests, so the definition itself is checked.
        use xxhash_rust::xxh3::xxh3_128;
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 37 % 256) as u8).collect();
        for leaf_len in [96, 1500] {
            let mut concat = Vec::new();
            for leaf in data.chunks(leaf_len) {
                concat.extend(xxh3_128(leaf).to_le_bytes());
            }
            concat.extend(5000u64.to_le_bytes());
            assert_eq!(hash_bytes(&data, leaf_len), xxh3_128(&concat));
        }
    }

    #[test]
    fn streaming_leaf_equals_one_shot() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 253) as u8).collect();
        let mut h = Xxh3::new();
        for part in data.chunks(4096) {
            h.update(part);
        }
        assert_eq!(h.digest128(), xxh3_128(&data));
    }

    #[test]
    fn sensitive_to_content_length_and_leaf_size() {
        let a = vec![0u8; 100];
        let mut b = a.clone();
        b[99] = 1;
        assert_ne!(hash_bytes(&a, 24), hash_bytes(&b, 24));
        assert_ne!(hash_bytes(&a, 24), hash_bytes(&a[..99], 24));
        assert_ne!(hash_bytes(&a, 24), hash_bytes(&a, 48));
        assert_ne!(hash_bytes(&[], 24), hash_bytes(&[0], 24));
        assert_eq!(hash_bytes(&[], 0), hash_bytes(&[], 24));
    }
}
