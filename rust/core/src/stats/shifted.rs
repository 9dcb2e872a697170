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
use crate::elements::le;
use crate::Dtype;
use half::f16;

/// f64 sum lanes: element i goes to lane i % 16.
const LANES: usize = 16;
/// f32 min/max/zero lanes: element i goes to lane i % 8.
const LANES32: usize = 8;

/// Lane accumulators: f32 min, max, zero count (F16, F32) or their BF16 integer-key versions;
/// f64 Σd, Σd².
#[derive(Clone, Copy)]
pub(super) struct Acc {
    pub lo: [f32; LANES32],
    pub hi: [f32; LANES32],
    pub zeros: [f32; LANES32],
    /// BF16: smallest [`bf16_key`] per lane (element i → lane i % 16).
    pub kmin: [i16; LANES],
    /// BF16: largest key per lane.
    pub kmax: [i16; LANES],
    /// BF16: zero count per lane (at most 256 per block and lane).
    pub kzeros: [i16; LANES],
    pub s1: [f64; LANES],
    pub s2: [f64; LANES],
}

impl Acc {
    pub const NEW: Acc = Acc {
        lo: [f32::INFINITY; LANES32],
        hi: [f32::NEG_INFINITY; LANES32],
        zeros: [0.0; LANES32],
        kmin: [i16::MAX; LANES],
        kmax: [i16::MIN; LANES],
        kzeros: [0; LANES],
        s1: [0.0; LANES],
        s2: [0.0; LANES],
    };

    #[inline(always)]
    /// Adds element `i` (index within the block) with value `x`.
    fn step(&mut self, i: usize, x: f32, k: f64) {
        let m = i % LANES32;
        self.lo[m] = if x < self.lo[m] { x } else { self.lo[m] };
        self.hi[m] = if x > self.hi[m] { x } else { self.hi[m] };
        self.zeros[m] += if x == 0.0 { 1.0 } else { 0.0 };
        let l = i % LANES;
        let d = f64::from(x) - k;
        self.s1[l] += d;
        self.s2[l] = d.mul_add(d, self.s2[l]);
    }

    /// Adds BF16 element `i` with raw bits `b`: min, max and zeros on integer keys (cheaper
    /// than float compares in the vector loop), sums as for the other dtypes.
    #[inline(always)]
    fn step_bf16(&mut self, i: usize, b: u16, k: f64) {
        let l = i % LANES;
        let key = bf16_key(b);
        self.kmin[l] = self.kmin[l].min(key);
        self.kmax[l] = self.kmax[l].max(key);
        self.kzeros[l] += i16::from(b & 0x7FFF == 0);
        let d = f64::from(f32::from_bits(u32::from(b) << 16)) - k;
        self.s1[l] += d;
        self.s2[l] = d.mul_add(d, self.s2[l]);
    }
}

/// A signed integer whose order is the float order of non-NaN BF16 bits (−0 sorts just below
/// +0): negative values get their magnitude bits flipped. Its own inverse.
#[inline(always)]
pub(super) fn bf16_key(b: u16) -> i16 {
    let b = b as i16;
    b ^ ((b >> 15) & 0x7FFF)
}

/// The BF16 value of a key.
fn bf16_of_key(key: i16) -> f64 {
    let bits = bf16_key(key as u16) as u16;
    f64::from(f32::from_bits(u32::from(bits) << 16))
}

/// The raw bits of BF16 element `i`.
#[inline(always)]
fn bf16_bits(bytes: &[u8], i: usize) -> u16 {
    u16::from_le_bytes(le(&bytes[2 * i..]))
}

/// True for the dtypes this kernel handles.
pub(crate) fn applies(dtype: Dtype) -> bool {
    matches!(dtype, Dtype::Bf16 | Dtype::F16 | Dtype::F32)
}

/// Element `i` of a BF16/F16/F32 byte slice as f32 (exact).
#[inline(always)]
pub(crate) fn load(dtype: Dtype, bytes: &[u8], i: usize) -> f32 {
    match dtype {
        Dtype::Bf16 => f32::from_bits(u32::from(u16::from_le_bytes(le(&bytes[2 * i..]))) << 16),
        Dtype::F16 => f16::from_bits(u16::from_le_bytes(le(&bytes[2 * i..]))).to_f32(),
        _ => f32::from_le_bytes(le(&bytes[4 * i..])),
    }
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

/// The portable loop over elements `range`.
#[inline(always)]
fn portable(dtype: Dtype, bytes: &[u8], range: std::ops::Range<usize>, k: f64, acc: &mut Acc) {
    if dtype == Dtype::Bf16 {
        for i in range {
            acc.step_bf16(i, bf16_bits(bytes, i), k);
        }
    } else {
        for i in range {
            acc.step(i, load(dtype, bytes, i), k);
        }
    }
}

/// The portable body loop, for tests comparing it with the vector one.
#[cfg(test)]
pub(super) fn run_portable(dtype: Dtype, bytes: &[u8], n: usize, k: f64) -> Acc {
    let mut acc = Acc::NEW;
    portable(dtype, bytes, 0..n / LANES * LANES, k, &mut acc);
    acc
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
