//! Per-dtype semantics: BF16 specials, exact integers, BOOL, C64 magnitudes.

use super::*;

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
fn byte_integers_via_histogram_are_exact() {
    let mut next = rng(19);
    let bytes: Vec<u8> = (0..24 * 5000).map(|_| next() as u8).collect();
    for dtype in [Dtype::I8, Dtype::U8] {
        let st = one(dtype, &bytes, &opts(2, 24 * 300));
        let vals: Vec<i128> = bytes
            .iter()
            .map(|&b| {
                if dtype == Dtype::I8 {
                    i128::from(b as i8)
                } else {
                    i128::from(b)
                }
            })
            .collect();
        let (n, s1) = (vals.len() as i128, vals.iter().sum::<i128>());
        let s2: i128 = vals.iter().map(|v| v * v).sum();
        assert_eq!(st.int_sum, Some(s1));
        assert_eq!(st.int_min, vals.iter().min().copied());
        assert_eq!(st.int_max, vals.iter().max().copied());
        assert_eq!(st.zeros, vals.iter().filter(|&&v| v == 0).count() as u64);
        let var = (n * s2 - s1 * s1) as f64 / (n * n) as f64;
        assert!(rel(st.std.unwrap(), var.sqrt()) < 1e-13);
        assert!(rel(st.l2.unwrap(), (s2 as f64).sqrt()) < 1e-13);
    }
}
