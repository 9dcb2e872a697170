//! Tests of `compute_stats`: exact references, thread-count invariance, edge cases, and property
//! tests for panics and count invariants.

use super::*;
use crate::elements::{classify_bits, decode_f64, ElementClass};
use crate::{AtomicProgress, Dtype, Error, NoProgress};
use proptest::prelude::*;

/// A small deterministic generator (splitmix64) so the tests need no extra crate.
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed;
    move || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn opts(threads: usize, chunk_bytes: usize) -> StatsOptions {
    StatsOptions {
        threads: Some(threads),
        hash: true,
        chunk_bytes,
        release_pages: false,
    }
}

fn one(dtype: Dtype, data: &[u8], o: &StatsOptions) -> TensorStats {
    let numel = data.len() as u64 * 8 / dtype.bits();
    let task = StatsTask { dtype, numel, data };
    compute_stats(&[task], o, &NoProgress).unwrap().remove(0)
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(f64::MIN_POSITIVE)
}

#[test]
fn mean_much_larger_than_std_is_exact_to_1e12() {
    // x = 1 + k·2^-23 in f32, k in [-1000, 1000]: mean ≈ 1, std ≈ 7e-5. The exact mean and
    // variance come from integer sums of k.
    let mut next = rng(7);
    let n = 1_000_003usize;
    let ks: Vec<i64> = (0..n).map(|_| (next() % 2001) as i64 - 1000).collect();
    let data: Vec<u8> = ks
        .iter()
        .flat_map(|&k| (1.0f32 + k as f32 * 2f32.powi(-23)).to_le_bytes())
        .collect();
    let (s1, s2): (i128, i128) = ks.iter().fold((0, 0), |(a, b), &k| {
        (a + k as i128, b + (k as i128) * (k as i128))
    });
    let nn = n as i128;
    let mean = 1.0 + (s1 as f64 / n as f64) * 2f64.powi(-23);
    let var = ((nn * s2 - s1 * s1) as f64 / (nn * nn) as f64) * 2f64.powi(-46);
    for chunk_bytes in [24 * 1000, DEFAULT_CHUNK_BYTES] {
        let st = one(Dtype::F32, &data, &opts(2, chunk_bytes));
        assert!(rel(st.mean.unwrap(), mean) < 1e-15, "{st:?}");
        assert!(
            rel(st.std.unwrap(), var.sqrt()) < 1e-12,
            "{st:?} vs {}",
            var.sqrt()
        );
        let l2 = (n as f64 * (var + mean * mean)).sqrt();
        assert!(rel(st.l2.unwrap(), l2) < 1e-12);
    }
}

#[test]
fn an_outlier_shift_is_corrected() {
    // x = (2^23 + k) / 16 in f32 (exact), k in [-1000, 1000], except that every chunk starts
    // with the outlier 2^20 (k = 2^23), which is the fast kernel's first shift: without the
    // cancellation check the std would lose ~12 bits.
    let mut next = rng(5);
    let n = 300_000usize;
    let per_chunk = 24 * 2000 / 4;
    let ks: Vec<i64> = (0..n)
        .map(|i| {
            if i % per_chunk == 0 {
                1 << 24
            } else {
                (next() % 2001) as i64 - 1000
            }
        })
        .collect();
    let data: Vec<u8> = ks
        .iter()
        .flat_map(|&k| (((1i64 << 23) + k) as f32 / 16.0).to_le_bytes())
        .collect();
    let (s1, s2): (i128, i128) = ks.iter().fold((0, 0), |(a, b), &k| {
        (a + k as i128, b + (k as i128) * (k as i128))
    });
    let nn = n as i128;
    let mean = 2f64.powi(19) + (s1 as f64 / n as f64) / 16.0;
    let var = ((nn * s2 - s1 * s1) as f64 / (nn * nn) as f64) / 256.0;
    let st = one(Dtype::F32, &data, &opts(2, 24 * 2000));
    assert!(rel(st.mean.unwrap(), mean) < 1e-15, "{st:?}");
    assert!(
        rel(st.std.unwrap(), var.sqrt()) < 1e-12,
        "{st:?} vs {}",
        var.sqrt()
    );
}

#[test]
fn a_far_shift_is_retried() {
    // One block of x = 1 + k·2^-23 with the kernel's shift at 1e6 (as after a block of very
    // different values): Σd² ≈ n·1e12 while M2 ≈ n·3e-9, so without the retry nothing survives.
    let mut next = rng(13);
    let ks: Vec<i64> = (0..4096).map(|_| (next() % 2001) as i64 - 1000).collect();
    let data: Vec<u8> = ks
        .iter()
        .flat_map(|&k| (1.0f32 + k as f32 * 2f32.powi(-23)).to_le_bytes())
        .collect();
    let (s1, s2): (i128, i128) = ks.iter().fold((0, 0), |(a, b), &k| {
        (a + k as i128, b + (k as i128) * (k as i128))
    });
    let n = ks.len() as i128;
    let m2 = ((n * s2 - s1 * s1) as f64 / n as f64) * 2f64.powi(-46);
    let m = super::shifted::block(Dtype::F32, &data, ks.len(), 1e6).unwrap();
    assert!(rel(m.m2, m2) < 1e-12, "{} vs {m2}", m.m2);
    assert!(rel(m.mean, 1.0 + (s1 as f64 / n as f64) * 2f64.powi(-23)) < 1e-15);
}

#[test]
fn shifted_vector_and_portable_loops_agree_bitwise() {
    let mut next = rng(9);
    let bytes: Vec<u8> = (0..4096 * 4).map(|_| next() as u8).collect();
    for dtype in [Dtype::Bf16, Dtype::F16, Dtype::F32] {
        // Clear the exponent's top bit so every value is finite and moderate.
        let mut data = bytes.clone();
        let w = dtype.size().unwrap() as usize;
        for c in data.chunks_mut(w) {
            c[w - 1] &= 0xBF;
        }
        // Elements 3 and 12 are +0 and -0.
        data[3 * w..4 * w].fill(0);
        data[12 * w..13 * w].fill(0);
        data[13 * w - 1] = 0x80;
        let n = data.len() / w;
        let a = super::shifted::run_portable(dtype, &data, n, 0.25);
        let b = super::shifted::run_dispatched(dtype, &data, n, 0.25);
        let f32s = |v: [f32; 8]| v.map(f32::to_bits);
        assert_eq!(
            (f32s(a.lo), f32s(a.hi)),
            (f32s(b.lo), f32s(b.hi)),
            "{dtype}"
        );
        assert_eq!(f32s(a.zeros), f32s(b.zeros), "{dtype}");
        let bits = |v: [f64; 16]| v.map(f64::to_bits);
        assert_eq!(bits(a.s1), bits(b.s1), "{dtype}");
        assert_eq!(bits(a.s2), bits(b.s2), "{dtype}");
        assert!(a.zeros.iter().sum::<f32>() >= 2.0);
    }
}

#[test]
fn thread_count_does_not_change_any_bit() {
    let mut next = rng(11);
    let bytes: Vec<u8> = (0..600_000).map(|_| next() as u8).collect();
    for dtype in [
        Dtype::Bf16,
        Dtype::F16,
        Dtype::F32,
        Dtype::F8E4M3,
        Dtype::F4,
        Dtype::I32,
    ] {
        let data = &bytes[..bytes.len() / 24 * 24];
        let base = one(dtype, data, &opts(1, 24 * 100));
        for threads in [2, 3, 8] {
            let got = one(dtype, data, &opts(threads, 24 * 100));
            assert_eq!(
                format!("{got:?}"),
                format!("{base:?}"),
                "{dtype} threads={threads}"
            );
        }
        assert_eq!(base.hash, Some(hash_bytes(data, 24 * 100)));
    }
}

#[test]
fn every_float_dtype_agrees_with_its_f64_decoding() {
    // Random bytes (all special patterns included) in one chunk: the dtype's statistics must be
    // bit-identical to those of the exactly decoded values stored as F64, and the class counts
    // must equal the raw-bit classification.
    let mut next = rng(3);
    let bytes: Vec<u8> = (0..24 * 2000).map(|_| next() as u8).collect();
    for dtype in Dtype::ALL.into_iter().filter(|d| d.is_float()) {
        let st = one(dtype, &bytes, &opts(2, DEFAULT_CHUNK_BYTES));
        let mut values = Vec::new();
        decode_f64(dtype, &bytes, &mut values).unwrap();
        let f64_bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let reference = one(Dtype::F64, &f64_bytes, &opts(2, DEFAULT_CHUNK_BYTES));
        assert_eq!((st.min, st.max), (reference.min, reference.max), "{dtype}");
        let moments = [
            (st.mean, reference.mean),
            (st.std, reference.std),
            (st.l2, reference.l2),
        ];
        for (a, b) in moments {
            if super::shifted::applies(dtype) {
                // Another kernel (shifted single pass): equal to rounding.
                let (a, b) = (a.unwrap(), b.unwrap());
                let scale = st.abs_max.unwrap();
                assert!((a - b).abs() <= 1e-12 * scale, "{dtype} {a} {b}");
            } else {
                assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits), "{dtype}");
            }
        }
        let counts = class_counts(dtype, &bytes);
        assert_eq!([st.nan, st.posinf, st.neginf, st.zeros], counts, "{dtype}");
        assert_eq!(st.numel, values.len() as u64);
    }
}

/// [nan, +inf, -inf, zero] by the raw-bit rules.
fn class_counts(dtype: Dtype, bytes: &[u8]) -> [u64; 4] {
    let codes: Vec<u64> = match dtype {
        Dtype::F4 => bytes
            .iter()
            .flat_map(|b| [b & 0xF, b >> 4])
            .map(u64::from)
            .collect(),
        Dtype::F6E2M3 | Dtype::F6E3M2 => bytes
            .chunks(3)
            .flat_map(|g| crate::elements::packed::f6_codes([g[0], g[1], g[2]]))
            .map(u64::from)
            .collect(),
        _ => {
            let w = dtype.size().unwrap() as usize;
            bytes
                .chunks(w)
                .map(crate::elements::le::<8>)
                .map(u64::from_le_bytes)
                .collect()
        }
    };
    let mut out = [0; 4];
    for c in codes {
        match classify_bits(dtype, c) {
            ElementClass::Nan => out[0] += 1,
            ElementClass::PosInf => out[1] += 1,
            ElementClass::NegInf => out[2] += 1,
            ElementClass::Zero => out[3] += 1,
            ElementClass::Finite => {}
        }
    }
    out
}

#[test]
fn bf16_specials_and_reference_moments() {
    let vals: [u16; 8] = [
        0x3F80, 0x4000, 0x7FC0, 0x7F80, 0xFF80, 0x8000, 0x0000, 0xC040,
    ];
    let data: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let st = one(Dtype::Bf16, &data, &opts(1, 24));
    assert_eq!(
        (st.nan, st.posinf, st.neginf, st.zeros, st.finite),
        (1, 1, 1, 2, 5)
    );
    // Finite values: 1, 2, -0, 0, -3.
    assert_eq!(
        (st.min, st.max, st.abs_max),
        (Some(-3.0), Some(2.0), Some(3.0))
    );
    assert_eq!(st.mean, Some(0.0));
    assert!(rel(st.std.unwrap(), (14.0f64 / 5.0).sqrt()) < 1e-15);
    assert!(rel(st.l2.unwrap(), 14f64.sqrt()) < 1e-15);
}

#[test]
fn integers_are_exact() {
    let vals = [i64::MAX, i64::MAX, i64::MIN, 0, -5];
    let data: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let st = one(Dtype::I64, &data, &opts(2, 24));
    let sum: i128 = vals.iter().map(|&v| i128::from(v)).sum();
    assert_eq!(st.int_sum, Some(sum));
    assert_eq!(
        (st.int_min, st.int_max),
        (Some(i64::MIN.into()), Some(i64::MAX.into()))
    );
    assert_eq!(st.zeros, 1);
    assert_eq!(st.mean, Some(sum as f64 / 5.0));
    let u: Vec<u8> = [u64::MAX; 3].iter().flat_map(|v| v.to_le_bytes()).collect();
    let st = one(Dtype::U64, &u, &opts(1, 24));
    assert_eq!(st.int_sum, Some(3 * i128::from(u64::MAX)));
    assert_eq!(st.std, Some(0.0));
}

#[test]
fn bool_counts_true_bytes() {
    let st = one(Dtype::Bool, &[0, 1, 2, 0, 255], &opts(1, 24));
    assert_eq!((st.true_count, st.zeros, st.int_sum), (Some(3), 2, None));
    assert_eq!(st.mean, Some(0.6));
}

#[test]
fn c64_uses_magnitudes() {
    let parts = [
        3.0f32,
        4.0,
        f32::NAN,
        0.0,
        f32::NEG_INFINITY,
        1.0,
        0.0,
        -0.0,
    ];
    let data: Vec<u8> = parts.iter().flat_map(|v| v.to_le_bytes()).collect();
    let st = one(Dtype::C64, &data, &opts(1, 24));
    assert_eq!(
        (st.numel, st.nan, st.posinf, st.neginf, st.zeros),
        (4, 1, 1, 0, 1)
    );
    assert_eq!((st.min, st.max, st.mean), (Some(0.0), Some(5.0), Some(2.5)));
}

#[test]
fn empty_scalar_and_all_nan_tensors() {
    let empty = compute_stats(
        &[StatsTask {
            dtype: Dtype::F32,
            numel: 0,
            data: &[],
        }],
        &opts(2, 24),
        &NoProgress,
    )
    .unwrap()
    .remove(0);
    assert_eq!((empty.numel, empty.finite, empty.mean), (0, 0, None));
    assert_eq!(empty.hash, Some(hash_bytes(&[], 24)));
    let scalar = one(Dtype::F64, &2.5f64.to_le_bytes(), &opts(1, 24));
    assert_eq!(
        (scalar.mean, scalar.std, scalar.l2),
        (Some(2.5), Some(0.0), Some(2.5))
    );
    let nans = one(Dtype::F8E4M3, &[0x7F, 0xFF], &opts(1, 24));
    assert_eq!((nans.nan, nans.min, nans.std), (2, None, None));
}

#[test]
fn invalid_arguments_are_errors() {
    let bad_len = StatsTask {
        dtype: Dtype::F32,
        numel: 3,
        data: &[0; 8],
    };
    let r = compute_stats(&[bad_len], &StatsOptions::default(), &NoProgress);
    assert!(matches!(r, Err(Error::InvalidArgument(_))));
    let odd_f4 = StatsTask {
        dtype: Dtype::F4,
        numel: 3,
        data: &[0; 2],
    };
    let r = compute_stats(&[odd_f4], &StatsOptions::default(), &NoProgress);
    assert!(matches!(r, Err(Error::InvalidArgument(_))));
    for o in [opts(1, 0), opts(1, 100), opts(0, 24)] {
        assert!(matches!(
            compute_stats(&[], &o, &NoProgress),
            Err(Error::InvalidArgument(_))
        ));
    }
}

#[test]
fn progress_counts_bytes_and_cancellation_stops() {
    let data = vec![0u8; 24 * 1000];
    let task = StatsTask {
        dtype: Dtype::Bf16,
        numel: 12_000,
        data: &data,
    };
    let p = AtomicProgress::default();
    compute_stats(&[task, task], &opts(2, 240), &p).unwrap();
    assert_eq!(p.done(), 2 * data.len() as u64);
    let p = AtomicProgress::default();
    p.cancel();
    assert!(matches!(
        compute_stats(&[task], &opts(2, 240), &p),
        Err(Error::Cancelled)
    ));
    assert_eq!(p.done(), 0);
}

#[test]
fn many_tasks_keep_their_order() {
    let datas: Vec<Vec<u8>> = (0..50u8).map(|i| vec![i; 24 * (i as usize % 5)]).collect();
    let tasks: Vec<StatsTask<'_>> = datas
        .iter()
        .map(|d| StatsTask {
            dtype: Dtype::U8,
            numel: d.len() as u64,
            data: d,
        })
        .collect();
    let out = compute_stats(&tasks, &opts(3, 24), &NoProgress).unwrap();
    for (i, st) in out.iter().enumerate() {
        let n = tasks[i].numel;
        assert_eq!(st.numel, n);
        assert_eq!(st.int_sum, Some(i128::from(n) * i as i128));
        assert_eq!(st.hash, Some(hash_bytes(tasks[i].data, 24)));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn arbitrary_inputs_never_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
        dtype_index in 0..Dtype::ALL.len(),
        numel in prop_oneof![0u64..700, any::<u64>()],
    ) {
        let dtype = Dtype::ALL[dtype_index];
        let task = StatsTask { dtype, numel, data: &bytes };
        match compute_stats(&[task], &opts(2, 48), &NoProgress) {
            Ok(st) => {
                let st = &st[0];
                prop_assert_eq!(dtype.byte_len(numel), Some(bytes.len() as u64));
                prop_assert_eq!(st.nan + st.posinf + st.neginf + st.finite, numel);
                prop_assert!(st.zeros <= st.finite);
            }
            Err(e) => {
                prop_assert!(matches!(e, Error::InvalidArgument(_)));
                prop_assert_ne!(dtype.byte_len(numel), Some(bytes.len() as u64));
            }
        }
    }

    #[test]
    fn chunking_and_threads_agree(
        bytes in proptest::collection::vec(any::<u8>(), 0..4000),
        dtype_index in 0..Dtype::ALL.len(),
        quanta in 1usize..20,
        threads in 1usize..5,
    ) {
        let dtype = Dtype::ALL[dtype_index];
        let unit = crate::elements::unit_bytes(dtype);
        let data = &bytes[..bytes.len() / unit * unit];
        let a = one(dtype, data, &opts(1, 24 * quanta));
        let b = one(dtype, data, &opts(threads, 24 * quanta));
        prop_assert_eq!(format!("{a:?}"), format!("{b:?}"));
        // Another chunking changes at most rounding: counts exact, moments within 1e-9.
        let c = one(dtype, data, &opts(threads, DEFAULT_CHUNK_BYTES));
        prop_assert_eq!((a.nan, a.posinf, a.neginf, a.zeros, a.finite), (c.nan, c.posinf, c.neginf, c.zeros, c.finite));
        prop_assert_eq!((a.min, a.max, a.int_sum), (c.min, c.max, c.int_sum));
        // Random F64 bits reach 1e308, where squares overflow (as in numpy): compare finite stds.
        if let (Some(x), Some(y)) = (a.std.filter(|v| v.is_finite()), c.std.filter(|v| v.is_finite())) {
            let scale = a.abs_max.unwrap_or(0.0);
            prop_assert!((x - y).abs() <= 1e-9 * scale.max(f64::MIN_POSITIVE));
        }
    }
}
