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
        every_level_is_generic(dtype, (&a, &b), (start, n), tol)?;
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

/// Every lane of every accumulator as raw bits.
fn lane_bits(l: &crate::diff::lanes::Lanes) -> Vec<u64> {
    let arrays = [
        l.sum_abs,
        l.sum_sq_diff,
        l.sum_sq_a,
        l.sum_sq_b,
        l.dot,
        l.max_abs,
    ];
    let mut out: Vec<u64> = arrays.iter().flatten().map(|x| x.to_bits()).collect();
    out.extend([l.finite, l.mismatched, l.nonfinite_mismatched]);
    out
}

/// Finite values of `dtype` from `words`, narrowed so differences sit near the tolerance.
fn finite_sides(dtype: Dtype, words: &[u32], flips: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (&x, &f) in words.iter().zip(flips.iter().cycle()) {
        // Exponents kept well inside the range, so every value is finite and normal or zero.
        let (x, y) = match dtype {
            Dtype::F32 => {
                let x = x & 0x8FFF_FFFF | 0x3000_0000;
                (x, x ^ u32::from(f))
            }
            Dtype::F16 => {
                let x = x & 0x9FFF | 0x2000;
                (x, x ^ u32::from(f & 0x3F))
            }
            _ => {
                let x = x & 0x8FFF | 0x3000;
                (x, x ^ u32::from(f & 0x3F))
            }
        };
        push(dtype, (x, y), (&mut a, &mut b));
    }
    (a, b)
}

/// Appends the low bytes of `x` to `a` and of `y` to `b`, one element of `dtype` each.
fn push(dtype: Dtype, (x, y): (u32, u32), (a, b): (&mut Vec<u8>, &mut Vec<u8>)) {
    let w = if dtype == Dtype::F32 { 4 } else { 2 };
    a.extend_from_slice(&x.to_le_bytes()[..w]);
    b.extend_from_slice(&y.to_le_bytes()[..w]);
}

/// At every vector level, `compare_chunk` of places `[start, n)` gives the generic kernel's bits.
fn every_level_is_generic(
    dtype: Dtype,
    (a, b): (&[u8], &[u8]),
    (start, n): (u64, u64),
    tol: (f64, f64),
) -> Result<(), TestCaseError> {
    let mut scratch = Scratch::default();
    let want = compare_chunk_generic(dtype, a, dtype, b, start, n, tol, &mut scratch);
    for level in Level::ALL {
        let got = with_level(level, || {
            compare_chunk(dtype, a, dtype, b, start, n, tol, &mut scratch)
        });
        prop_assert_eq!(
            bits(&got),
            bits(&want),
            "{:?} at {:?} {:?}",
            dtype,
            level,
            tol
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// On finite data each vector body (AVX-512, AVX2) fills the lanes with exactly the bits of
    /// the portable loop over the same places, for every dtype and tolerance.
    #[test]
    fn vector_bodies_equal_the_portable_loop(words in prop::collection::vec(any::<u32>(), 0..700),
                                              flips in prop::collection::vec(any::<u8>(), 1..40),
                                              dt in 0usize..3, tol_pick in 0usize..3) {
        use crate::diff::fused::{body_dispatched, body_portable};
        let dtype = [Dtype::Bf16, Dtype::F16, Dtype::F32][dt];
        let (a, b) = finite_sides(dtype, &words, &flips);
        let tol = [default_tolerance(dtype), (0.0, 0.0), (1e-3, 1e-2)][tol_pick];
        for (level, screens) in [(Level::Avx2, false), (Level::Avx512, true), (Level::Avx512, false)] {
            let (done, lanes) = with_level(level, || body_dispatched(dtype, &a, &b, words.len(), tol, screens));
            prop_assert_eq!(done % 16, 0);
            let want = body_portable(dtype, &a, &b, done, tol);
            prop_assert_eq!(lane_bits(&lanes), lane_bits(&want), "{:?} {:?} {} {}", dtype, level, done, screens);
        }
    }
}

/// The comparisons above only mean something if the vector bodies run here: on a CPU with
/// AVX-512 (AVX2) that body takes every whole step of 32 BF16 places (16).
#[cfg(target_arch = "x86_64")]
#[test]
fn vector_bodies_run_whole_steps_where_the_cpu_allows() {
    use crate::diff::lanes::Lanes;
    use crate::diff::{fused_avx2, fused_avx512};
    use crate::elements::cpu::{has_avx2_f16c, has_avx512};
    let (a, b) = finite_sides(Dtype::Bf16, &[0x1234_5678; 120], &[1]);
    let tol = (0.0, 0.0);
    let fresh = || Lanes::NEW;
    let wide = with_level(Level::Avx512, || {
        let run = fused_avx512::body(Dtype::Bf16, &a, &b, 112, tol, Some(0), &mut fresh()).0;
        (run, has_avx512())
    });
    assert_eq!(wide.0, if wide.1 { 96 } else { 0 });
    let narrow = with_level(Level::Avx2, || {
        let run = fused_avx2::body(Dtype::Bf16, &a, &b, 112, tol, &mut fresh());
        (run, has_avx2_f16c())
    });
    assert_eq!(narrow.0, if narrow.1 { 112 } else { 0 });
    let none = with_level(Level::Portable, || {
        fused_avx2::body(Dtype::Bf16, &a, &b, 112, tol, &mut fresh())
    });
    assert_eq!(none, 0);
}

/// Side B a few units of the last place from side A in its raw bits (wrapping, so signs cross
/// at zero and values reach the subnormals and the largest finite ones), for the mismatch
/// screen of the vector loops (`screen`).
fn near_sides(dtype: Dtype, words: &[u32], offsets: &[i8]) -> (Vec<u8>, Vec<u8>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (&x, &o) in words.iter().zip(offsets.iter().cycle()) {
        let off = i32::from(o % 5) as u32;
        push(dtype, (x, x.wrapping_add(off)), (&mut a, &mut b));
    }
    (a, b)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// Pairs a few units apart, at tolerances just below, at and above each screen's edges: the
    /// vector loops' screened mismatch count is the generic kernel's, as are all other bits.
    #[test]
    fn screened_counts_equal_the_bound(words in prop::collection::vec(any::<u32>(), 0..5000),
                                       offsets in prop::collection::vec(any::<i8>(), 1..50),
                                       dt in 0usize..3, k in 0u32..4, nudge in 0usize..3,
                                       low in any::<bool>()) {
        let dtype = [Dtype::Bf16, Dtype::F16, Dtype::F32][dt];
        let (m, g) = [(7, -133), (10, -24), (23, -149)][dt];
        // Mostly small magnitudes (subnormals, zeros and sign crossings) or any bits.
        let words: Vec<u32> = words.iter().map(|&x| if low { x & 0x8000_00FF } else { x }).collect();
        let words: Vec<u32> = if dtype == Dtype::F32 { words } else { words.iter().map(|&x| x & 0xFFFF).collect() };
        let (a, b) = near_sides(dtype, &words, &offsets);
        let p = |e: i32| 2f64.powi(e);
        let f = [1.0 - 1e-12, 1.0, 1.0 + 1e-12][nudge];
        let tol = (f64::from(k) * p(-m) * f, f64::from(k) * p(g) * f);
        every_level_is_generic(dtype, (&a, &b), (0, words.len() as u64), tol)?;
    }
}
