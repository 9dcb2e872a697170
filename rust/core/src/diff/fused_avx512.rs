//! AVX-512 body loops of the fused diff kernel (see `fused` and `lanes`): lane for lane the
//! operations of [`Lanes::step`] for finite values, in the same order.
//!
//! BF16, 32 elements (one 64-byte line per side) per step. The f32 values come without any
//! cross-lane shuffle: `v << 16` in 32-bit lanes gives the even elements, `v & 0xFFFF0000` the odd
//! ones, so the 16 lanes of each sum are kept as an even register (lanes 0, 2, ..., 14) and an
//! odd one (1, 3, ..., 15); each takes the low half of its step before the high half, so lane
//! `l` still sees places `l, l+16, ...` in order. F16 and F32, 16 elements per step: lanes 0-7
//! in one register, 8-15 in another.
//!
//! Squares and products are fused multiply-adds and the tolerance bound is rounded product then
//! sum, as [`Lanes::step`] defines them for these dtypes. The mismatch count is a mask popcount.
//! The screened loops (`screen`) compute the bound only for steps with a place whose bits are
//! more than a few units apart, and stop after the first such step (the plain loop does the
//! rest of the block): on pairs a unit or two apart everywhere they skip a quarter of the
//! vector work; the count is the same by the screen's claim (tested exhaustively for BF16 and
//! F16 and against the generic kernel).

use super::lanes::Lanes;
use crate::elements::cpu::has_avx512;
use crate::Dtype;
use std::arch::is_x86_feature_detected;
use std::arch::x86_64::*;

/// How far ahead (bytes) to prefetch each side (the stats kernel's measured distance).
const PREFETCH_AHEAD: usize = 8192;

/// Runs the first `n` places (rounded down to a multiple of 16, BF16: 32) of `a` and `b` into
/// `lanes` when the CPU has AVX-512, assuming every value is finite; a `screen` (in units, see
/// `screen`) picks the loop that computes the tolerance bound only for steps with a place
/// beyond it.
/// Returns how many places were done (0 when it could not run), a multiple of 16, and whether
/// the loop screened and every step passed.
pub(super) fn body(
    dtype: Dtype,
    a: &[u8],
    b: &[u8],
    n: usize,
    tol: (f64, f64),
    screen: Option<u32>,
    lanes: &mut Lanes,
) -> (usize, bool) {
    if !(has_avx512() && is_x86_feature_detected!("popcnt")) {
        return (0, false);
    }
    // The screened loop stops after the first step with a place beyond the screen; the plain
    // loop does the rest (so a block pays at most one mispredicted branch for its screen). Both
    // end on a whole step, so the plain loop resumes at lane 0.
    macro_rules! screened {
        ($run:ident, [$($kind:literal)?], $width:expr, $units:expr) => {{
            let (done, clean) = $run::<$($kind,)? true>(a, b, n, tol, $units, lanes);
            if clean || done == 0 {
                (done, clean)
            } else {
                let (a, b) = (&a[done * $width..], &b[done * $width..]);
                let (rest, _) = $run::<$($kind,)? false>(a, b, n - done, tol, 0, lanes);
                (done + rest, false)
            }
        }};
    }
    // SAFETY: AVX-512 F/BW/VL, FMA, F16C and POPCNT are present (checked above), as every
    // loop needs.
    unsafe {
        match (dtype, screen) {
            (Dtype::Bf16, Some(units)) => screened!(run_bf16, [], 2, units),
            (Dtype::Bf16, None) => run_bf16::<false>(a, b, n, tol, 0, lanes),
            (Dtype::F16, Some(units)) => screened!(run_half, [1], 2, units),
            (Dtype::F16, None) => run_half::<1, false>(a, b, n, tol, 0, lanes),
            (Dtype::F32, Some(units)) => screened!(run_half, [2], 4, units),
            (Dtype::F32, None) => run_half::<2, false>(a, b, n, tol, 0, lanes),
            _ => (0, false),
        }
    }
}

/// Eight lanes of every accumulator.
#[derive(Clone, Copy)]
struct Set {
    abs: __m512d,
    sqd: __m512d,
    sqa: __m512d,
    sqb: __m512d,
    dot: __m512d,
    max: __m512d,
}

/// Lanes `pick(0..8)` of `lanes` as a [`Set`].
#[inline]
#[target_feature(enable = "avx512f")]
fn gather(lanes: &Lanes, pick: fn(usize) -> usize) -> Set {
    let arrays = [
        &lanes.sum_abs,
        &lanes.sum_sq_diff,
        &lanes.sum_sq_a,
        &lanes.sum_sq_b,
        &lanes.dot,
        &lanes.max_abs,
    ];
    let mut v = [[0.0f64; 8]; 6];
    for (out, arr) in v.iter_mut().zip(arrays) {
        for (k, x) in out.iter_mut().enumerate() {
            *x = arr[pick(k)];
        }
    }
    // SAFETY: each `v[i]` is 8 readable f64; unaligned loads are allowed.
    unsafe {
        Set {
            abs: _mm512_loadu_pd(v[0].as_ptr()),
            sqd: _mm512_loadu_pd(v[1].as_ptr()),
            sqa: _mm512_loadu_pd(v[2].as_ptr()),
            sqb: _mm512_loadu_pd(v[3].as_ptr()),
            dot: _mm512_loadu_pd(v[4].as_ptr()),
            max: _mm512_loadu_pd(v[5].as_ptr()),
        }
    }
}

/// Writes `set` back into lanes `pick(0..8)` of `lanes`.
#[inline]
#[target_feature(enable = "avx512f")]
fn scatter(set: &Set, lanes: &mut Lanes, pick: fn(usize) -> usize) {
    let mut v = [[0.0f64; 8]; 6];
    // SAFETY: each `v[i]` is 8 writable f64; unaligned stores are allowed.
    unsafe {
        _mm512_storeu_pd(v[0].as_mut_ptr(), set.abs);
        _mm512_storeu_pd(v[1].as_mut_ptr(), set.sqd);
        _mm512_storeu_pd(v[2].as_mut_ptr(), set.sqa);
        _mm512_storeu_pd(v[3].as_mut_ptr(), set.sqb);
        _mm512_storeu_pd(v[4].as_mut_ptr(), set.dot);
        _mm512_storeu_pd(v[5].as_mut_ptr(), set.max);
    }
    let arrays = [
        &mut lanes.sum_abs,
        &mut lanes.sum_sq_diff,
        &mut lanes.sum_sq_a,
        &mut lanes.sum_sq_b,
        &mut lanes.dot,
        &mut lanes.max_abs,
    ];
    for (arr, vals) in arrays.into_iter().zip(v) {
        for (k, x) in vals.into_iter().enumerate() {
            arr[pick(k)] = x;
        }
    }
}

fn even_lane(k: usize) -> usize {
    2 * k
}
fn odd_lane(k: usize) -> usize {
    2 * k + 1
}
fn low_lane(k: usize) -> usize {
    k
}
fn high_lane(k: usize) -> usize {
    k + 8
}

/// One step of eight places into `$set`: the sums and the maximum (macros, not closures:
/// closures would not inherit the enabled target features); its value is `|x - y|`.
macro_rules! sums {
    ($set:expr, $x:expr, $y:expr) => {{
        let s: &mut Set = $set;
        let (x, y): (__m512d, __m512d) = ($x, $y);
        let d = _mm512_abs_pd(_mm512_sub_pd(x, y));
        s.max = _mm512_max_pd(d, s.max);
        s.abs = _mm512_add_pd(s.abs, d);
        s.sqd = _mm512_fmadd_pd(d, d, s.sqd);
        s.sqa = _mm512_fmadd_pd(x, x, s.sqa);
        s.sqb = _mm512_fmadd_pd(y, y, s.sqb);
        s.dot = _mm512_fmadd_pd(x, y, s.dot);
        d
    }};
}

/// The mask of the eight places whose `|x - y|` (`$d`) is beyond the bound
/// `atol + rtol*|y|`, rounded product then sum ([`Lanes::step`]).
macro_rules! outside {
    ($d:expr, $y:expr, $rtol:expr, $atol:expr) => {{
        let bound = _mm512_add_pd($atol, _mm512_mul_pd($rtol, _mm512_abs_pd($y)));
        _mm512_cmp_pd_mask::<_CMP_GT_OQ>($d, bound)
    }};
}

/// The lower eight f32 of a 16-lane register, widened to f64.
macro_rules! lower_pd {
    ($x:expr) => {
        _mm512_cvtps_pd(_mm512_castps512_ps256($x))
    };
}

/// The upper eight f32 of a 16-lane register, widened to f64.
macro_rules! upper_pd {
    ($x:expr) => {
        _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd::<1>(
            _mm512_castps_pd($x),
        )))
    };
}

/// The BF16 loop (see the module docs).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma,f16c,popcnt")]
unsafe fn run_bf16<const SCREEN: bool>(
    a: &[u8],
    b: &[u8],
    n: usize,
    (rtol, atol): (f64, f64),
    units: u32,
    lanes: &mut Lanes,
) -> (usize, bool) {
    let n = n.min(a.len() / 2).min(b.len() / 2) / 32 * 32;
    if n == 0 {
        return (0, SCREEN);
    }
    let whole = n;
    // SAFETY: AVX-512 F/BW/VL, AVX2 and FMA are enabled here. The loop reads 32 elements
    // (64 bytes) of each side at element i with i + 32 <= n <= len / 2; loads are unaligned
    // ones. The prefetch addresses use wrapping arithmetic and prefetches never fault.
    unsafe {
        let mut even = gather(lanes, even_lane);
        let mut odd = gather(lanes, odd_lane);
        let (rv, av) = (_mm512_set1_pd(rtol), _mm512_set1_pd(atol));
        let high_half = _mm512_set1_epi32(0xFFFF_0000u32 as i32);
        let screen = _mm512_set1_epi16(units as i16);
        let mut mism = 0u64;
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut i = 0;
        while i < n {
            let (p, q) = (pa.add(2 * i), pb.add(2 * i));
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(PREFETCH_AHEAD).cast());
            _mm_prefetch::<_MM_HINT_T0>(q.wrapping_add(PREFETCH_AHEAD).cast());
            let (va, vb) = (_mm512_loadu_si512(p.cast()), _mm512_loadu_si512(q.cast()));
            // Places whose bits are more than `units` apart (wrapping): only those can be out
            // of tolerance (see `screen`).
            let unsure = if SCREEN {
                _mm512_cmpgt_epu16_mask(_mm512_abs_epi16(_mm512_sub_epi16(va, vb)), screen)
            } else {
                u32::MAX
            };
            // 32-bit lane j: element 2j in its low half, 2j + 1 in its high half.
            let xe = _mm512_castsi512_ps(_mm512_slli_epi32::<16>(va));
            let xo = _mm512_castsi512_ps(_mm512_and_si512(va, high_half));
            let ye = _mm512_castsi512_ps(_mm512_slli_epi32::<16>(vb));
            let yo = _mm512_castsi512_ps(_mm512_and_si512(vb, high_half));
            let (x0, y0) = (lower_pd!(xe), lower_pd!(ye));
            let d0 = sums!(&mut even, x0, y0);
            let (x1, y1) = (lower_pd!(xo), lower_pd!(yo));
            let d1 = sums!(&mut odd, x1, y1);
            let (x2, y2) = (upper_pd!(xe), upper_pd!(ye));
            let d2 = sums!(&mut even, x2, y2);
            let (x3, y3) = (upper_pd!(xo), upper_pd!(yo));
            let d3 = sums!(&mut odd, x3, y3);
            if unsure != 0 {
                let (m0, m1) = (outside!(d0, y0, rv, av), outside!(d1, y1, rv, av));
                let (m2, m3) = (outside!(d2, y2, rv, av), outside!(d3, y3, rv, av));
                // One popcount of the four masks.
                let out = u32::from_le_bytes([m0, m1, m2, m3]);
                mism += u64::from(_popcnt32(out as i32) as u32);
            }
            i += 32;
            if SCREEN && unsure != 0 {
                break;
            }
        }
        // The plain loop always runs to the end (and its count must not hold the loop index).
        let n = if SCREEN { i } else { whole };
        scatter(&even, lanes, even_lane);
        scatter(&odd, lanes, odd_lane);
        lanes.finite += n as u64;
        lanes.mismatched += mism;
        (n, SCREEN && n == whole)
    }
}

/// The F16 (`KIND` 1) and F32 (`KIND` 2) loop.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma,f16c,popcnt")]
unsafe fn run_half<const KIND: u8, const SCREEN: bool>(
    a: &[u8],
    b: &[u8],
    n: usize,
    (rtol, atol): (f64, f64),
    units: u32,
    lanes: &mut Lanes,
) -> (usize, bool) {
    let w = if KIND == 2 { 4 } else { 2 };
    let n = n.min(a.len() / w).min(b.len() / w) / 16 * 16;
    if n == 0 {
        return (0, SCREEN);
    }
    let whole = n;
    // SAFETY: the features are enabled here. The loop reads 16 elements of each side at element
    // i with i + 16 <= n <= len / w; loads are unaligned ones. The prefetch addresses use
    // wrapping arithmetic and prefetches never fault.
    unsafe {
        macro_rules! load16 {
            ($p:expr) => {
                if KIND == 1 {
                    _mm512_cvtph_ps(_mm256_loadu_si256($p.cast()))
                } else {
                    _mm512_loadu_ps($p.cast())
                }
            };
        }
        let mut low = gather(lanes, low_lane);
        let mut high = gather(lanes, high_lane);
        let (rv, av) = (_mm512_set1_pd(rtol), _mm512_set1_pd(atol));
        let mut mism = 0u64;
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut i = 0;
        while i < n {
            let (p, q) = (pa.add(w * i), pb.add(w * i));
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(PREFETCH_AHEAD).cast());
            _mm_prefetch::<_MM_HINT_T0>(q.wrapping_add(PREFETCH_AHEAD).cast());
            // Places whose bits are more than `units` apart (wrapping): only those can be out
            // of tolerance (see `screen`).
            let unsure = if !SCREEN {
                u16::MAX
            } else if KIND == 2 {
                let (ra, rb) = (_mm512_loadu_si512(p.cast()), _mm512_loadu_si512(q.cast()));
                let apart = _mm512_abs_epi32(_mm512_sub_epi32(ra, rb));
                _mm512_cmpgt_epu32_mask(apart, _mm512_set1_epi32(units as i32))
            } else {
                let (ra, rb) = (_mm256_loadu_si256(p.cast()), _mm256_loadu_si256(q.cast()));
                let apart = _mm256_abs_epi16(_mm256_sub_epi16(ra, rb));
                _mm256_cmpgt_epu16_mask(apart, _mm256_set1_epi16(units as i16))
            };
            let (x, y) = (load16!(p), load16!(q));
            let (x0, y0, x1, y1) = (lower_pd!(x), lower_pd!(y), upper_pd!(x), upper_pd!(y));
            let d0 = sums!(&mut low, x0, y0);
            let d1 = sums!(&mut high, x1, y1);
            if unsure != 0 {
                let (m0, m1) = (outside!(d0, y0, rv, av), outside!(d1, y1, rv, av));
                mism += u64::from(_popcnt32(i32::from(u16::from_le_bytes([m0, m1]))) as u32);
            }
            i += 16;
            if SCREEN && unsure != 0 {
                break;
            }
        }
        // The plain loop always runs to the end (and its count must not hold the loop index).
        let n = if SCREEN { i } else { whole };
        scatter(&low, lanes, low_lane);
        scatter(&high, lanes, high_lane);
        lanes.finite += n as u64;
        lanes.mismatched += mism;
        (n, SCREEN && n == whole)
    }
}
