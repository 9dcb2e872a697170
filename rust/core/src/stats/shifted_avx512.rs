//! AVX-512 body loops of the shifted kernel ([`super::shifted`]), lane for lane the same
//! operations in the same order as the portable and AVX2 loops (Σd² by fused multiply-add on
//! all of them), so all three give the same bits.
//!
//! BF16, 32 elements (one 64-byte line) per step. Min/max (as raw-bit extremes, turned into the
//! keys of [`Acc`] at the end) and zero counts run in 32 lanes, folded into the 16 of [`Acc`] at
//! the end: minima, maxima and integer counts do not depend on order. The f32 values come
//! without any cross-lane shuffle: `v << 16` in 32-bit lanes gives the even elements,
//! `v & 0xFFFF0000` the odd ones, so the 16 f64 sum lanes are kept as an even register (lanes
//! 0, 2, ..., 14) and an odd one (1, 3, ..., 15). Lane `l` still sees elements `l, l+16, ...`
//! in order: each register takes the low half of its step before the high half.
//!
//! F16 and F32, 16 elements per step: f64 sums in two registers of 8 lanes; min/max/zeros in
//! 8 f32 lanes exactly as the AVX2 loop (the order of ±0 ties there must not change). Counting
//! zeros in 16 lanes instead measured slower.

use super::shifted_acc::{bf16_key, Acc};
use crate::elements::cpu::has_avx512;
use crate::Dtype;
use std::arch::x86_64::*;

/// How far ahead (bytes) to prefetch: measured on BF16 at 2 threads from DRAM, 8 KiB gave a
/// stats/floor ratio of about 0.79 against 0.71 for 2 KiB (the AVX2 loops' distance), because
/// this loop asks for lines faster; 12 and 16 KiB were no better.
const PREFETCH_AHEAD: usize = 8192;

/// Runs the first `n` elements (rounded down to a multiple of 16, BF16: 32) into `acc` when the
/// CPU has AVX-512; returns how many were done (0 when it could not run), a multiple of 16.
pub(super) fn body(dtype: Dtype, bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    if !has_avx512() {
        return 0;
    }
    match dtype {
        // SAFETY: AVX-512 F/BW/VL, FMA and F16C are present (checked above).
        Dtype::Bf16 => unsafe { run_bf16(bytes, n, k, acc) },
        // SAFETY: as above.
        Dtype::F16 => unsafe { run_f16(bytes, n, k, acc) },
        // SAFETY: as above.
        Dtype::F32 => unsafe { run_f32(bytes, n, k, acc) },
        _ => 0,
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma,f16c")]
unsafe fn run_f32(bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    // SAFETY: the features `run` needs are enabled here.
    unsafe { run::<2>(bytes, n, k, acc) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma,f16c")]
unsafe fn run_f16(bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    // SAFETY: the features `run` needs are enabled here.
    unsafe { run::<1>(bytes, n, k, acc) }
}

/// Loads 8 elements at `p` as f32 lanes. `KIND`: 1 F16, 2 F32.
///
/// # Safety
/// 8 elements must be readable at `p`, and the CPU must have AVX2 and F16C.
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

/// The F16/F32 loop; inlined into a wrapper that enables the features.
///
/// # Safety
/// The CPU must have AVX-512 F and VL, AVX2, FMA and F16C.
#[inline(always)]
unsafe fn run<const KIND: u8>(bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    let width = if KIND == 2 { 4 } else { 2 };
    let n = n.min(bytes.len() / width) / 16 * 16;
    // SAFETY: the caller guarantees the CPU features. Every pointer access is in bounds: the
    // arrays of `acc` hold 8 f32 or 16 f64, read and written in groups of 8, and the loop reads
    // 16 elements at element i with i + 16 <= n <= bytes.len() / width. All loads and stores
    // are unaligned ones. The prefetch address uses wrapping arithmetic; prefetches never fault.
    unsafe {
        let (mut s1a, mut s1b) = (
            _mm512_loadu_pd(acc.s1.as_ptr()),
            _mm512_loadu_pd(acc.s1.as_ptr().add(8)),
        );
        let (mut s2a, mut s2b) = (
            _mm512_loadu_pd(acc.s2.as_ptr()),
            _mm512_loadu_pd(acc.s2.as_ptr().add(8)),
        );
        let mut lo = _mm256_loadu_ps(acc.lo.as_ptr());
        let mut hi = _mm256_loadu_ps(acc.hi.as_ptr());
        let mut z = _mm256_loadu_ps(acc.zeros.as_ptr());
        let kv = _mm512_set1_pd(k);
        let zero = _mm256_setzero_ps();
        let one = _mm256_set1_ps(1.0);
        let base = bytes.as_ptr();
        let mut i = 0;
        while i < n {
            let p = base.add(i * width);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(PREFETCH_AHEAD).cast());
            let xa = load8::<KIND>(p);
            let xb = load8::<KIND>(p.add(8 * width));
            // Lane m of 8 takes element m, then m + 8: the AVX2 loop's order.
            lo = _mm256_min_ps(xa, lo);
            hi = _mm256_max_ps(xa, hi);
            z = _mm256_mask_add_ps(z, _mm256_cmp_ps_mask::<_CMP_EQ_OQ>(xa, zero), z, one);
            lo = _mm256_min_ps(xb, lo);
            hi = _mm256_max_ps(xb, hi);
            z = _mm256_mask_add_ps(z, _mm256_cmp_ps_mask::<_CMP_EQ_OQ>(xb, zero), z, one);
            let da = _mm512_sub_pd(_mm512_cvtps_pd(xa), kv);
            let db = _mm512_sub_pd(_mm512_cvtps_pd(xb), kv);
            s1a = _mm512_add_pd(s1a, da);
            s1b = _mm512_add_pd(s1b, db);
            s2a = _mm512_fmadd_pd(da, da, s2a);
            s2b = _mm512_fmadd_pd(db, db, s2b);
            i += 16;
        }
        _mm512_storeu_pd(acc.s1.as_mut_ptr(), s1a);
        _mm512_storeu_pd(acc.s1.as_mut_ptr().add(8), s1b);
        _mm512_storeu_pd(acc.s2.as_mut_ptr(), s2a);
        _mm512_storeu_pd(acc.s2.as_mut_ptr().add(8), s2b);
        _mm256_storeu_ps(acc.lo.as_mut_ptr(), lo);
        _mm256_storeu_ps(acc.hi.as_mut_ptr(), hi);
        _mm256_storeu_ps(acc.zeros.as_mut_ptr(), z);
        n
    }
}

/// Splits 16 sum lanes into the even ones and the odd ones.
fn deinterleave(s: &[f64; 16]) -> ([f64; 8], [f64; 8]) {
    (
        std::array::from_fn(|j| s[2 * j]),
        std::array::from_fn(|j| s[2 * j + 1]),
    )
}

/// Merges even and odd lanes back into 16.
fn interleave(even: &[f64; 8], odd: &[f64; 8]) -> [f64; 16] {
    std::array::from_fn(|l| if l % 2 == 0 { even[l / 2] } else { odd[l / 2] })
}

/// Per key lane, over 32 lanes: the smallest and largest raw bits as unsigned, the largest as
/// signed. That is all the min/max keys need, in three instructions instead of five: negative
/// values have the sign bit, so the unsigned largest is the most negative value when there is a
/// negative one, and the signed largest is the most positive when there is a positive one.
struct RawExtremes {
    umin: [u16; 32],
    umax: [u16; 32],
    smax: [i16; 32],
}

impl RawExtremes {
    /// Folds key lanes `l` and `l + 16` into `acc`'s key lane `l` (order does not matter for
    /// minima and maxima, so this is exact).
    fn fold_into(&self, acc: &mut Acc) {
        for l in 0..16 {
            let umin = self.umin[l].min(self.umin[l + 16]);
            let umax = self.umax[l].max(self.umax[l + 16]);
            let smax = self.smax[l].max(self.smax[l + 16]);
            // Negative values (sign bit set) are unsigned-larger than all positive ones.
            let min_bits = if umax >= 0x8000 { umax } else { umin };
            let max_bits = if umin < 0x8000 { smax as u16 } else { umin };
            acc.kmin[l] = acc.kmin[l].min(bf16_key(min_bits));
            acc.kmax[l] = acc.kmax[l].max(bf16_key(max_bits));
        }
    }
}

/// The BF16 loop (see the module docs).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
unsafe fn run_bf16(bytes: &[u8], n: usize, k: f64, acc: &mut Acc) -> usize {
    let n = n.min(bytes.len() / 2) / 32 * 32;
    if n == 0 {
        return 0;
    }
    let (s1e, s1o) = deinterleave(&acc.s1);
    let (s2e, s2o) = deinterleave(&acc.s2);
    let mut out = [[0.0f64; 8]; 4];
    let mut raw = RawExtremes {
        umin: [0; 32],
        umax: [0; 32],
        smax: [0; 32],
    };
    // SAFETY: AVX-512 F/BW/VL, AVX2 and FMA are enabled here. Every pointer access is in bounds: the
    // local arrays hold 8 f64 or 32 16-bit lanes and `acc.kzeros` 16 i16, each read and written
    // whole; the loop reads 32 elements (64 bytes) at element i with i + 32 <= n <=
    // bytes.len() / 2. All loads and stores are unaligned ones. The prefetch address uses
    // wrapping arithmetic and prefetches never fault.
    unsafe {
        let mut s1e = _mm512_loadu_pd(s1e.as_ptr());
        let mut s1o = _mm512_loadu_pd(s1o.as_ptr());
        let mut s2e = _mm512_loadu_pd(s2e.as_ptr());
        let mut s2o = _mm512_loadu_pd(s2o.as_ptr());
        let mut umin = _mm512_set1_epi16(-1);
        let mut umax = _mm512_setzero_si512();
        let mut smax = _mm512_set1_epi16(i16::MIN);
        // Zero-count lanes 16..32 start at 0 and are added into 0..16 at the end.
        let mut kz = _mm512_zextsi256_si512(_mm256_loadu_si256(acc.kzeros.as_ptr().cast()));
        let kv = _mm512_set1_pd(k);
        let magnitude = _mm512_set1_epi16(0x7FFF);
        let high_half = _mm512_set1_epi32(0xFFFF_0000u32 as i32);
        let one = _mm512_set1_epi16(1);
        // Macros, not closures: closures would not inherit the enabled target features.
        macro_rules! add {
            ($s1:ident, $s2:ident, $x:expr) => {{
                let d = _mm512_sub_pd(_mm512_cvtps_pd($x), kv);
                $s1 = _mm512_add_pd($s1, d);
                $s2 = _mm512_fmadd_pd(d, d, $s2);
            }};
        }
        let base = bytes.as_ptr();
        let mut i = 0;
        while i < n {
            let p = base.add(2 * i);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(PREFETCH_AHEAD).cast());
            let v = _mm512_loadu_si512(p.cast());
            umin = _mm512_min_epu16(umin, v);
            umax = _mm512_max_epu16(umax, v);
            smax = _mm512_max_epi16(smax, v);
            kz = _mm512_mask_add_epi16(kz, _mm512_testn_epi16_mask(v, magnitude), kz, one);
            // 32-bit lane j: element 2j in its low half, 2j + 1 in its high half. Widened in
            // 512-bit lanes (one shift, one and) and split into 256-bit halves after: one
            // instruction fewer per step than splitting the raw bits first.
            let (even, odd) = (_mm512_slli_epi32::<16>(v), _mm512_and_si512(v, high_half));
            let (even_hi, odd_hi) = (
                _mm512_extracti64x4_epi64::<1>(even),
                _mm512_extracti64x4_epi64::<1>(odd),
            );
            add!(s1e, s2e, _mm256_castsi256_ps(_mm512_castsi512_si256(even)));
            add!(s1o, s2o, _mm256_castsi256_ps(_mm512_castsi512_si256(odd)));
            add!(s1e, s2e, _mm256_castsi256_ps(even_hi));
            add!(s1o, s2o, _mm256_castsi256_ps(odd_hi));
            i += 32;
        }
        for (o, r) in out.iter_mut().zip([s1e, s1o, s2e, s2o]) {
            _mm512_storeu_pd(o.as_mut_ptr(), r);
        }
        _mm512_storeu_si512(raw.umin.as_mut_ptr().cast(), umin);
        _mm512_storeu_si512(raw.umax.as_mut_ptr().cast(), umax);
        _mm512_storeu_si512(raw.smax.as_mut_ptr().cast(), smax);
        let kz_sum = _mm256_add_epi16(
            _mm512_castsi512_si256(kz),
            _mm512_extracti64x4_epi64::<1>(kz),
        );
        _mm256_storeu_si256(acc.kzeros.as_mut_ptr().cast(), kz_sum);
    }
    raw.fold_into(acc);
    acc.s1 = interleave(&out[0], &out[1]);
    acc.s2 = interleave(&out[2], &out[3]);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_whole_steps_when_the_cpu_has_avx512() {
        // The bitwise comparisons with the other paths only mean something if this path runs.
        let bytes = vec![0x3Cu8; 4 * 100];
        for (dtype, step) in [(Dtype::Bf16, 32), (Dtype::F16, 16), (Dtype::F32, 16)] {
            let mut acc = Acc::NEW;
            let done = body(dtype, &bytes, 90, 0.0, &mut acc);
            let expected = if has_avx512() { 90 / step * step } else { 0 };
            assert_eq!(done, expected, "{dtype}");
        }
        let mut acc = Acc::NEW;
        assert_eq!(body(Dtype::F64, &bytes, 16, 0.0, &mut acc), 0);
    }

    #[test]
    fn bf16_keys_from_raw_extremes_match_the_portable_keys() {
        // Lanes that see only negative values, only positive ones, only zeros of either sign,
        // or a mix: the raw-bit extremes must give the same per-lane keys as the portable loop.
        let mut s = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..200 {
            let n = 32 * (1 + (next() % 8) as usize);
            let kinds: Vec<u64> = (0..16).map(|_| next() % 5).collect();
            let bytes: Vec<u8> = (0..n)
                .flat_map(|i| {
                    // Clear the exponent's top bit: finite values only, so the sums compare too.
                    let r = (next() as u16) & 0xBFFF;
                    let bits = match kinds[i % 16] {
                        0 => r | 0x8000,
                        1 => r & 0x7FFF,
                        2 => (r & 0x8000) * u16::from(next() % 3 > 0),
                        3 => [0x8000, 0x0000][(next() % 2) as usize],
                        _ => r,
                    };
                    bits.to_le_bytes()
                })
                .collect();
            let expected = crate::stats::shifted_acc::run_portable(Dtype::Bf16, &bytes, n, 0.5);
            let mut got = Acc::NEW;
            if body(Dtype::Bf16, &bytes, n, 0.5, &mut got) == 0 {
                return; // No AVX-512 here.
            }
            assert_eq!((got.kmin, got.kmax), (expected.kmin, expected.kmax));
            assert_eq!(got.kzeros, expected.kzeros);
            let bits = |v: [f64; 16]| v.map(f64::to_bits);
            assert_eq!(bits(got.s1), bits(expected.s1));
            assert_eq!(bits(got.s2), bits(expected.s2));
        }
    }
}
