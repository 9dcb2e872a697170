//! The fused kernel for same-dtype BF16, F16 and F32 pairs: decodes each element straight from
//! the raw bytes into the block's lane accumulators ([`Lanes`]), with no intermediate `f64`
//! buffers. The bulk of a block runs in the widest vector loop the CPU has (`fused_avx512`:
//! 32 BF16 or 16 F16/F32 elements per step; `fused_avx2`: 16), the tail in the portable loop.
//!
//! The vector loops skip the finiteness masks: they assume every value is finite, which holds
//! for almost every block of real weights. A block holding a NaN or an infinity makes a sum of
//! squares non-finite ([`Lanes::squares_finite`]); it is then redone with the portable loop,
//! which classifies each place. Both give the bits of the generic kernel (decoded values through
//! [`Lanes::step`] with `FUSED`): same lanes, same order, same roundings (see `lanes`).

use super::accum::Acc;
use super::lanes::{first_at, Lanes, LANES};
use super::screen::ScreenState;
use crate::elements::le;
use crate::Dtype;
use half::f16;

/// True when [`fused_block`] handles pairs of `da` and `db`.
pub(crate) fn handles(da: Dtype, db: Dtype) -> bool {
    da == db && matches!(da, Dtype::Bf16 | Dtype::F16 | Dtype::F32)
}

/// Element `j` of a BF16, F16 or F32 byte slice as `f64` (exact).
#[inline(always)]
fn load(dtype: Dtype, bytes: &[u8], j: usize) -> f64 {
    match dtype {
        // bf16 is the top half of an f32: the shift is exact, including NaN and Inf.
        Dtype::Bf16 => f64::from(f32::from_bits(
            u32::from(u16::from_le_bytes(le(&bytes[2 * j..]))) << 16,
        )),
        Dtype::F16 => f16::from_bits(u16::from_le_bytes(le(&bytes[2 * j..]))).to_f64(),
        _ => f64::from(f32::from_le_bytes(le(&bytes[4 * j..]))),
    }
}

/// The accumulator of one block: `a` and `b` are whole elements of `dtype` (one of those
/// [`handles`] accepts) and `base` is the flat index of the first. `beat` is the largest
/// difference before this block (in its chunk): the first place of the block's largest one is
/// only looked for when it is larger. Another dtype gives `None`.
pub(crate) fn fused_block(
    dtype: Dtype,
    a: &[u8],
    b: &[u8],
    base: u64,
    tol: (f64, f64),
    beat: f64,
    screen: &mut ScreenState,
) -> Option<Acc> {
    let w = match dtype {
        Dtype::Bf16 | Dtype::F16 => 2,
        Dtype::F32 => 4,
        _ => return None,
    };
    let n = (a.len() / w).min(b.len() / w);
    let mut lanes = Lanes::NEW;
    let (done, clean) = vector_body(
        dtype,
        a,
        b,
        n / LANES * LANES,
        tol,
        screen.next(),
        &mut lanes,
    );
    screen.after(clean);
    if done > 0 && !lanes.squares_finite() {
        lanes = Lanes::NEW;
        portable(dtype, a, b, 0..done, tol, &mut lanes);
    }
    portable(dtype, a, b, done..n, tol, &mut lanes);
    Some(finish_block(&lanes, n, base, beat, |j| {
        (load(dtype, a, j), load(dtype, b, j))
    }))
}

/// The block's accumulator from its lanes, with the first place of its largest difference
/// (`base` plus the block-relative place) when that beats `beat`.
#[inline]
pub(crate) fn finish_block(
    lanes: &Lanes,
    n: usize,
    base: u64,
    beat: f64,
    value: impl Fn(usize) -> (f64, f64),
) -> Acc {
    let mut acc = lanes.reduce();
    if acc.max_abs > beat {
        acc.max_index = base + first_at(n, acc.max_abs, value).unwrap_or(0) as u64;
    }
    acc
}

/// The portable loop over places `range` of the block.
#[inline(always)]
fn portable(
    dtype: Dtype,
    a: &[u8],
    b: &[u8],
    range: std::ops::Range<usize>,
    tol: (f64, f64),
    lanes: &mut Lanes,
) {
    match dtype {
        Dtype::Bf16 => range.for_each(|j| {
            lanes.step::<true>(j, load(Dtype::Bf16, a, j), load(Dtype::Bf16, b, j), tol)
        }),
        Dtype::F16 => range.for_each(|j| {
            lanes.step::<true>(j, load(Dtype::F16, a, j), load(Dtype::F16, b, j), tol)
        }),
        _ => range.for_each(|j| {
            lanes.step::<true>(j, load(Dtype::F32, a, j), load(Dtype::F32, b, j), tol)
        }),
    }
}

/// Runs the first `n` places (a multiple of [`LANES`]) through the widest vector loops the CPU
/// has: AVX-512 for as many as it takes (screened with `screen` units when given, see
/// `screen`), AVX2 for the rest; returns how many were done (a multiple of [`LANES`], so the
/// next loop starts on lane 0) and whether every screened step passed.
#[allow(unused_variables)]
fn vector_body(
    dtype: Dtype,
    a: &[u8],
    b: &[u8],
    n: usize,
    tol: (f64, f64),
    screen: Option<u32>,
    lanes: &mut Lanes,
) -> (usize, bool) {
    #[cfg(target_arch = "x86_64")]
    {
        let w = if dtype == Dtype::F32 { 4 } else { 2 };
        let (wide, clean) = super::fused_avx512::body(dtype, a, b, n, tol, screen, lanes);
        let rest =
            super::fused_avx2::body(dtype, &a[wide * w..], &b[wide * w..], n - wide, tol, lanes);
        (wide + rest, clean)
    }
    #[cfg(not(target_arch = "x86_64"))]
    (0, false)
}

/// The block's lanes through whatever vector path runs (no tail, no redo), screened or not, for
/// tests comparing it with the portable loop.
#[cfg(test)]
pub(super) fn body_dispatched(
    dtype: Dtype,
    a: &[u8],
    b: &[u8],
    n: usize,
    tol: (f64, f64),
    screens: bool,
) -> (usize, Lanes) {
    let mut lanes = Lanes::NEW;
    let screen = screens.then(|| super::screen::screen_units(dtype, tol));
    let (done, _) = vector_body(dtype, a, b, n / LANES * LANES, tol, screen, &mut lanes);
    (done, lanes)
}

/// The portable loop over the first `n` places, for the same tests.
#[cfg(test)]
pub(super) fn body_portable(dtype: Dtype, a: &[u8], b: &[u8], n: usize, tol: (f64, f64)) -> Lanes {
    let mut lanes = Lanes::NEW;
    portable(dtype, a, b, 0..n, tol, &mut lanes);
    lanes
}
