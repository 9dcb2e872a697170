//! Tests that the fused same-dtype kernel (portable and AVX2) gives exactly the bits of the
//! generic decode-then-compare kernel, on data rich in near-ties, tolerance edges and
//! non-finite values, across block boundaries and odd tails.

use crate::diff::accum::Acc;
use crate::diff::kernel::{compare_chunk, compare_chunk_generic, Scratch, BLOCK_ELEMS};
use crate::diff::tolerance::default_tolerance;
use crate::elements::cpu::{with_level, Level};
use crate::Dtype;
use proptest::prelude::*;

/// Every field as raw bits, so `-0.0 != 0.0` and any last-place difference fails.
fn bits(acc: &Acc) -> [u64; 10] {
    [
        acc.finite,
        acc.max_abs.to_bits(),
        acc.max_index,
        acc.sum_abs.to_bits(),
        acc.sum_sq_diff.to_bits(),
        acc.sum_sq_a.to_bits(),
        acc.sum_sq_b.to_bits(),
        acc.dot.to_bits(),
        acc.mismatched,
        acc.nonfinite_mismatched,
    ]
}

/// Special bit patterns of a `width`-bit IEEE float: NaNs, infinities, zeros, a subnormal, max.
fn specials(dtype: Dtype) -> Vec<u32> {
    match dtype {
        Dtype::F32 => vec![
            0x7FC0_0000,
            0xFF80_0001,
            0x7F80_0000,
            0xFF80_0000,
            0,
            0x8000_0000,
            1,
            0x7F7F_FFFF,
        ],
        Dtype::F16 => vec![0x7E00, 0xFC01, 0x7C00, 0xFC00, 0, 0x8000, 1, 0x7BFF],
        _ => vec![0x7FC0, 0xFF81, 0x7F80, 0xFF80, 0, 0x8000, 1, 0x7F7F],
    }
}

/// Side A from `words`; side B per `how`: equal, low-bit nudges, random, or a special value.
fn sides(dtype: Dtype, words: &[u32], how: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let sp = specials(dtype);
    let w = if dtype == Dtype::F32 { 4 } else { 2 };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (i, (&x, &h)) in words.iter().zip(how.iter().cycle()).enumerate() {
        let x = if h % 16 == 15 { sp[i % sp.len()] } else { x };
        let y = match h % 8 {
            0 | 1 => x,
            2 | 3 => x ^ (u32::from(h) >> 3),
            4 => x.rotate_left(u32::from(h)),
            5 => sp[usize::from(h) % sp.len()],
            _ => x ^ 1,
        };
        a.extend_from_slice(&x.to_le_bytes()[..w]);
        b.extend_from_slice(&y.to_le_bytes()[..w]);
    }
    (a, b)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// At every vector level, the fused kernel's accumulator is bit-for-bit the generic one's.
    #[test]
    fn fused_equals_generic_bitwise(words in prop::collection::vec(any::<u32>(), 0..9000),
                                    how in prop::collection::vec(any::<u8>(), 1..64),
                                    dt in 0usize..3, start in 0u64..9000, tol_pick in 0usize..4) {
        let dtype = [Dtype::Bf16, Dtype::F16, Dtype::F32][dt];
        // Narrow the values so many differences sit near the tolerance and ties are common.
        let shift = if dtype == Dtype::F32 { 0 } else { 16 };
        let words: Vec<u32> = words.iter().map(|&x| if x % 3 == 0 { x } else { x >> shift & 0xC0FF_FFFF | 0x3000_0000 >> shift }).collect();
        let (a, b) = sides(dtype, &words, &how);
        let n = words.len() as u64;
        let start = start.min(n);
        let tol = [default_tolerance(dtype), (0.0, 0.0), (0.5, 0.0), (1e-3, 1e-2)][tol_pick];
        let mut scratch = Scratch::default();
        let want = compare_chunk_generic(dtype, &a, dtype, &b, start, n, tol, &mut scratch);
        for level in Level::ALL {
            let got = with_level(level, || compare_chunk(dtype, &a, dtype, &b, start, n, tol, &mut scratch));
            prop_assert_eq!(bits(&got), bits(&want), "{:?} at {:?}", dtype, level);
        }
    }
}

/// The largest difference occurs at several places in several lanes and blocks: the first one
/// is reported, as the generic kernel does.
#[test]
fn ties_report_the_first_place() {
    let n = 3 * BLOCK_ELEMS as usize + 5;
    let a = vec![0u8; 4 * n];
    let mut b = vec![0u8; 4 * n];
    for at in [4099usize, 4097, 6000, 9000, n - 1] {
        b[4 * at..4 * at + 4].copy_from_slice(&2.0f32.to_le_bytes());
    }
    b[4 * 10..4 * 11].copy_from_slice(&1.0f32.to_le_bytes());
    let mut scratch = Scratch::default();
    let tol = (0.0, 0.0);
    let want = compare_chunk_generic(
        Dtype::F32,
        &a,
        Dtype::F32,
        &b,
        0,
        n as u64,
        tol,
        &mut scratch,
    );
    assert_eq!(
        (want.max_abs, want.max_index, want.mismatched),
        (2.0, 4097, 6)
    );
    for level in Level::ALL {
        let got = with_level(level, || {
            compare_chunk(
                Dtype::F32,
                &a,
                Dtype::F32,
                &b,
                0,
                n as u64,
                tol,
                &mut scratch,
            )
        });
        assert_eq!(bits(&got), bits(&want), "{level:?}");
    }
}
