//! Tests of the element decoders against the raw-bit classification rules and independent formulas.

use super::*;

fn decode_one(dtype: Dtype, bytes: &[u8]) -> Vec<f64> {
    let mut out = Vec::new();
    decode_f64(dtype, bytes, &mut out).unwrap();
    out
}

#[test]
fn every_16_bit_pattern_decodes_to_its_class() {
    for dtype in [Dtype::F16, Dtype::Bf16] {
        for bits in 0..=u16::MAX {
            let v = decode_one(dtype, &bits.to_le_bytes());
            assert_eq!(v.len(), 1);
            assert_eq!(
                classify(v[0]),
                classify_bits(dtype, u64::from(bits)),
                "{dtype} {bits:#x}"
            );
        }
    }
}

#[test]
fn f16_matches_formula() {
    for bits in 0..=u16::MAX {
        let (s, e, m) = (bits >> 15, (bits >> 10) & 0x1F, bits & 0x3FF);
        if e == 0x1F {
            continue;
        }
        let mag = if e == 0 {
            f64::from(m) * 2f64.powi(-24)
        } else {
            (1.0 + f64::from(m) / 1024.0) * 2f64.powi(i32::from(e) - 15)
        };
        let want = if s == 1 { -mag } else { mag };
        assert_eq!(
            decode_one(Dtype::F16, &bits.to_le_bytes())[0],
            want,
            "{bits:#x}"
        );
    }
}

#[test]
fn bf16_matches_formula() {
    // One call over all patterns, so the vector decode path (8 at a time) is exercised too.
    let all: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
    let decoded = decode_one(Dtype::Bf16, &all);
    for bits in 0..=u16::MAX {
        let (s, e, m) = (bits >> 15, (bits >> 7) & 0xFF, bits & 0x7F);
        if e == 0xFF {
            continue;
        }
        let mag = if e == 0 {
            f64::from(m) * 2f64.powi(-133)
        } else {
            (1.0 + f64::from(m) / 128.0) * 2f64.powi(i32::from(e) - 127)
        };
        let want = if s == 1 { -mag } else { mag };
        assert_eq!(decoded[bits as usize], want, "{bits:#x}");
        let single = decode_one(Dtype::Bf16, &bits.to_le_bytes())[0];
        assert_eq!(single, want, "{bits:#x}");
    }
    // The NaN and Inf patterns keep their class on the vector path too.
    for bits in 0..=u16::MAX {
        let class = classify_bits(Dtype::Bf16, u64::from(bits));
        assert_eq!(classify(decoded[bits as usize]), class, "{bits:#x}");
    }
}

#[test]
fn every_8_bit_pattern_decodes_to_its_class() {
    for dtype in [
        Dtype::F8E4M3,
        Dtype::F8E5M2,
        Dtype::F8E8M0,
        Dtype::F8E4M3Fnuz,
        Dtype::F8E5M2Fnuz,
        Dtype::U8,
        Dtype::I8,
        Dtype::Bool,
    ] {
        for b in 0..=255u8 {
            let v = decode_one(dtype, &[b])[0];
            assert_eq!(
                classify(v),
                classify_bits(dtype, u64::from(b)),
                "{dtype} {b:#x}"
            );
        }
    }
}

#[test]
fn fnuz_has_no_negative_zero_and_one_nan() {
    for dtype in [Dtype::F8E4M3Fnuz, Dtype::F8E5M2Fnuz] {
        let vals: Vec<f64> = (0..=255u8).map(|b| decode_one(dtype, &[b])[0]).collect();
        assert_eq!(vals.iter().filter(|v| v.is_nan()).count(), 1);
        assert!(vals[0x80].is_nan());
        assert_eq!(vals.iter().filter(|&&v| v == 0.0).count(), 1);
        assert!(vals.iter().all(|v| !v.is_infinite()));
    }
}

#[test]
fn f4_decodes_low_nibble_first() {
    // 0x72: low nibble 2 (1.0) first, high nibble 7 (6.0) second.
    assert_eq!(
        decode_one(Dtype::F4, &[0x72, 0xF8]),
        vec![1.0, 6.0, -0.0, -6.0]
    );
    for b in 0..=255u8 {
        let v = decode_one(Dtype::F4, &[b]);
        assert_eq!(classify(v[0]), classify_bits(Dtype::F4, u64::from(b & 0xF)));
        assert_eq!(classify(v[1]), classify_bits(Dtype::F4, u64::from(b >> 4)));
    }
}

#[test]
fn f6_decodes_least_significant_code_first() {
    // Codes 1, 2, 3, 4 packed LSB-first: g = 1 | 2<<6 | 3<<12 | 4<<18.
    let g: u32 = 1 | 2 << 6 | 3 << 12 | 4 << 18;
    let bytes = [g as u8, (g >> 8) as u8, (g >> 16) as u8];
    let e2m3 = decode_one(Dtype::F6E2M3, &bytes);
    // E2M3 subnormals: m × 2^-3.
    assert_eq!(e2m3, vec![0.125, 0.25, 0.375, 0.5]);
    let e3m2 = decode_one(Dtype::F6E3M2, &bytes);
    // E3M2 subnormals: m × 2^-4.
    assert_eq!(e3m2, vec![0.0625, 0.125, 0.1875, 0.25]);
    assert_eq!(decode_one(Dtype::F6E2M3, &[0xFF; 3]), vec![-7.5; 4]);
    assert_eq!(decode_one(Dtype::F6E3M2, &[0xFF; 3]), vec![-28.0; 4]);
}

#[test]
fn integers_and_bool_decode_exactly() {
    assert_eq!(
        decode_one(Dtype::I16, &(-300i16).to_le_bytes()),
        vec![-300.0]
    );
    assert_eq!(
        decode_one(Dtype::U32, &u32::MAX.to_le_bytes()),
        vec![4294967295.0]
    );
    assert_eq!(
        decode_one(Dtype::I64, &i64::MIN.to_le_bytes()),
        vec![-(2f64.powi(63))]
    );
    assert_eq!(decode_one(Dtype::I8, &[0xFF]), vec![-1.0]);
    assert_eq!(decode_one(Dtype::Bool, &[0, 1, 7]), vec![0.0, 1.0, 1.0]);
}

#[test]
fn c64_decodes_real_then_imaginary() {
    let mut bytes = 1.5f32.to_le_bytes().to_vec();
    bytes.extend((-2.0f32).to_le_bytes());
    assert_eq!(decode_one(Dtype::C64, &bytes), vec![1.5, -2.0]);
    let nan_im = u64::from(1.0f32.to_bits()) | u64::from(f32::NAN.to_bits()) << 32;
    assert_eq!(classify_bits(Dtype::C64, nan_im), ElementClass::Nan);
    let inf_re = u64::from(f32::NEG_INFINITY.to_bits());
    assert_eq!(classify_bits(Dtype::C64, inf_re), ElementClass::NegInf);
    assert_eq!(classify_bits(Dtype::C64, 1u64 << 63), ElementClass::Zero);
}

#[test]
fn partial_units_are_rejected() {
    let mut out = Vec::new();
    assert!(decode_f64(Dtype::F32, &[0; 6], &mut out).is_err());
    assert!(decode_f64(Dtype::F6E2M3, &[0; 4], &mut out).is_err());
    assert!(decode_f64(Dtype::F4, &[0; 3], &mut out).is_ok());
    assert_eq!(out.len(), 6);
}

#[test]
fn f32_and_f64_round_trip() {
    for x in [0.0f32, -0.0, 1.0e-45, 3.4e38, -7.25] {
        assert_eq!(decode_one(Dtype::F32, &x.to_le_bytes())[0], f64::from(x));
    }
    for x in [0.0f64, 5e-324, -1.7e308, 0.1] {
        assert_eq!(decode_one(Dtype::F64, &x.to_le_bytes())[0], x);
    }
}
