//! Element decoding for every safetensors dtype: exact conversion of raw little-endian bytes to
//! `f64`, and classification of each element as NaN, ±Inf, zero or finite by its format's rules.
//!
//! Used by the statistics engine and meant for the numeric diff. All decoders are exact: every
//! value of every format up to F32 is representable in `f64`; integers above 2^53 round.

pub(crate) mod cpu;
pub use cpu::kernel_level;
pub mod minifloat;
pub mod packed;
#[cfg(target_arch = "x86_64")]
mod simd;

use crate::{Dtype, Error, Result};
use half::f16;
use minifloat::{
    E2M1FN_TABLE, E2M3FN_TABLE, E3M2FN_TABLE, E4M3FNUZ_TABLE, E4M3FN_TABLE, E5M2FNUZ_TABLE,
    E5M2_TABLE, E8M0FNU_TABLE,
};

/// What kind of value an element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElementClass {
    /// Not a number.
    Nan,
    /// Positive infinity.
    PosInf,
    /// Negative infinity.
    NegInf,
    /// +0 or −0.
    Zero,
    /// Any other finite value.
    Finite,
}

/// The class of a decoded value. Because every decoder maps exactly the NaN (infinity) encodings
/// of its format to NaN (infinity), this equals the format's raw-bit classification.
#[inline(always)]
pub fn classify(x: f64) -> ElementClass {
    if x.is_nan() {
        ElementClass::Nan
    } else if x == f64::INFINITY {
        ElementClass::PosInf
    } else if x == f64::NEG_INFINITY {
        ElementClass::NegInf
    } else if x == 0.0 {
        ElementClass::Zero
    } else {
        ElementClass::Finite
    }
}

/// The 256-entry value table of an 8-bit float dtype, `None` for any other dtype.
pub fn byte_table(dtype: Dtype) -> Option<&'static [f64; 256]> {
    match dtype {
        Dtype::F8E4M3 => Some(&E4M3FN_TABLE),
        Dtype::F8E5M2 => Some(&E5M2_TABLE),
        Dtype::F8E8M0 => Some(&E8M0FNU_TABLE),
        Dtype::F8E4M3Fnuz => Some(&E4M3FNUZ_TABLE),
        Dtype::F8E5M2Fnuz => Some(&E5M2FNUZ_TABLE),
        _ => None,
    }
}

/// The smallest whole number of bytes holding whole elements: the element size, 1 for F4
/// (two elements) and 3 for F6 (four elements).
pub fn unit_bytes(dtype: Dtype) -> usize {
    match dtype {
        Dtype::F4 => 1,
        Dtype::F6E2M3 | Dtype::F6E3M2 => 3,
        other => other.size().unwrap_or(1) as usize,
    }
}

/// Number of elements in one [`unit_bytes`] unit.
pub fn unit_elems(dtype: Dtype) -> usize {
    match dtype {
        Dtype::F4 => 2,
        Dtype::F6E2M3 | Dtype::F6E3M2 => 4,
        _ => 1,
    }
}

/// The first `N` bytes of `c` as an array (callers pass exact-size chunks).
#[inline(always)]
pub(crate) fn le<const N: usize>(c: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    let n = c.len().min(N);
    a[..n].copy_from_slice(&c[..n]);
    a
}

/// Appends the values of `bytes` (whole units of `dtype`, see [`unit_bytes`]) to `out`.
///
/// Floats decode exactly. Integers convert to the nearest `f64`. BOOL gives 0.0 or 1.0 (any
/// non-zero byte is true). C64 appends two values per element: real part, then imaginary part.
/// Returns [`Error::InvalidArgument`] when `bytes` is not a whole number of units.
pub fn decode_f64(dtype: Dtype, bytes: &[u8], out: &mut Vec<f64>) -> Result<()> {
    let unit = unit_bytes(dtype);
    if !bytes.len().is_multiple_of(unit) {
        return Err(Error::InvalidArgument(format!(
            "{} bytes is not a whole number of {dtype} units ({unit} bytes)",
            bytes.len()
        )));
    }
    let first = out.len();
    out.resize(first + values_in(dtype, bytes.len()), 0.0);
    decode_into(dtype, bytes, &mut out[first..]);
    Ok(())
}

/// How many `f64` values [`decode_f64`] produces for `len` bytes (two per C64 element).
pub fn values_in(dtype: Dtype, len: usize) -> usize {
    let values_per_unit = if dtype == Dtype::C64 {
        2
    } else {
        unit_elems(dtype)
    };
    len / unit_bytes(dtype) * values_per_unit
}

/// Decodes the whole units of `bytes` into the front of `out`, as [`decode_f64`] does; stops when
/// either runs out. Returns how many values were written.
#[inline]
pub fn decode_into(dtype: Dtype, bytes: &[u8], out: &mut [f64]) -> usize {
    let n = values_in(dtype, bytes.len()).min(out.len());
    let out = &mut out[..n];
    macro_rules! each {
        ($width:expr, |$c:ident| $value:expr) => {
            for (o, $c) in out.iter_mut().zip(bytes.chunks_exact($width)) {
                *o = $value;
            }
        };
    }
    macro_rules! ints {
        ($t:ty) => {
            each!(size_of::<$t>(), |c| <$t>::from_le_bytes(le(c)) as f64)
        };
    }
    match dtype {
        Dtype::Bool => each!(1, |c| f64::from(u8::from(c[0] != 0))),
        Dtype::U8 => each!(1, |c| f64::from(c[0])),
        Dtype::I8 => each!(1, |c| f64::from(c[0] as i8)),
        Dtype::I16 => ints!(i16),
        Dtype::U16 => ints!(u16),
        Dtype::I32 => ints!(i32),
        Dtype::U32 => ints!(u32),
        Dtype::I64 => ints!(i64),
        Dtype::U64 => ints!(u64),
        Dtype::F16 => each!(2, |c| f16::from_bits(u16::from_le_bytes(le(c))).to_f64()),
        // bf16 is the top half of an f32: the shift is exact, including NaN and Inf.
        Dtype::Bf16 => {
            #[cfg(target_arch = "x86_64")]
            let (bytes, out) = if cpu::has_avx2() {
                // SAFETY: the CPU supports AVX2, checked just above.
                let done = unsafe { simd::decode_bf16(bytes, out) };
                (&bytes[2 * done..], &mut out[done..])
            } else {
                (bytes, out)
            };
            for (o, c) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                *o = f64::from(f32::from_bits(u32::from(u16::from_le_bytes(le(c))) << 16));
            }
        }
        Dtype::F32 | Dtype::C64 => each!(4, |c| f64::from(f32::from_le_bytes(le(c)))),
        Dtype::F64 => each!(8, |c| f64::from_le_bytes(le(c))),
        Dtype::F8E4M3 | Dtype::F8E5M2 | Dtype::F8E8M0 | Dtype::F8E4M3Fnuz | Dtype::F8E5M2Fnuz => {
            if let Some(table) = byte_table(dtype) {
                each!(1, |c| table[c[0] as usize]);
            }
        }
        Dtype::F4 => {
            for (o, &b) in out.chunks_exact_mut(2).zip(bytes) {
                let [lo, hi] = packed::f4_nibbles(b);
                o[0] = E2M1FN_TABLE[lo as usize];
                o[1] = E2M1FN_TABLE[hi as usize];
            }
        }
        Dtype::F6E2M3 | Dtype::F6E3M2 => {
            let table = if dtype == Dtype::F6E2M3 {
                &E2M3FN_TABLE
            } else {
                &E3M2FN_TABLE
            };
            for (o, g) in out.chunks_exact_mut(4).zip(bytes.chunks_exact(3)) {
                let codes = packed::f6_codes(le(g));
                for k in 0..4 {
                    o[k] = table[codes[k] as usize];
                }
            }
        }
    }
    n
}

/// Classifies raw element bits by the format's own rules (for integer and BOOL dtypes: zero or
/// finite). For F4/F6 pass the code, for C64 the real part's bits in the low 32 and the imaginary
/// part's in the high 32 (NaN if either is NaN, else ±Inf as the infinite part, else zero if both
/// are zero). The reference the decoders are tested against.
pub fn classify_bits(dtype: Dtype, bits: u64) -> ElementClass {
    use minifloat::*;
    let mini = |f: Minifloat| f.classify(bits as u8);
    match dtype {
        Dtype::F8E4M3 => mini(E4M3FN),
        Dtype::F8E5M2 => mini(E5M2),
        Dtype::F8E8M0 => mini(E8M0FNU),
        Dtype::F8E4M3Fnuz => mini(E4M3FNUZ),
        Dtype::F8E5M2Fnuz => mini(E5M2FNUZ),
        Dtype::F4 => mini(E2M1FN),
        Dtype::F6E2M3 => mini(E2M3FN),
        Dtype::F6E3M2 => mini(E3M2FN),
        Dtype::F16 => ieee_bits(bits & 0xFFFF, 10, 5),
        Dtype::Bf16 => ieee_bits(bits & 0xFFFF, 7, 8),
        Dtype::F32 => ieee_bits(bits & 0xFFFF_FFFF, 23, 8),
        Dtype::F64 => ieee_bits(bits, 52, 11),
        Dtype::C64 => {
            let re = ieee_bits(bits & 0xFFFF_FFFF, 23, 8);
            let im = ieee_bits(bits >> 32, 23, 8);
            match (re, im) {
                (ElementClass::Nan, _) | (_, ElementClass::Nan) => ElementClass::Nan,
                (ElementClass::Zero, ElementClass::Zero) => ElementClass::Zero,
                (inf @ (ElementClass::PosInf | ElementClass::NegInf), _) => inf,
                (_, inf @ (ElementClass::PosInf | ElementClass::NegInf)) => inf,
                _ => ElementClass::Finite,
            }
        }
        _ if bits == 0 => ElementClass::Zero,
        _ => ElementClass::Finite,
    }
}

/// IEEE classification of a `1 + exp_bits + man_bits` wide pattern.
fn ieee_bits(bits: u64, man_bits: u32, exp_bits: u32) -> ElementClass {
    let man = bits & ((1 << man_bits) - 1);
    let exp = (bits >> man_bits) & ((1 << exp_bits) - 1);
    let negative = (bits >> (man_bits + exp_bits)) & 1 == 1;
    match (exp == (1 << exp_bits) - 1, man == 0) {
        (true, false) => ElementClass::Nan,
        (true, true) if negative => ElementClass::NegInf,
        (true, true) => ElementClass::PosInf,
        _ if exp == 0 && man == 0 => ElementClass::Zero,
        _ => ElementClass::Finite,
    }
}

#[cfg(test)]
mod tests;
