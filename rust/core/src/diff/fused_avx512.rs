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

use super::lanes::Lanes;
use crate::elements::cpu::has_avx512;
use crate::Dtype;
use std::arch::is_x86_feature_detected;
use std::arch::x86_64::*;

/// How far ahead (bytes) to prefetch each side (the stats kernel's measured distance).
const PREFETCH_AHEAD: usize = 8192;

/// Runs the first `n` places (rounded down to a multiple of 16, BF16: 32) of `a` and `b` into
/// `lanes` when the CPU has AVX-512, assuming every value is finite; returns how many were done
/// (0 when it could not run), a multiple of 16.
pub(super) fn body(
    dtype: Dtype,
    a: &[u8],
    b: &[u8],
    n: usize,
    tol: (f64, f64),
    lanes: &mut Lanes,
) -> usize {
    if !(has_avx512() && is_x86_feature_detected!("popcnt")) {
        return 0;
    }
    match dtype {
        // SAFETY: AVX-512 F/BW/VL, FMA, F16C and POPCNT are present (checked above).
        Dtype::Bf16 => unsafe { run_bf16(a, b, n, tol, lanes) },
        // SAFETY: as above.
        Dtype::F16 => unsafe { run_half::<1>(a, b, n, tol, lanes) },
        // SAFETY: as above.
        Dtype::F32 => unsafe { run_half::<2>(a, b, n, tol, lanes) },
        _ => 0,
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

/// One step of eight places into `$set` (macros, not closures: closures would not inherit the
/// enabled target features); its value is the mask of places out of tolerance.
macro_rules! step {
    ($set:expr, $x:expr, $y:expr, $rtol:expr, $atol:expr) => {{
        let s: &mut Set = $set;
        let (x, y): (__m512d, __m512d) = ($x, $y);
        let d = _mm512_abs_pd(_mm512_sub_pd(x, y));
        s.max = _mm512_max_pd(d, s.max);
        s.abs = _mm512_add_pd(s.abs, d);
        s.sqd = _mm512_fmadd_pd(d, d, s.sqd);
        s.sqa = _mm512_fmadd_pd(x, x, s.sqa);
        s.sqb = _mm512_fmadd_pd(y, y, s.sqb);
        s.dot = _mm512_fmadd_pd(x, y, s.dot);
        let bound = _mm512_add_pd($atol, _mm512_mul_pd($rtol, _mm512_abs_pd(y)));
        _mm512_cmp_pd_mask::<_CMP_GT_OQ>(d, bound)
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
unsafe fn run_bf16(
    a: &[u8],
    b: &[u8],
    n: usize,
    (rtol, atol): (f64, f64),
    lanes: &mut Lanes,
) -> usize {
    let n = n.min(a.len() / 2).min(b.len() / 2) / 32 * 32;
    if n == 0 {
        return 0;
    }
    // SAFETY: AVX-512 F/BW/VL, AVX2 and FMA are enabled here. The loop reads 32 elements
    // (64 bytes) of each side at element i with i + 32 <= n <= len / 2; loads are unaligned
    // ones. The prefetch addresses use wrapping arithmetic and prefetches never fault.
    unsafe {
        let mut even = gather(lanes, even_lane);
        let mut odd = gather(lanes, odd_lane);
        let (rv, av) = (_mm512_set1_pd(rtol), _mm512_set1_pd(atol));
        let high_half = _mm512_set1_epi32(0xFFFF_0000u32 as i32);
        let mut mism = 0u64;
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut i = 0;
        while i < n {
            let (p, q) = (pa.add(2 * i), pb.add(2 * i));
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(PREFETCH_AHEAD).cast());
            _mm_prefetch::<_MM_HINT_T0>(q.wrapping_add(PREFETCH_AHEAD).cast());
            let (va, vb) = (_mm512_loadu_si512(p.cast()), _mm512_loadu_si512(q.cast()));
            // 32-bit lane j: element 2j in its low half, 2j + 1 in its high half.
            let xe = _mm512_castsi512_ps(_mm512_slli_epi32::<16>(va));
            let xo = _mm512_castsi512_ps(_mm512_and_si512(va, high_half));
            let ye = _mm512_castsi512_ps(_mm512_slli_epi32::<16>(vb));
            let yo = _mm512_castsi512_ps(_mm512_and_si512(vb, high_half));
            let m0 = step!(&mut even, lower_pd!(xe), lower_pd!(ye), rv, av);
            let m1 = step!(&mut odd, lower_pd!(xo), lower_pd!(yo), rv, av);
            let m2 = step!(&mut even, upper_pd!(xe), upper_pd!(ye), rv, av);
            let m3 = step!(&mut odd, upper_pd!(xo), upper_pd!(yo), rv, av);
            // One popcount of the four masks (the compiler vectorises four small ones badly).
            let out = u32::from_le_bytes([m0, m1, m2, m3]);
            mism += u64::from(_popcnt32(out as i32) as u32);
            i += 32;
        }
        scatter(&even, lanes, even_lane);
        scatter(&odd, lanes, odd_lane);
        lanes.finite += n as u64;
        lanes.mismatched += mism;
    }
    n
}

/// The F16 (`KIND` 1) and F32 (`KIND` 2) loop.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma,f16c,popcnt")]
unsafe fn run_half<const KIND: u8>(
    a: &[u8],
    b: &[u8],
    n: usize,
    (rtol, atol): (f64, f64),
    lanes: &mut Lanes,
) -> usize {
    let w = if KIND == 2 { 4 } else { 2 };
    let n = n.min(a.len() / w).min(b.len() / w) / 16 * 16;
    if n == 0 {
        return 0;
    }
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
            let (x, y) = (load16!(p), load16!(q));
            let m0 = step!(&mut low, lower_pd!(x), lower_pd!(y), rv, av);
            let m1 = step!(&mut high, upper_pd!(x), upper_pd!(y), rv, av);
            mism += u64::from(_popcnt32(i32::from(u16::from_le_bytes([m0, m1]))) as u32);
            i += 16;
        }
        scatter(&low, lanes, low_lane);
        scatter(&high, lanes, high_lane);
        lanes.finite += n as u64;
        lanes.mismatched += mism;
    }
    n
}
