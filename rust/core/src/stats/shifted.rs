//! The fast kernel for BF16, F16 and F32 blocks: one pass straight from the bytes, no `f64`
//! buffer. Values are widened to f32 (exact); min/max and the zero count stay in f32 lanes (BF16:
//! in 16-bit integer keys ordered like the floats); Σd, Σd² with d = x − K are summed in f64
//! lanes around a shift K close to the block's mean (the previous block's mean, or the chunk's
//! first value).
//!
//! Accuracy: M2 = Σd² − (Σd)²/n loses about log2(Σd² / M2) bits to cancellation. When that
//! exceeds 10 bits (K far from the mean, e.g. an outlier first value), the block is redone with K
//! set to the mean just found, which makes the loss negligible. Non-finite elements make the sums
//! non-finite; the caller then redoes the block on the classifying path.
//!
//! Determinism: sum lane `l` of 16 sees elements `l, l+16, ...` and min/max/zero lane `m` of 8
//! (BF16: of 16) sees `m, m+8, ...` (`m, m+16, ...`), in order, on the portable, AVX2 and
//! AVX-512 paths, with the same operations, so all give the same bits. Σd² takes each d² with
//! one fused multiply-add (`mul_add`, the vector FMA instructions): fewer instructions in the
//! vector loops, one rounding fewer, and the same bits on every path. (BF16 min/max keys and
//! zero counts do not depend on order, so the AVX-512 loop may gather them in 32 lanes.)

use super::moments::Moments;
use super::shifted_acc::{bf16_of_key, portable, Acc, LANES};
use crate::Dtype;

pub(crate) use super::shifted_acc::load;

/// True for the dtypes this kernel handles.
pub(crate) fn applies(dtype: Dtype) -> bool {
    matches!(dtype, Dtype::Bf16 | Dtype::F16 | Dtype::F32)
}

/// Moments of a block of `n` elements, or `None` when it holds a non-finite element.
pub(crate) fn block(dtype: Dtype, bytes: &[u8], n: usize, k: f64) -> Option<Moments> {
    if n == 0 {
        return Some(Moments::EMPTY);
    }
    let first = run(dtype, bytes, n, k)?;
    if first.moments.n > 0 && first.m2_raw_ratio() <= 1024.0 {
        return Some(first.moments);
    }
    Some(run(dtype, bytes, n, first.moments.mean)?.moments)
}

struct Run {
    moments: Moments,
    sdd: f64,
}

impl Run {
    /// Σd² / M2: how much of Σd² cancelled.
    fn m2_raw_ratio(&self) -> f64 {
        if self.sdd == 0.0 {
            1.0
        } else {
            self.sdd / self.moments.m2
        }
    }
}

fn run(dtype: Dtype, bytes: &[u8], n: usize, k: f64) -> Option<Run> {
    let mut acc = Acc::NEW;
    let body = n / LANES * LANES;
    let done = vector_body(dtype, bytes, body, k, &mut acc);
    portable(dtype, bytes, done..n, k, &mut acc);
    let sum = |l: [f64; LANES]| {
        let q = |i: usize| (l[i] + l[i + 1]) + (l[i + 2] + l[i + 3]);
        (q(0) + q(4)) + (q(8) + q(12))
    };
    let (sd, sdd) = (sum(acc.s1), sum(acc.s2));
    if !(sd.is_finite() && sdd.is_finite()) {
        return None;
    }
    let nf = n as f64;
    let (min, max, zeros) = if dtype == Dtype::Bf16 {
        let kmin = acc.kmin.into_iter().fold(i16::MAX, i16::min);
        let kmax = acc.kmax.into_iter().fold(i16::MIN, i16::max);
        let zeros: i64 = acc.kzeros.iter().map(|&z| i64::from(z)).sum();
        (bf16_of_key(kmin), bf16_of_key(kmax), zeros as u64)
    } else {
        let zeros: f32 = acc.zeros.iter().sum();
        (
            f64::from(acc.lo.into_iter().fold(f32::INFINITY, f32::min)),
            f64::from(acc.hi.into_iter().fold(f32::NEG_INFINITY, f32::max)),
            zeros as u64,
        )
    };
    Some(Run {
        moments: Moments {
            n: n as u64,
            mean: k + sd / nf,
            m2: (sdd - sd * sd / nf).max(0.0),
            m2_exp: 0,
            min,
            max,
            zeros,
        },
        sdd,
    })
}

/// Runs the first `n` elements (a multiple of 16) through the widest vector loops the CPU has:
/// AVX-512 for as many as it takes, AVX2 for the rest; returns how many were done. Each loop
/// returns a multiple of 16, so the next one starts on lane 0.
fn vector_body(dtype: Dtype, bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let wide = super::shifted_avx512::body(dtype, bytes, n, k, acc);
        let rest = dtype
            .size()
            .and_then(|w| bytes.get(wide * w as usize..))
            .unwrap_or_default();
        wide + super::shifted_avx2::body(dtype, rest, n - wide, k, acc)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (dtype, bytes, n, k, acc);
        0
    }
}

/// The body loop through whatever path `run` uses.
#[cfg(test)]
pub(super) fn run_dispatched(dtype: Dtype, bytes: &[u8], n: usize, k: f64) -> Acc {
    let mut acc = Acc::NEW;
    let body = n / LANES * LANES;
    let done = vector_body(dtype, bytes, body, k, &mut acc);
    portable(dtype, bytes, done..body, k, &mut acc);
    acc
}
