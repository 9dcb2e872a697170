//! AVX2 body loops of the shifted kernel ([`super::shifted`]): 16 elements per step into 16 f64
//! sum lanes (four registers of 4), with min/max/zero lanes as f32 (F16, F32: 8 lanes) or as
//! 16-bit integer keys (BF16: 16 lanes); lane for lane the same operations, in the same order, as
//! the portable loop. The loops also prefetch a fixed distance ahead: their accumulator chains
//! alone keep too few loads in flight to stream from memory.

use super::shifted_acc::Acc;
use crate::elements::cpu::{has_avx2_f16c, has_avx2_fma};
use crate::Dtype;
use std::arch::x86_64::*;

/// How far ahead (bytes) to prefetch.
const PREFETCH_AHEAD: usize = 2048;

/// Runs the first `n` (a multiple of 16) elements into `acc` when the CPU has the features the
/// dtype needs; returns how many elements were done (0 when it could not run).
pub(super) fn body(dtype: Dtype, bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    if !has_avx2_fma() {
        return 0;
    }
    match dtype {
        // SAFETY: AVX2 and FMA are present (checked above).
        Dtype::Bf16 => unsafe { run_bf16(bytes, n, k, acc) },
        Dtype::F16 if has_avx2_f16c() => {
            // SAFETY: AVX2, FMA and F16C are present.
            unsafe { run_f16c(bytes, n, k, acc) }
        }
        // SAFETY: AVX2 and FMA are present.
        Dtype::F32 => unsafe { run_f32(bytes, n, k, acc) },
        _ => 0,
    }
}

#[target_feature(enable = "avx2,fma")]
unsafe fn run_f32(bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    // SAFETY: AVX2 and FMA are enabled here, and F32 (KIND 2) needs nothing more.
    unsafe { run::<2>(bytes, n, k, acc) }
}

#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn run_f16c(bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    // SAFETY: AVX2, FMA and F16C are enabled here.
    unsafe { run::<1>(bytes, n, k, acc) }
}

/// Loads 8 elements at `p` as f32 lanes. `KIND`: 1 F16, 2 F32.
///
/// # Safety
/// 8 elements must be readable at `p`, and the CPU must have AVX2 (and F16C for `KIND == 1`).
#[inline(always)]
unsafe fn load8<const KIND: u8>(p: *const u8) -> __m256 {
    // SAFETY: per the caller; unaligned loads are allowed.
    unsafe {
        match KIND {
            1 => _mm256_cvtph_ps(_mm_loadu_si128(p.cast())),
            _ => _mm256_loadu_ps(p.cast()),
        }
    }
}

/// One set of f64 accumulators: 2 × 4 lanes of Σd and Σd².
#[derive(Clone, Copy)]
struct Set {
    s1: [__m256d; 2],
    s2: [__m256d; 2],
}

/// The loop; inlined into a wrapper that enables the features.
///
/// # Safety
/// The CPU must have AVX2 and FMA (and F16C for `KIND == 1`).
#[inline(always)]
unsafe fn run<const KIND: u8>(bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    let width = if KIND == 2 { 4 } else { 2 };
    let n = n.min(bytes.len() / width) / 16 * 16;
    // SAFETY: the caller guarantees the CPU features. Every pointer access is in bounds: the
    // arrays of `acc` hold 8 f32 or 16 f64, read and written in groups of 8 or 4, and the loop
    // reads 16 elements at element i with i + 16 <= n <= bytes.len() / width. All loads and
    // stores are unaligned ones. The prefetch address is computed with wrapping arithmetic and
    // prefetches never fault.
    unsafe {
        // Macros, not closures: closures would not inherit the enabled target features.
        macro_rules! get {
            ($h:expr) => {{
                let p = acc.s1.as_ptr().add(8 * $h);
                let q = acc.s2.as_ptr().add(8 * $h);
                Set {
                    s1: [_mm256_loadu_pd(p), _mm256_loadu_pd(p.add(4))],
                    s2: [_mm256_loadu_pd(q), _mm256_loadu_pd(q.add(4))],
                }
            }};
        }
        let (mut a, mut b) = (get!(0), get!(1));
        // Min, max and zero count are shared by both sets (lane m sees elements m, m+8, ... in
        // order), which keeps everything in the 16 ymm registers.
        let mut lo = _mm256_loadu_ps(acc.lo.as_ptr());
        let mut hi = _mm256_loadu_ps(acc.hi.as_ptr());
        let mut z = _mm256_loadu_ps(acc.zeros.as_ptr());
        let kv = _mm256_set1_pd(k);
        let zero = _mm256_setzero_ps();
        let one = _mm256_set1_ps(1.0);
        macro_rules! step {
            ($s:expr, $x:expr) => {{
                let s: &mut Set = $s;
                let x: __m256 = $x;
                lo = _mm256_min_ps(x, lo);
                hi = _mm256_max_ps(x, hi);
                z = _mm256_add_ps(z, _mm256_and_ps(_mm256_cmp_ps::<_CMP_EQ_OQ>(x, zero), one));
                let d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(x)), kv);
                let d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps::<1>(x)), kv);
                s.s1[0] = _mm256_add_pd(s.s1[0], d0);
                s.s1[1] = _mm256_add_pd(s.s1[1], d1);
                s.s2[0] = _mm256_fmadd_pd(d0, d0, s.s2[0]);
                s.s2[1] = _mm256_fmadd_pd(d1, d1, s.s2[1]);
            }};
        }
        let base = bytes.as_ptr();
        let mut i = 0;
        while i < n {
            let p = base.add(i * width);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(PREFETCH_AHEAD).cast());
            step!(&mut a, load8::<KIND>(p));
            step!(&mut b, load8::<KIND>(p.add(8 * width)));
            i += 16;
        }
        macro_rules! put {
            ($h:expr, $s:expr) => {{
                let s: &Set = $s;
                let p = acc.s1.as_mut_ptr().add(8 * $h);
                let q = acc.s2.as_mut_ptr().add(8 * $h);
                _mm256_storeu_pd(p, s.s1[0]);
                _mm256_storeu_pd(p.add(4), s.s1[1]);
                _mm256_storeu_pd(q, s.s2[0]);
                _mm256_storeu_pd(q.add(4), s.s2[1]);
            }};
        }
        put!(0, &a);
        put!(1, &b);
        _mm256_storeu_ps(acc.lo.as_mut_ptr(), lo);
        _mm256_storeu_ps(acc.hi.as_mut_ptr(), hi);
        _mm256_storeu_ps(acc.zeros.as_mut_ptr(), z);
        n
    }
}

/// The BF16 loop: min, max and zeros on 16 integer keys per step ([`super::shifted_acc::bf16_key`]),
/// which keeps the float ports free for the f64 sums.
#[target_feature(enable = "avx2,fma")]
unsafe fn run_bf16(bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    let n = n.min(bytes.len() / 2) / 16 * 16;
    // SAFETY: AVX2 and FMA are enabled here. Every pointer access is in bounds: the arrays of `acc` hold
    // 16 i16 or 16 f64 (read and written in groups of 16 or 4), and the loop reads 16 elements
    // (32 bytes) at element i with i + 16 <= n <= bytes.len() / 2. All loads and stores are
    // unaligned ones. The prefetch address uses wrapping arithmetic and prefetches never fault.
    unsafe {
        let (mut s1a, mut s1b) = (
            _mm256_loadu_pd(acc.s1.as_ptr()),
            _mm256_loadu_pd(acc.s1.as_ptr().add(4)),
        );
        let (mut s1c, mut s1d) = (
            _mm256_loadu_pd(acc.s1.as_ptr().add(8)),
            _mm256_loadu_pd(acc.s1.as_ptr().add(12)),
        );
        let (mut s2a, mut s2b) = (
            _mm256_loadu_pd(acc.s2.as_ptr()),
            _mm256_loadu_pd(acc.s2.as_ptr().add(4)),
        );
        let (mut s2c, mut s2d) = (
            _mm256_loadu_pd(acc.s2.as_ptr().add(8)),
            _mm256_loadu_pd(acc.s2.as_ptr().add(12)),
        );
        let mut kmin = _mm256_loadu_si256(acc.kmin.as_ptr().cast());
        let mut kmax = _mm256_loadu_si256(acc.kmax.as_ptr().cast());
        let mut kz = _mm256_loadu_si256(acc.kzeros.as_ptr().cast());
        let kv = _mm256_set1_pd(k);
        let magnitude = _mm256_set1_epi16(0x7FFF);
        let zero = _mm256_setzero_si256();
        let base = bytes.as_ptr();
        let mut i = 0;
        while i < n {
            let p = base.add(2 * i);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(PREFETCH_AHEAD).cast());
            let v = _mm256_loadu_si256(p.cast());
            let key = _mm256_xor_si256(v, _mm256_and_si256(_mm256_srai_epi16::<15>(v), magnitude));
            kmin = _mm256_min_epi16(kmin, key);
            kmax = _mm256_max_epi16(kmax, key);
            kz = _mm256_sub_epi16(kz, _mm256_cmpeq_epi16(_mm256_and_si256(v, magnitude), zero));
            let xa = _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(
                _mm256_castsi256_si128(v),
            )));
            let xb = _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(
                _mm256_extracti128_si256::<1>(v),
            )));
            let da = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(xa)), kv);
            let db = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps::<1>(xa)), kv);
            let dc = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(xb)), kv);
            let dd = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps::<1>(xb)), kv);
            s1a = _mm256_add_pd(s1a, da);
            s1b = _mm256_add_pd(s1b, db);
            s1c = _mm256_add_pd(s1c, dc);
            s1d = _mm256_add_pd(s1d, dd);
            s2a = _mm256_fmadd_pd(da, da, s2a);
            s2b = _mm256_fmadd_pd(db, db, s2b);
            s2c = _mm256_fmadd_pd(dc, dc, s2c);
            s2d = _mm256_fmadd_pd(dd, dd, s2d);
            i += 16;
        }
        let s1 = acc.s1.as_mut_ptr();
        let s2 = acc.s2.as_mut_ptr();
        _mm256_storeu_pd(s1, s1a);
        _mm256_storeu_pd(s1.add(4), s1b);
        _mm256_storeu_pd(s1.add(8), s1c);
        _mm256_storeu_pd(s1.add(12), s1d);
        _mm256_storeu_pd(s2, s2a);
        _mm256_storeu_pd(s2.add(4), s2b);
        _mm256_storeu_pd(s2.add(8), s2c);
        _mm256_storeu_pd(s2.add(12), s2d);
        _mm256_storeu_si256(acc.kmin.as_mut_ptr().cast(), kmin);
        _mm256_storeu_si256(acc.kmax.as_mut_ptr().cast(), kmax);
        _mm256_storeu_si256(acc.kzeros.as_mut_ptr().cast(), kz);
        n
    }
}
