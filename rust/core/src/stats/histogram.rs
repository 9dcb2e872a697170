//! The kernel for byte-sized and packed 4-bit dtypes (BOOL, U8, I8, every FP8, F4): a histogram
//! of the chunk's byte values (one increment per byte, spread over 4 sub-histograms so equal
//! neighbouring bytes do not serialise on one counter), then every statistic from the 256 bins.
//!
//! The counts are exact, so min, max, class counts, zero counts, integer sums and BOOL true counts
//! are exact. Mean and M2 come from a corrected two-pass over the bins: each `count × value` is
//! exact in f64 (counts < 2^49, values of at most 8 significant bits), so they are accurate to a
//! few ulps. The result depends only on the chunk's bytes.

use super::moments::Moments;
use super::partial::{IntAcc, Partial};
use super::xxh3::Leaf;
use crate::elements::{byte_table, minifloat::E2M1FN_TABLE};
use crate::Dtype;

/// Bytes counted into the u32 sub-histograms before they are flushed to u64 (far below 2^32).
const FLUSH_BYTES: usize = 1 << 20;
/// Bytes fed to the hasher at a time, so they are still in cache for the histogram.
const HASH_BLOCK: usize = 64 << 10;

/// True for the dtypes this kernel handles.
pub(crate) fn applies(dtype: Dtype) -> bool {
    matches!(
        dtype,
        Dtype::Bool
            | Dtype::U8
            | Dtype::I8
            | Dtype::F8E4M3
            | Dtype::F8E5M2
            | Dtype::F8E8M0
            | Dtype::F8E4M3Fnuz
            | Dtype::F8E5M2Fnuz
            | Dtype::F4
    )
}

/// The partial of a chunk whose byte values were counted into `counts` ([`count_bytes`]).
pub(crate) fn partial_of_counts(dtype: Dtype, counts: &[u64; 256]) -> Partial {
    // Value histogram: (value, count) per distinct code, in code order.
    let mut bins: Vec<(f64, u64)> = Vec::with_capacity(256);
    match dtype {
        Dtype::F4 => {
            let mut codes = [0u64; 16];
            for (b, &c) in counts.iter().enumerate() {
                codes[b & 0xF] += c;
                codes[b >> 4] += c;
            }
            bins.extend(codes.iter().enumerate().map(|(i, &c)| (E2M1FN_TABLE[i], c)));
        }
        _ => bins.extend(
            counts
                .iter()
                .enumerate()
                .map(|(b, &c)| (byte_value(dtype, b as u8), c)),
        ),
    }
    let mut p = Partial::EMPTY;
    if dtype.is_int() {
        p.ints = int_acc(dtype, counts);
    }
    if dtype == Dtype::Bool {
        p.true_count = counts[1..].iter().sum();
    }
    let mut finite = Vec::with_capacity(bins.len());
    for &(v, c) in bins.iter().filter(|b| b.1 > 0) {
        if v.is_nan() {
            p.nan += c;
        } else if v == f64::INFINITY {
            p.posinf += c;
        } else if v == f64::NEG_INFINITY {
            p.neginf += c;
        } else {
            finite.push((v, c));
        }
    }
    p.moments = moments(&finite);
    p
}

/// The value of one byte of a byte-sized dtype.
fn byte_value(dtype: Dtype, b: u8) -> f64 {
    match dtype {
        Dtype::Bool => f64::from(u8::from(b != 0)),
        Dtype::U8 => f64::from(b),
        Dtype::I8 => f64::from(b as i8),
        _ => byte_table(dtype).map_or(f64::NAN, |t| t[b as usize]),
    }
}

/// Adds the exact counts of each byte value of `bytes` to `total`. `bytes` starts at offset
/// `base` of the chunk whose leaf digest `hasher` is (advanced as the counting goes).
pub(crate) fn count_bytes(
    bytes: &[u8],
    mut hasher: Option<&mut Leaf<'_>>,
    base: usize,
    total: &mut [u64; 256],
) {
    let mut sub = [[0u32; 256]; 4];
    let mut end = base;
    for part in bytes.chunks(FLUSH_BYTES) {
        for block in part.chunks(HASH_BLOCK) {
            end += block.len();
            if let Some(h) = hasher.as_deref_mut() {
                h.advance_to(end);
            }
            let mut quads = block.chunks_exact(4);
            for q in &mut quads {
                sub[0][q[0] as usize] += 1;
                sub[1][q[1] as usize] += 1;
                sub[2][q[2] as usize] += 1;
                sub[3][q[3] as usize] += 1;
            }
            for &b in quads.remainder() {
                sub[0][b as usize] += 1;
            }
        }
        for s in sub.iter_mut() {
            for (t, c) in total.iter_mut().zip(s.iter_mut()) {
                *t += u64::from(*c);
                *c = 0;
            }
        }
    }
}

/// Exact integer sum, min and max from byte counts.
fn int_acc(dtype: Dtype, counts: &[u64; 256]) -> IntAcc {
    let mut acc = IntAcc::EMPTY;
    for (b, &c) in counts.iter().enumerate().filter(|x| *x.1 > 0) {
        let v = if dtype == Dtype::I8 {
            i128::from(b as u8 as i8)
        } else {
            b as i128
        };
        acc.sum += v * i128::from(c);
        acc.min = acc.min.min(v);
        acc.max = acc.max.max(v);
    }
    acc
}

/// Neumaier's compensated sum.
fn neumaier(terms: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut comp) = (0.0f64, 0.0f64);
    for t in terms {
        let s = sum + t;
        comp += if sum.abs() >= t.abs() {
            (sum - s) + t
        } else {
            (t - s) + sum
        };
        sum = s;
    }
    sum + comp
}

/// Moments of a weighted set of finite values, by the corrected two-pass over the bins.
fn moments(bins: &[(f64, u64)]) -> Moments {
    let n: u64 = bins.iter().map(|b| b.1).sum();
    if n == 0 {
        return Moments::EMPTY;
    }
    let nf = n as f64;
    // Each v·c is exact; a compensated sum of them is then accurate to about one ulp even when
    // positive and negative bins cancel (weights centred on 0).
    let mean0 = neumaier(bins.iter().map(|&(v, c)| v * c as f64)) / nf;
    let (mut sd, mut sdd) = (0.0, 0.0);
    for &(v, c) in bins {
        let d = v - mean0;
        sd += d * c as f64;
        sdd += d * d * c as f64;
    }
    Moments {
        n,
        // mean0 is already accurate to about an ulp; adding sd/n would only add rounding noise.
        mean: mean0,
        m2: (sdd - sd * sd / nf).max(0.0),
        m2_exp: 0,
        min: bins.iter().map(|b| b.0).fold(f64::INFINITY, f64::min),
        max: bins.iter().map(|b| b.0).fold(f64::NEG_INFINITY, f64::max),
        zeros: bins.iter().filter(|b| b.0 == 0.0).map(|b| b.1).sum(),
    }
}
