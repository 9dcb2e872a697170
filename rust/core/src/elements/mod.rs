//! Element decoding for every safetensors dtype: exact conversion of raw little-endian bytes to
//! `f64`, and classification of each element as NaN, ±Inf, zero or finite by its format's rules.
//!
//! Used by the statistics engine and meant for the numeric diff. All decoders are exact: every
//! value of every format up to F32 is representable in `f64`; integers above 2^53 round.

pub mod minifloat;
pub mod packed;

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
    if bytes.len() % unit != 0 {
        return Err(Error::InvalidArgument(format!(
            "{} bytes is not a whole number of {dtype} units ({unit} bytes)",
            bytes.len()
        )));
    }
    decode_units(dtype, bytes, out);
    Ok(())
}

/// [`decode_f64`] without the length check: a trailing partial unit is ignored.
#[inline]
pub(crate) fn decode_units(dtype: Dtype, bytes: &[u8], out: &mut Vec<f64>) {
    macro_rules! ints {
        ($t:ty) => {
            out.extend(
                bytes
                    .chunks_exact(size_of::<$t>())
                    .map(|c| <$t>::from_le_bytes(le(c)) as f64),
            )
        };
    }
    match dtype {
        Dtype::Bool => out.extend(bytes.iter().map(|&b| f64::from(u8::from(b != 0)))),
        Dtype::U8 => out.extend(bytes.iter().map(|&b| f64::from(b))),
        Dtype::I8 => out.extend(bytes.iter().map(|&b| f64::from(b as i8))),
        Dtype::I16 => ints!(i16),
        Dtype::U16 => ints!(u16),
        Dtype::I32 => ints!(i32),
        Dtype::U32 => ints!(u32),
        Dtype::I64 => ints!(i64),
        Dtype::U64 => ints!(u64),
        Dtype::F16 => out.extend(
            bytes
                .chunks_exact(2)
                .map(|c| f16::from_bits(u16::from_le_bytes(le(c))).to_f64()),
        ),
        Dtype::Bf16 => out.extend(bytes.chunks_exact(2).map(|c| {
            // bf16 is the top half of an f32: the shift is exact, including NaN and Inf.
            f64::from(f32::from_bits(u32::from(u16::from_le_bytes(le(c))) << 16))
        })),
        Dtype::F32 | Dtype::C64 => out.extend(
            bytes
                .chunks_exact(4)
                .map(|c| f64::from(f32::from_le_bytes(le(c)))),
        ),
        Dtype::F64 => out.extend(bytes.chunks_exact(8).map(|c| f64::from_le_bytes(le(c)))),
        Dtype::F8E4M3 | Dtype::F8E5M2 | Dtype::F8E8M0 | Dtype::F8E4M3Fnuz | Dtype::F8E5M2Fnuz => {
            if let Some(table) = byte_table(dtype) {
                out.extend(bytes.iter().map(|&b| table[b as usize]));
            }
        }
        Dtype::F4 => {
            for &b in bytes {
                let [lo, hi] = packed::f4_nibbles(b);
                out.push(E2M1FN_TABLE[lo as usize]);
                out.push(E2M1FN_TABLE[hi as usize]);
            }
        }
        Dtype::F6E2M3 | Dtype::F6E3M2 => {
            let table = if dtype == Dtype::F6E2M3 {
                &E2M3FN_TABLE
            } else {
                &E3M2FN_TABLE
            };
            for g in bytes.chunks_exact(3) {
                let codes = packed::f6_codes(le(g));
                out.extend(codes.iter().map(|&c| table[c as usize]));
            }
        }
    }
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
