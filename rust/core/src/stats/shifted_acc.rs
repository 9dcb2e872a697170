//! The lane accumulators of the shifted kernel ([`super::shifted`]) and the portable loop that
//! fills them: the one definition of what each lane holds and how an element updates it, shared
//! by the kernel and its AVX2 and AVX-512 body loops (which must match the portable loop bit for
//! bit).

use crate::elements::le;
use crate::Dtype;
use half::f16;

/// f64 sum lanes: element i goes to lane i % 16.
pub(super) const LANES: usize = 16;
/// f32 min/max/zero lanes: element i goes to lane i % 8.
pub(super) const LANES32: usize = 8;

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
pub(super) fn bf16_of_key(key: i16) -> f64 {
    let bits = bf16_key(key as u16) as u16;
    f64::from(f32::from_bits(u32::from(bits) << 16))
}

/// The raw bits of BF16 element `i`.
#[inline(always)]
fn bf16_bits(bytes: &[u8], i: usize) -> u16 {
    u16::from_le_bytes(le(&bytes[2 * i..]))
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

/// The portable loop over elements `range`.
#[inline(always)]
pub(super) fn portable(
    dtype: Dtype,
    bytes: &[u8],
    range: std::ops::Range<usize>,
    k: f64,
    acc: &mut Acc,
) {
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
