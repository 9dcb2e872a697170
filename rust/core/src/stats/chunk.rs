//! The per-chunk kernel: walks a chunk in fixed blocks of [`BLOCK_ELEMS`] elements, decodes each
//! block into a reused `f64` scratch buffer (cache-resident), and accumulates its partial.
//! BF16, F16 and F32 blocks go through the single-pass [`shifted`] kernel instead, and fall back
//! to the buffer path only for blocks holding NaN or Inf; byte-sized dtypes and F4 take the
//! whole chunk through the exact [`histogram`] kernel.
//!
//! Block boundaries are fixed relative to the chunk start, and chunks are fixed by element index,
//! so a chunk's partial depends only on its bytes.

use super::partial::{IntAcc, Partial};
use super::xxh3::Leaf;
use super::{finite_block, histogram, shifted};
use crate::elements::{decode_into, le, unit_bytes, unit_elems, values_in};
use crate::Dtype;

/// Elements per block: 32 KiB of `f64` scratch, which stays in L1/L2 for both kernel passes.
pub(crate) const BLOCK_ELEMS: usize = 4096;

/// The partial of one chunk, feeding its bytes to `hasher` (the leaf digest of `bytes`) block by
/// block on the way, each right after the kernel read it.
pub(crate) fn chunk_partial(
    dtype: Dtype,
    bytes: &[u8],
    hasher: Option<&mut Leaf<'_>>,
    buf: &mut Vec<f64>,
) -> Partial {
    let mut chunk = ChunkStats::new(dtype);
    chunk.feed(bytes, hasher, buf);
    chunk.finish()
}

/// Piece sizes [`ChunkStats::feed`] accepts (but for a chunk's last piece) are multiples of
/// this: a whole number of blocks of every dtype (8-byte elements, 3-byte F6 units; 768 KiB).
pub(crate) const PIECE_QUANTUM: usize = 3 * BLOCK_ELEMS * 8 * 8;

/// A chunk's partial built from consecutive pieces of it, each but the last a multiple of
/// [`PIECE_QUANTUM`] bytes: the same blocks see the same bytes and the same carried shift as
/// when the whole chunk is fed at once ([`chunk_partial`]), so any such split gives its bits.
pub(crate) struct ChunkStats {
    dtype: Dtype,
    partial: Partial,
    /// The fast kernel's shift: the chunk's first value, then each block's mean.
    shift: Option<f64>,
    /// Byte-value counts, for the histogram dtypes.
    counts: [u64; 256],
    /// Bytes fed so far.
    fed: usize,
}

impl ChunkStats {
    /// Nothing fed yet.
    pub fn new(dtype: Dtype) -> ChunkStats {
        ChunkStats {
            dtype,
            partial: Partial::EMPTY,
            shift: None,
            counts: [0; 256],
            fed: 0,
        }
    }

    /// Adds the next piece of the chunk; `hasher`, when given, is the leaf digest of the whole
    /// chunk and is advanced to the end of each block once the kernel has read it.
    pub fn feed(&mut self, bytes: &[u8], mut hasher: Option<&mut Leaf<'_>>, buf: &mut Vec<f64>) {
        let (dtype, base) = (self.dtype, self.fed);
        self.fed += bytes.len();
        if histogram::applies(dtype) {
            histogram::count_bytes(bytes, hasher, base, &mut self.counts);
            return;
        }
        let unit = unit_bytes(dtype);
        let block_bytes = (BLOCK_ELEMS / unit_elems(dtype)).max(1) * unit;
        let fast = shifted::applies(dtype);
        if fast && self.shift.is_none() && !bytes.is_empty() {
            let first = f64::from(shifted::load(dtype, bytes, 0));
            self.shift = Some(if first.is_finite() { first } else { 0.0 });
        }
        let mut blocks = bytes.chunks(block_bytes).peekable();
        let mut end = base;
        while let Some(block) = blocks.next() {
            end += block.len();
            // The fast kernel prefetches inside its loop.
            if let (false, Some(next)) = (fast, blocks.peek()) {
                prefetch(next);
            }
            let quick = if fast {
                shifted::block(dtype, block, block.len() / unit, self.shift.unwrap_or(0.0))
            } else {
                None
            };
            match quick {
                Some(moments) => {
                    if moments.n > 0 {
                        self.shift = Some(moments.mean);
                    }
                    self.partial.merge(&Partial {
                        moments,
                        ..Partial::EMPTY
                    });
                }
                None => self.partial.merge(&block_partial(dtype, block, buf)),
            }
            if let Some(h) = hasher.as_deref_mut() {
                h.advance_to(end);
            }
        }
    }

    /// The chunk's partial.
    pub fn finish(self) -> Partial {
        if histogram::applies(self.dtype) {
            histogram::partial_of_counts(self.dtype, &self.counts)
        } else {
            self.partial
        }
    }
}

/// Asks the CPU to start loading `bytes` (the next block) into cache while the current block is
/// computed: the kernels' accumulator chains otherwise keep too few loads in flight to stream
/// from memory at full speed.
#[inline(always)]
fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    for line in bytes.chunks(64) {
        // SAFETY: prefetching is a hint that never faults; the address is inside `bytes`. SSE is
        // part of the x86_64 baseline.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                line.as_ptr().cast(),
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

fn block_partial(dtype: Dtype, block: &[u8], buf: &mut Vec<f64>) -> Partial {
    // Resizing only ever grows the buffer once per worker; decode overwrites what it keeps.
    buf.resize(values_in(dtype, block.len()), 0.0);
    decode_into(dtype, block, buf);
    let mut p = Partial::EMPTY;
    if dtype == Dtype::C64 {
        c64_magnitudes(buf, &mut p);
        p.moments = finite_block::of_finite(buf);
    } else if dtype.is_int() {
        p.ints = int_block(dtype, block);
        p.moments = finite_block::of_finite(buf);
    } else if dtype == Dtype::Bool {
        p.true_count = block.iter().map(|&b| u64::from(b != 0)).sum();
        p.moments = finite_block::of_finite(buf);
    } else {
        let (m, [nan, posinf, neginf]) = finite_block::of_block(buf);
        p.moments = m;
        (p.nan, p.posinf, p.neginf) = (nan, posinf, neginf);
    }
    p
}

/// Replaces the (re, im) pairs in `buf` by the magnitudes of the finite elements, counting the
/// NaN (either part NaN) and infinite (either part infinite) ones.
fn c64_magnitudes(buf: &mut Vec<f64>, p: &mut Partial) {
    let mut kept = 0;
    for i in 0..buf.len() / 2 {
        let (re, im) = (buf[2 * i], buf[2 * i + 1]);
        if re.is_nan() || im.is_nan() {
            p.nan += 1;
        } else if re.is_infinite() || im.is_infinite() {
            p.posinf += 1;
        } else {
            buf[kept] = re.hypot(im);
            kept += 1;
        }
    }
    buf.truncate(kept);
}

/// Exact sum, min and max of a block of integers.
fn int_block(dtype: Dtype, block: &[u8]) -> IntAcc {
    macro_rules! exact {
        ($t:ty) => {{
            let mut sum: i128 = 0;
            let (mut lo, mut hi) = (<$t>::MAX, <$t>::MIN);
            let mut any = false;
            for c in block.chunks_exact(size_of::<$t>()) {
                let x = <$t>::from_le_bytes(le(c));
                // At most BLOCK_ELEMS terms of magnitude < 2^64: cannot overflow i128.
                sum += x as i128;
                lo = lo.min(x);
                hi = hi.max(x);
                any = true;
            }
            if any {
                IntAcc {
                    sum,
                    min: lo as i128,
                    max: hi as i128,
                }
            } else {
                IntAcc::EMPTY
            }
        }};
    }
    match dtype {
        Dtype::U8 => exact!(u8),
        Dtype::I8 => exact!(i8),
        Dtype::I16 => exact!(i16),
        Dtype::U16 => exact!(u16),
        Dtype::I32 => exact!(i32),
        Dtype::U32 => exact!(u32),
        Dtype::I64 => exact!(i64),
        Dtype::U64 => exact!(u64),
        _ => IntAcc::EMPTY,
    }
}
