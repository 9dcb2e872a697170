//! The per-chunk comparison kernel: decodes both sides block by block into cache-resident `f64`
//! scratch buffers and accumulates an [`Acc`].

use super::accum::Acc;
use super::fused::{fused_block, handles};
use crate::elements::{decode_into, values_in};
use crate::Dtype;

/// Elements per block (a multiple of 4, so blocks of F4 and F6 data are whole bytes).
pub(crate) const BLOCK_ELEMS: u64 = 4096;

/// Reused per-worker decode buffers.
#[derive(Default)]
pub(crate) struct Scratch {
    a: Vec<f64>,
    b: Vec<f64>,
}

/// Byte offset of element `elem` of `dtype`. Callers pass element indices that are multiples of
/// 4 (or the element count), which always land on byte boundaries; the tensor's byte length has
/// been checked against `dtype.byte_len(numel)`, so this cannot overflow.
pub(crate) fn byte_at(dtype: Dtype, elem: u64) -> usize {
    (elem.saturating_mul(dtype.bits()) / 8) as usize
}

/// Compares elements `[start, end)` of `a` (dtype `da`) and `b` (dtype `db`). Same-dtype BF16,
/// F16 and F32 pairs take the fused kernel (see `fused`), which gives the same bits.
#[allow(clippy::too_many_arguments)]
pub(crate) fn compare_chunk(
    da: Dtype,
    a: &[u8],
    db: Dtype,
    b: &[u8],
    start: u64,
    end: u64,
    tol: (f64, f64),
    scratch: &mut Scratch,
) -> Acc {
    let fused = handles(da, db);
    compare_chunk_via(da, a, db, b, (start, end), tol, scratch, fused)
}

/// [`compare_chunk`] always through the decode buffers (the reference the fused kernel is
/// tested against).
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn compare_chunk_generic(
    da: Dtype,
    a: &[u8],
    db: Dtype,
    b: &[u8],
    start: u64,
    end: u64,
    tol: (f64, f64),
    scratch: &mut Scratch,
) -> Acc {
    compare_chunk_via(da, a, db, b, (start, end), tol, scratch, false)
}

#[allow(clippy::too_many_arguments)]
fn compare_chunk_via(
    da: Dtype,
    a: &[u8],
    db: Dtype,
    b: &[u8],
    (start, end): (u64, u64),
    tol: (f64, f64),
    scratch: &mut Scratch,
    fused: bool,
) -> Acc {
    // C64 decodes to two values per element: compare parts, index parts.
    let parts = if da == Dtype::C64 { 2 } else { 1 };
    // 64-bit integers above 2^53 round in f64: with exact tolerance, count mismatches on the
    // raw elements instead, so two distinct ids never compare equal.
    let exact64 = da == db && matches!(da, Dtype::I64 | Dtype::U64) && tol == (0.0, 0.0);
    let mut acc = Acc::EMPTY;
    let mut s = start;
    while s < end {
        let e = end.min(s.saturating_add(BLOCK_ELEMS));
        let (ba, bb) = (
            &a[byte_at(da, s)..byte_at(da, e)],
            &b[byte_at(db, s)..byte_at(db, e)],
        );
        let fast = if fused {
            fused_block(da, ba, bb, s * parts, tol)
        } else {
            None
        };
        let mut blk = fast.unwrap_or_else(|| {
            decode_block(da, ba, &mut scratch.a);
            decode_block(db, bb, &mut scratch.b);
            block(&scratch.a, &scratch.b, s * parts, tol)
        });
        if exact64 {
            blk.mismatched = ba
                .chunks_exact(8)
                .zip(bb.chunks_exact(8))
                .filter(|(x, y)| x != y)
                .count() as u64;
        }
        acc.merge(&blk);
        s = e;
    }
    acc
}

/// The accumulator of elements `[start, end)` of a chunk whose bytes are identical on both sides
/// (same dtype): decodes one side only. Bit-for-bit equal to [`compare_chunk`] on the same
/// chunk, since every difference is 0 and the sums see the same values in the same order.
pub(crate) fn equal_chunk(
    dtype: Dtype,
    a: &[u8],
    start: u64,
    end: u64,
    scratch: &mut Scratch,
) -> Acc {
    let mut acc = Acc::EMPTY;
    let mut s = start;
    while s < end {
        let e = end.min(s.saturating_add(BLOCK_ELEMS));
        decode_block(
            dtype,
            &a[byte_at(dtype, s)..byte_at(dtype, e)],
            &mut scratch.a,
        );
        let mut blk = Acc::EMPTY;
        for &x in scratch.a.iter().filter(|x| x.is_finite()) {
            let sq = x * x;
            blk.finite += 1;
            blk.sum_sq_a += sq;
            blk.sum_sq_b += sq;
            blk.dot += sq;
        }
        acc.merge(&blk);
        s = e;
    }
    acc
}

/// The accumulator of one block of decoded values whose first place is `base`.
#[inline]
fn block(a: &[f64], b: &[f64], base: u64, (rtol, atol): (f64, f64)) -> Acc {
    let mut blk = Acc::EMPTY;
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        if x.is_finite() && y.is_finite() {
            let d = (x - y).abs();
            if d > blk.max_abs {
                blk.max_abs = d;
                blk.max_index = base + i as u64;
            }
            blk.finite += 1;
            blk.sum_abs += d;
            blk.sum_sq_diff += d * d;
            blk.sum_sq_a += x * x;
            blk.sum_sq_b += y * y;
            blk.dot += x * y;
            // d and y are finite and the tolerances finite and >= 0 (validated), so the bound is
            // never NaN and `>` is exactly "not within tolerance".
            if d > atol + rtol * y.abs() {
                blk.mismatched += 1;
            }
        } else {
            // NaN only equals NaN; an infinity only the same infinity.
            let same = (x.is_nan() && y.is_nan()) || x == y;
            if !same {
                blk.mismatched += 1;
                blk.nonfinite_mismatched += 1;
            }
        }
    }
    blk
}

/// Replaces `out` with the values of `bytes` (whole units of `dtype`), reusing its allocation.
fn decode_block(dtype: Dtype, bytes: &[u8], out: &mut Vec<f64>) {
    out.clear();
    out.resize(values_in(dtype, bytes.len()), 0.0);
    decode_into(dtype, bytes, out);
}
