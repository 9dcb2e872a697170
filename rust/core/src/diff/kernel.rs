//! The per-chunk comparison kernel: walks a chunk in blocks of [`BLOCK_ELEMS`] elements, each into
//! its own lane accumulators (see `lanes`), straight from the bytes for same-dtype BF16, F16 and
//! F32 pairs (`fused`), through cache-resident `f64` scratch buffers for every other pair; the
//! block results add up in block order into the chunk's [`Acc`].

use super::accum::Acc;
use super::fused::{finish_block, fused_block, handles};
use super::lanes::Lanes;
use super::screen::ScreenState;
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
    let mut screen = ScreenState::new(da, tol);
    let mut s = start;
    while s < end {
        let e = end.min(s.saturating_add(BLOCK_ELEMS));
        let (ba, bb) = (
            &a[byte_at(da, s)..byte_at(da, e)],
            &b[byte_at(db, s)..byte_at(db, e)],
        );
        let beat = acc.max_abs;
        let fast = if fused {
            fused_block(da, ba, bb, s * parts, tol, beat, &mut screen)
        } else {
            None
        };
        let mut blk = fast.unwrap_or_else(|| {
            decode_block(da, ba, &mut scratch.a);
            decode_block(db, bb, &mut scratch.b);
            // The fused kernel's dtypes keep its roundings here too (the tests' reference).
            if handles(da, db) {
                block::<true>(&scratch.a, &scratch.b, s * parts, tol, beat)
            } else {
                block::<false>(&scratch.a, &scratch.b, s * parts, tol, beat)
            }
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
/// (same dtype): [`compare_chunk`] of the bytes with themselves, so bit-for-bit what the
/// comparison of the two sides gives (every difference 0, the norms and the dot product the same
/// sums in the same order); the second side is the same memory, so it costs no second read.
pub(crate) fn equal_chunk(
    dtype: Dtype,
    a: &[u8],
    start: u64,
    end: u64,
    scratch: &mut Scratch,
) -> Acc {
    let tol = super::tolerance::default_tolerance(dtype);
    compare_chunk(dtype, a, dtype, a, start, end, tol, scratch)
}

/// The accumulator of one block of decoded values whose first place is `base`; the first place
/// of its largest difference is located when that beats `beat` (see `fused::finish_block`).
/// `FUSED` as in [`Lanes::step`].
#[inline]
fn block<const FUSED: bool>(a: &[f64], b: &[f64], base: u64, tol: (f64, f64), beat: f64) -> Acc {
    let mut lanes = Lanes::NEW;
    for (j, (&x, &y)) in a.iter().zip(b).enumerate() {
        lanes.step::<FUSED>(j, x, y, tol);
    }
    finish_block(&lanes, a.len().min(b.len()), base, beat, |j| (a[j], b[j]))
}

/// Replaces `out` with the values of `bytes` (whole units of `dtype`), reusing its allocation.
fn decode_block(dtype: Dtype, bytes: &[u8], out: &mut Vec<f64>) {
    out.clear();
    out.resize(values_in(dtype, bytes.len()), 0.0);
    decode_into(dtype, bytes, out);
}
