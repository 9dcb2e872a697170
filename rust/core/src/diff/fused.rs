//! The fused kernel for same-dtype BF16, F16 and F32 pairs: decodes each element straight from
//! the raw bytes and accumulates it at once, with no intermediate `f64` buffers; on AVX2 + F16C
//! CPUs the bulk of each block runs four elements per step (`fused_avx2`), the tail here.
//!
//! Bit-for-bit equal to the generic kernel (`kernel::compare_chunk` via `decode_into` and
//! `block`): each decode is exact (so it yields the same `f64`), and every accumulator sees the
//! same operations on the same values in the same order, block by block. The sums stay
//! sequential (they are the loop's dependency chains), so the gain comes from dropping the
//! buffer round trip and doing the order-free work (decode, masks, products, maxima, counts)
//! four lanes at a time, not from reordering any sum.

use super::accum::Acc;
use crate::elements::le;
use crate::Dtype;
use half::f16;

/// True when [`fused_block`] handles pairs of `da` and `db`.
pub(crate) fn handles(da: Dtype, db: Dtype) -> bool {
    da == db && matches!(da, Dtype::Bf16 | Dtype::F16 | Dtype::F32)
}

/// The accumulator of one block: `a` and `b` are whole elements of `dtype` (one of those
/// [`handles`] accepts) and `base` is the flat index of the first. Another dtype gives `None`.
pub(crate) fn fused_block(
    dtype: Dtype,
    a: &[u8],
    b: &[u8],
    base: u64,
    tol: (f64, f64),
) -> Option<Acc> {
    let w = match dtype {
        Dtype::Bf16 | Dtype::F16 => 2,
        Dtype::F32 => 4,
        _ => return None,
    };
    let n = (a.len() / w).min(b.len() / w);
    let (a, b) = (&a[..n * w], &b[..n * w]);
    let mut acc = Acc::EMPTY;
    let done = vector_part(dtype, a, b, n, tol, &mut acc);
    let (a, b) = (&a[done * w..], &b[done * w..]);
    match dtype {
        // bf16 is the top half of an f32: the shift is exact, including NaN and Inf.
        Dtype::Bf16 => run::<2>(a, b, done, tol, &mut acc, |c| {
            f64::from(f32::from_bits(u32::from(u16::from_le_bytes(c)) << 16))
        }),
        Dtype::F16 => run::<2>(a, b, done, tol, &mut acc, |c| {
            f16::from_bits(u16::from_le_bytes(c)).to_f64()
        }),
        _ => run::<4>(a, b, done, tol, &mut acc, |c| {
            f64::from(f32::from_le_bytes(c))
        }),
    }
    // Indices so far are relative to the block; 0 stays 0 when nothing was located.
    if acc.max_abs > 0.0 {
        acc.max_index += base;
    }
    Some(acc)
}

/// Runs the AVX2 loop over a prefix of the `n` elements when the CPU allows, returning how many
/// elements it consumed (0 otherwise).
#[allow(unused_variables)]
fn vector_part(
    dtype: Dtype,
    a: &[u8],
    b: &[u8],
    n: usize,
    tol: (f64, f64),
    acc: &mut Acc,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if crate::elements::cpu::has_avx2_f16c() {
        use super::fused_avx2::{run, BF16, F16, F32};
        // SAFETY: the CPU supports AVX2 and F16C (checked just above) and `a`, `b` hold `n`
        // whole elements of `dtype` each (cut to that length by the caller).
        return unsafe {
            match dtype {
                Dtype::Bf16 => run::<BF16>(a, b, n, tol, acc),
                Dtype::F16 => run::<F16>(a, b, n, tol, acc),
                _ => run::<F32>(a, b, n, tol, acc),
            }
        };
    }
    0
}

/// The generic kernel's `block` loop with the decode of each element inlined, continuing `acc`
/// from place `first` (relative to the block). The accumulators are locals (so they stay in
/// registers); they see the same operations in the same order.
#[inline(always)]
fn run<const W: usize>(
    a: &[u8],
    b: &[u8],
    first: usize,
    (rtol, atol): (f64, f64),
    acc: &mut Acc,
    decode: impl Fn([u8; W]) -> f64,
) {
    let Acc {
        mut finite,
        mut max_abs,
        mut max_index,
        mut sum_abs,
        mut sum_sq_diff,
        mut sum_sq_a,
        mut sum_sq_b,
        mut dot,
        mut mismatched,
        mut nonfinite_mismatched,
    } = *acc;
    let pairs = a.chunks_exact(W).zip(b.chunks_exact(W));
    for (i, (ca, cb)) in pairs.enumerate() {
        let (x, y) = (decode(le(ca)), decode(le(cb)));
        if x.is_finite() && y.is_finite() {
            let d = (x - y).abs();
            if d > max_abs {
                max_abs = d;
                max_index = (first + i) as u64;
            }
            finite += 1;
            sum_abs += d;
            sum_sq_diff += d * d;
            sum_sq_a += x * x;
            sum_sq_b += y * y;
            dot += x * y;
            // As in the generic kernel: the bound is never NaN, so `>` is "not within tolerance".
            mismatched += u64::from(d > atol + rtol * y.abs());
        } else {
            // NaN only equals NaN; an infinity only the same infinity.
            let same = (x.is_nan() && y.is_nan()) || x == y;
            mismatched += u64::from(!same);
            nonfinite_mismatched += u64::from(!same);
        }
    }
    *acc = Acc {
        finite,
        max_abs,
        max_index,
        sum_abs,
        sum_sq_diff,
        sum_sq_a,
        sum_sq_b,
        dot,
        mismatched,
        nonfinite_mismatched,
    };
}
