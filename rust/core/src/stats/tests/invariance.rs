//! Results do not depend on threads, chunking or kernel path; class counts follow the raw bits.

use super::*;
use crate::elements::{classify_bits, decode_f64, ElementClass};

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
            if super::shifted::applies(dtype) || super::histogram::applies(dtype) {
                // Another kernel (shifted single pass, histogram): equal to rounding.
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
fn portable_avx2_and_avx512_paths_agree_bitwise() {
    use crate::elements::cpu::{with_level, Level};
    // Random bytes with NaN/Inf-free and special-laden variants, many blocks and chunks; odd
    // lengths leave 16-element remainders for the AVX2 loop after the AVX-512 one, and tails.
    let mut next = rng(23);
    let noisy: Vec<u8> = (0..24 * 3000).map(|_| next() as u8).collect();
    let tame: Vec<u8> = noisy
        .iter()
        .enumerate()
        .map(|(i, b)| if i % 2 == 1 { b & 0x3F } else { *b })
        .collect();
    for data in [&noisy[..], &tame[..], &tame[..24 * 2999]] {
        for dtype in Dtype::ALL {
            let run = |level| with_level(level, || one(dtype, data, &opts(2, 24 * 250)));
            let [portable, avx2, avx512] = Level::ALL.map(run);
            assert_eq!(format!("{avx512:?}"), format!("{portable:?}"), "{dtype}");
            assert_eq!(format!("{avx2:?}"), format!("{portable:?}"), "{dtype}");
        }
    }
}

#[test]
fn a_chunk_fed_in_pieces_gives_the_bits_of_the_whole_chunk() {
    use crate::stats::chunk::{chunk_partial, ChunkStats, PIECE_QUANTUM};
    let mut next = rng(29);
    // Random bytes with a few finite patterns forced, more than two pieces and a ragged end.
    let bytes: Vec<u8> = (0..2 * PIECE_QUANTUM + 24 * 1001)
        .map(|i| if i % 7 == 0 { 0x3C } else { next() as u8 })
        .collect();
    for dtype in Dtype::ALL {
        let data = &bytes[..bytes.len() / 24 * 24];
        let mut buf = Vec::new();
        let whole = chunk_partial(dtype, data, None, &mut buf);
        let mut pieces = ChunkStats::new(dtype);
        for piece in data.chunks(PIECE_QUANTUM) {
            pieces.feed(piece, None, &mut buf);
        }
        assert_eq!(
            format!("{:?}", pieces.finish()),
            format!("{whole:?}"),
            "{dtype}"
        );
    }
}
