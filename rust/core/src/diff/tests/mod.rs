//! Tests of `compare_pairs`: a direct reference computation, thread and chunk invariance, the
//! non-finite rules, cross-dtype and shape cases, and property tests for panics and invariants.

mod fused;

use super::*;
use crate::elements::decode_f64;
use crate::{AtomicProgress, Dtype, Error, NoProgress};
use proptest::prelude::*;

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bf16_bytes(v: &[f32]) -> Vec<u8> {
    v.iter()
        .flat_map(|x| ((x.to_bits() >> 16) as u16).to_le_bytes())
        .collect()
}

fn side<'a>(dtype: Dtype, shape: &'a [u64], data: &'a [u8]) -> PairSide<'a> {
    PairSide { dtype, shape, data }
}

fn opts(threads: usize, chunk_bytes: usize) -> DiffOptions {
    DiffOptions {
        threads: Some(threads),
        chunk_bytes,
        ..DiffOptions::default()
    }
}

fn one(a: PairSide<'_>, b: PairSide<'_>, o: &DiffOptions) -> PairDiff {
    compare_pairs(&[PairTask { a, b }], o, &NoProgress)
        .unwrap()
        .remove(0)
}

fn wave(n: usize, phase: f32) -> Vec<f32> {
    (0..n).map(|i| ((i as f32) * 0.37 + phase).sin()).collect()
}

/// The metrics by their definitions, one straightforward loop over decoded values.
fn reference(a: &[f64], b: &[f64], rtol: f64, atol: f64) -> (f64, Option<u64>, f64, u64) {
    let (mut max, mut at, mut sum, mut n, mut bad) = (0.0f64, None, 0.0, 0u64, 0u64);
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        if x.is_finite() && y.is_finite() {
            let d = (x - y).abs();
            if d > max {
                max = d;
                at = Some(i as u64);
            }
            sum += d;
            n += 1;
            if d > atol + rtol * y.abs() {
                bad += 1;
            }
        } else if !((x.is_nan() && y.is_nan()) || x == y) {
            bad += 1;
        }
    }
    (max, at, sum / n.max(1) as f64, bad)
}

#[test]
fn identical_pair_is_equal_without_decoding() {
    let data = f32_bytes(&wave(10_000, 0.0));
    let shape = [100, 100];
    let d = one(
        side(Dtype::F32, &shape, &data),
        side(Dtype::F32, &shape, &data),
        &opts(2, 96),
    );
    assert_eq!(d.status, PairStatus::Equal);
    assert!(d.bytes_equal);
    assert_eq!(
        (d.max_abs, d.max_abs_index, d.mismatched),
        (Some(0.0), None, Some(0))
    );
    assert_eq!((d.rtol, d.atol), (1.3e-6, 1e-5));
}

#[test]
fn metrics_match_the_reference_and_the_location_is_unravelled() {
    let va = wave(5000, 0.0);
    let mut vb = va.clone();
    for (i, x) in vb.iter_mut().enumerate() {
        if i % 7 == 0 {
            *x += 1e-3 * (i % 5) as f32;
        }
    }
    vb[4321] = 9.0;
    let (a, b) = (f32_bytes(&va), f32_bytes(&vb));
    let shape = [50, 100];
    let d = one(
        side(Dtype::F32, &shape, &a),
        side(Dtype::F32, &shape, &b),
        &opts(2, 240),
    );
    let (mut xa, mut xb) = (Vec::new(), Vec::new());
    decode_f64(Dtype::F32, &a, &mut xa).unwrap();
    decode_f64(Dtype::F32, &b, &mut xb).unwrap();
    let (max, at, mean, bad) = reference(&xa, &xb, d.rtol, d.atol);
    assert_eq!(d.max_abs, Some(max));
    assert_eq!(d.max_abs_index, at);
    assert_eq!(d.max_abs_at, Some(vec![43, 21]));
    assert_eq!(d.mismatched, Some(bad));
    assert!((d.mean_abs.unwrap() - mean).abs() <= 1e-12 * mean);
    assert_eq!(d.status, PairStatus::Differ);
    let na: f64 = xa.iter().map(|x| x * x).sum::<f64>().sqrt();
    let nd: f64 = xa
        .iter()
        .zip(&xb)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt();
    assert!((d.rel_l2.unwrap() - nd / na).abs() <= 1e-12);
}

#[test]
fn results_do_not_depend_on_threads_and_partly_equal_pairs_get_full_norms() {
    let va = wave(20_000, 0.3);
    let mut vb = va.clone();
    vb[19_999] += 0.5; // only the last chunk differs: earlier chunks take the memcmp path
    let (a, b) = (f32_bytes(&va), f32_bytes(&vb));
    let shape = [20_000];
    let pa = side(Dtype::F32, &shape, &a);
    let pb = side(Dtype::F32, &shape, &b);
    let base = one(pa, pb, &opts(1, 480));
    for threads in [2, 3, 8] {
        assert_eq!(one(pa, pb, &opts(threads, 480)), base);
    }
    // One chunk (no memcmp shortcut anywhere) gives the same norms up to summation order.
    let whole = one(pa, pb, &opts(1, 1 << 24));
    assert_eq!(whole.max_abs_index, Some(19_999));
    assert_eq!(base.max_abs_index, Some(19_999));
    assert!((whole.cosine.unwrap() - base.cosine.unwrap()).abs() < 1e-12);
    assert!((whole.rel_l2.unwrap() - base.rel_l2.unwrap()).abs() < 1e-12);
    assert!(base.cosine.unwrap() < 1.0);
}

#[test]
fn nan_equals_only_nan_and_inf_must_match_in_sign() {
    let va = [
        f32::NAN,
        1.0,
        f32::INFINITY,
        f32::INFINITY,
        2.0,
        f32::NEG_INFINITY,
    ];
    let vb = [
        f32::NAN,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        2.0,
        5.0,
    ];
    let (a, b) = (f32_bytes(&va), f32_bytes(&vb));
    let shape = [6];
    let d = one(
        side(Dtype::F32, &shape, &a),
        side(Dtype::F32, &shape, &b),
        &opts(1, 96),
    );
    assert_eq!(d.mismatched, Some(3));
    assert_eq!(d.nonfinite_mismatched, Some(3));
    assert_eq!(d.max_abs, Some(0.0));
    assert_eq!(d.status, PairStatus::Differ);
    // The same bytes on both sides, NaN included, are equal.
    let e = one(
        side(Dtype::F32, &shape, &a),
        side(Dtype::F32, &shape, &a),
        &opts(1, 96),
    );
    assert_eq!(e.status, PairStatus::Equal);
}

#[test]
fn bf16_against_f32_with_equal_values_is_close_with_bf16_tolerance() {
    let v: Vec<f32> = wave(3000, 1.0)
        .iter()
        .map(|x| f32::from_bits(x.to_bits() & 0xFFFF_0000))
        .collect();
    let (a, b) = (bf16_bytes(&v), f32_bytes(&v));
    let shape = [3000];
    let d = one(
        side(Dtype::Bf16, &shape, &a),
        side(Dtype::F32, &shape, &b),
        &opts(2, 96),
    );
    assert_eq!(d.status, PairStatus::Close);
    assert!(!d.bytes_equal);
    assert_eq!((d.max_abs, d.mismatched), (Some(0.0), Some(0)));
    assert_eq!((d.rtol, d.atol), (1.6e-2, 1e-5));
}

#[test]
fn tolerance_overrides_and_close_versus_differ() {
    let va = wave(1000, 0.0);
    let vb: Vec<f32> = va.iter().map(|x| x * (1.0 + 1e-4)).collect();
    let (a, b) = (f32_bytes(&va), f32_bytes(&vb));
    let shape = [1000];
    let (pa, pb) = (side(Dtype::F32, &shape, &a), side(Dtype::F32, &shape, &b));
    assert_eq!(one(pa, pb, &opts(1, 96)).status, PairStatus::Differ);
    let loose = DiffOptions {
        rtol: Some(1e-3),
        ..opts(1, 96)
    };
    let d = one(pa, pb, &loose);
    assert_eq!(d.status, PairStatus::Close);
    assert_eq!(d.rtol, 1e-3);
    assert!(compare_pairs(
        &[PairTask { a: pa, b: pb }],
        &DiffOptions {
            atol: Some(-1.0),
            ..opts(1, 96)
        },
        &NoProgress
    )
    .is_err());
}

#[test]
fn reshape_compares_flat_but_differs_and_numel_change_has_no_metrics() {
    let data = f32_bytes(&wave(12, 0.0));
    let (s1, s2) = ([3u64, 4], [4u64, 3]);
    let d = one(
        side(Dtype::F32, &s1, &data),
        side(Dtype::F32, &s2, &data),
        &opts(1, 96),
    );
    assert_eq!(d.status, PairStatus::Differ);
    assert_eq!((d.max_abs, d.mismatched), (Some(0.0), Some(0)));
    let short = &data[..40];
    let s3 = [10u64];
    let e = one(
        side(Dtype::F32, &s1, &data),
        side(Dtype::F32, &s3, short),
        &opts(1, 96),
    );
    assert_eq!(e.status, PairStatus::Differ);
    assert_eq!((e.max_abs, e.mismatched, e.cosine), (None, None, None));
}

#[test]
fn integers_compare_exactly_across_widths() {
    let a: Vec<u8> = (0..100i64).flat_map(|x| x.to_le_bytes()).collect();
    let b: Vec<u8> = (0..100i32).flat_map(|x| x.to_le_bytes()).collect();
    let shape = [100];
    let d = one(
        side(Dtype::I64, &shape, &a),
        side(Dtype::I32, &shape, &b),
        &opts(1, 96),
    );
    assert_eq!(d.status, PairStatus::Close);
    assert_eq!((d.rtol, d.atol), (0.0, 0.0));
    let mut c = b.clone();
    c[4 * 50] = 51;
    let e = one(
        side(Dtype::I64, &shape, &a),
        side(Dtype::I32, &shape, &c),
        &opts(1, 96),
    );
    assert_eq!(
        (e.status, e.mismatched, e.max_abs_index),
        (PairStatus::Differ, Some(1), Some(50))
    );
}

#[test]
fn large_i64_values_that_round_together_still_mismatch() {
    let big = 1i64 << 60;
    let a: Vec<u8> = [big, 5].iter().flat_map(|x| x.to_le_bytes()).collect();
    let b: Vec<u8> = [big + 1, 5].iter().flat_map(|x| x.to_le_bytes()).collect();
    let shape = [2];
    let d = one(
        side(Dtype::I64, &shape, &a),
        side(Dtype::I64, &shape, &b),
        &opts(1, 96),
    );
    assert_eq!((d.status, d.mismatched), (PairStatus::Differ, Some(1)));
}

#[test]
fn bad_lengths_and_cancellation_are_errors() {
    let data = [0u8; 8];
    let shape = [3u64];
    let bad = PairTask {
        a: side(Dtype::F32, &shape, &data),
        b: side(Dtype::F32, &shape, &data),
    };
    assert!(matches!(
        compare_pairs(&[bad], &DiffOptions::default(), &NoProgress),
        Err(Error::InvalidArgument(_))
    ));
    let big = f32_bytes(&wave(1000, 0.0));
    let other = f32_bytes(&wave(1000, 1.0));
    let s = [1000u64];
    let progress = AtomicProgress::default();
    progress.cancel();
    let task = PairTask {
        a: side(Dtype::F32, &s, &big),
        b: side(Dtype::F32, &s, &other),
    };
    assert!(matches!(
        compare_pairs(&[task], &opts(1, 96), &progress),
        Err(Error::Cancelled)
    ));
}

#[test]
fn progress_counts_both_sides_once() {
    let a = f32_bytes(&wave(1000, 0.0));
    let b = f32_bytes(&wave(1000, 1.0));
    let s = [1000u64];
    let progress = AtomicProgress::default();
    let task = PairTask {
        a: side(Dtype::F32, &s, &a),
        b: side(Dtype::F32, &s, &b),
    };
    compare_pairs(&[task], &opts(2, 96), &progress).unwrap();
    assert_eq!(progress.done(), 8000);
}

#[test]
fn content_hashes_equal_the_stats_hash() {
    let a = f32_bytes(&wave(1000, 0.0));
    let hashes = content_hashes(&[&a, &a[..4]], Some(2), false, &NoProgress).unwrap();
    assert_eq!(
        hashes[0],
        crate::stats::hash_bytes(&a, crate::stats::DEFAULT_CHUNK_BYTES)
    );
    assert_ne!(hashes[0], hashes[1]);
}

fn any_dtype() -> impl Strategy<Value = Dtype> {
    prop::sample::select(Dtype::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any bytes of any two dtypes: no panic, thread-invariant, and self-comparison is equal.
    #[test]
    fn any_pair_is_handled(da in any_dtype(), db in any_dtype(), n in 0u64..300,
                           seed in any::<u64>(), chunk in 1usize..200) {
        let mut s = seed;
        let mut gen = |len: u64| -> Vec<u8> {
            (0..len).map(|_| { s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (s >> 56) as u8 }).collect()
        };
        let n4 = n / 4 * 4;
        let (la, lb) = (da.byte_len(n4).unwrap(), db.byte_len(n4).unwrap());
        let (a, b) = (gen(la), gen(lb));
        let shape = [n4];
        let task = PairTask { a: side(da, &shape, &a), b: side(db, &shape, &b) };
        let one_thread = compare_pairs(&[task], &opts(1, chunk), &NoProgress).unwrap();
        let many = compare_pairs(&[task], &opts(3, chunk), &NoProgress).unwrap();
        // Debug text compares NaN metrics (an overflowing F64 difference) as equal too.
        prop_assert_eq!(format!("{one_thread:?}"), format!("{many:?}"));
        if let Some(r) = one_thread[0].rel_l2 {
            prop_assert!(r.is_finite() && r >= 0.0);
        }
        if let Some(c) = one_thread[0].cosine {
            prop_assert!(c.is_finite());
        }
        let d = &one_thread[0];
        if let Some(m) = d.mismatched {
            prop_assert!(m <= d.numel);
            prop_assert_eq!(d.status == PairStatus::Close, m == 0 && !d.bytes_equal);
        }
        let same = PairTask { a: side(da, &shape, &a), b: side(da, &shape, &a) };
        let e = compare_pairs(&[same], &opts(2, chunk), &NoProgress).unwrap();
        prop_assert_eq!(e[0].status, PairStatus::Equal);
    }

    /// The location, max and mismatch count do not depend on the chunk size.
    #[test]
    fn chunking_does_not_change_discrete_results(vals in prop::collection::vec(-4.0f32..4.0, 4..400),
                                                 noise in prop::collection::vec(-0.1f32..0.1, 400),
                                                 c1 in 1usize..100, c2 in 100usize..5000) {
        let vb: Vec<f32> = vals.iter().zip(&noise).map(|(x, e)| x + e).collect();
        let (a, b) = (f32_bytes(&vals), f32_bytes(&vb));
        let shape = [vals.len() as u64];
        let task = PairTask { a: side(Dtype::F32, &shape, &a), b: side(Dtype::F32, &shape, &b) };
        let x = compare_pairs(&[task], &opts(2, c1), &NoProgress).unwrap().remove(0);
        let y = compare_pairs(&[task], &opts(2, c2), &NoProgress).unwrap().remove(0);
        prop_assert_eq!((x.max_abs, x.max_abs_index, x.mismatched), (y.max_abs, y.max_abs_index, y.mismatched));
    }
}

proptest! {
    /// The one-sided kernel of the revisit pass equals the two-sided kernel on identical bytes.
    #[test]
    fn equal_chunk_matches_compare_chunk(words in prop::collection::vec(any::<u32>(), 0..600),
                                         start in 0u64..100) {
        use super::kernel::{compare_chunk, equal_chunk, Scratch};
        let data: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        for dtype in [Dtype::F32, Dtype::Bf16, Dtype::F8E4M3, Dtype::F4, Dtype::I16] {
            let n = (data.len() as u64 * 8 / dtype.bits()) / 4 * 4;
            let s = (start / 4 * 4).min(n);
            let mut scratch = Scratch::default();
            let both = compare_chunk(dtype, &data, dtype, &data, s, n, (0.0, 0.0), &mut scratch);
            let one = equal_chunk(dtype, &data, s, n, &mut scratch);
            prop_assert_eq!(format!("{both:?}"), format!("{one:?}"));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// The whole comparison (planning, chunks, blocks, lanes, merges) gives the same bits for
    /// any thread count and at every vector level, on BF16 data with NaN, infinities and ties.
    #[test]
    fn results_are_bit_identical_across_threads_and_cpus(words in prop::collection::vec(any::<u16>(), 0..20_000),
                                                         flips in prop::collection::vec(any::<u16>(), 1..50),
                                                         chunk in 1usize..40_000) {
        use crate::elements::cpu::{with_level, Level};
        let a: Vec<u8> = words.iter().flat_map(|w| (w & 0xBFFF | 0x3000).to_le_bytes()).collect();
        let b: Vec<u8> = words
            .iter()
            .zip(flips.iter().cycle())
            .flat_map(|(w, f)| {
                let y = (w & 0xBFFF | 0x3000) ^ (f & 0x7);
                // Now and then a NaN or an infinity on one side or both.
                let y = match f % 97 { 0 => 0x7FC1, 1 => 0xFF80, 2 => w | 0x7F80, _ => y };
                y.to_le_bytes()
            })
            .collect();
        let shape = [words.len() as u64];
        let task = PairTask { a: side(Dtype::Bf16, &shape, &a), b: side(Dtype::Bf16, &shape, &b) };
        let want = compare_pairs(&[task], &opts(1, chunk), &NoProgress).unwrap();
        for (threads, level) in [(2, Level::Avx512), (3, Level::Avx2), (5, Level::Portable), (2, Level::Portable)] {
            let got = with_level(level, || compare_pairs(&[task], &opts(threads, chunk), &NoProgress).unwrap());
            prop_assert_eq!(format!("{got:?}"), format!("{want:?}"), "{} threads, {:?}", threads, level);
        }
    }
}
