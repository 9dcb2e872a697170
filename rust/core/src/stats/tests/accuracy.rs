//! Accuracy against exact integer references, including mean ≫ std and bad shifts.

use super::*;

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
    use crate::elements::cpu::{with_level, Level};
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
        // A multiple of 32 elements, and one that leaves 16 for the AVX2 loop after AVX-512.
        for (n, level) in [data.len() / w, data.len() / w - 16]
            .into_iter()
            .flat_map(|n| [Level::Avx2, Level::Avx512].map(|l| (n, l)))
        {
            let a = super::shifted_acc::run_portable(dtype, &data, n, 0.25);
            let b = with_level(level, || {
                super::shifted::run_dispatched(dtype, &data, n, 0.25)
            });
            assert_same_acc(dtype, &a, &b);
        }
    }
}

/// Asserts two lane accumulators hold the same bits, and that the data had zeros.
fn assert_same_acc(dtype: Dtype, a: &super::shifted_acc::Acc, b: &super::shifted_acc::Acc) {
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
    assert_eq!(
        (a.kmin, a.kmax, a.kzeros),
        (b.kmin, b.kmax, b.kzeros),
        "{dtype}"
    );
    let zeros = if dtype == Dtype::Bf16 {
        a.kzeros.iter().map(|&z| f32::from(z)).sum::<f32>()
    } else {
        a.zeros.iter().sum::<f32>()
    };
    assert!(zeros >= 2.0, "{dtype}");
}
