//! The raw tensor bytes handed to the vocab analysis, and their checked little-endian decoding.
//!
//! Decoding never trusts the header: the element count is computed with checked arithmetic and
//! must match the byte length exactly before anything is allocated.

use crate::Dtype;
use half::{bf16, f16};
use std::path::PathBuf;

/// Most elements a `d2t` or `t2d` may have: 64 times the largest real vocabulary (~262k), so a
/// hostile multi-gigabyte tensor is reported instead of decoded into memory.
pub const MAX_VOCAB_ELEMENTS: u64 = 1 << 24;

/// One tensor as read from a checkpoint: header facts plus its raw little-endian bytes.
#[derive(Debug, Clone)]
pub struct RawTensor<'a> {
    /// Tensor name in the checkpoint (`"d2t"`, `"t2d"`, `"model.d2t"`, ...).
    pub name: String,
    /// Declared element type.
    pub dtype: Dtype,
    /// Declared shape.
    pub shape: Vec<u64>,
    /// The tensor's bytes (little-endian, row-major), exactly as stored.
    pub data: &'a [u8],
    /// The file holding the tensor, when known; copied into findings.
    pub file: Option<PathBuf>,
}

/// Decoded element values, widened without loss.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Values {
    /// Integer and BOOL elements.
    Int(Vec<i64>),
    /// Floating-point elements (F16, BF16, F32, F64 all widen exactly to f64).
    Float(Vec<f64>),
}

/// Why a tensor's bytes cannot be decoded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Undecodable {
    /// The shape's element count overflows, or the byte length does not match it.
    Length {
        /// Bytes the shape and dtype call for; `None` when that overflows.
        expected: Option<u64>,
        /// Bytes actually present.
        actual: u64,
    },
    /// A dtype this analysis does not decode (FP8, FP4, FP6, C64).
    Dtype,
    /// More than [`MAX_VOCAB_ELEMENTS`] elements.
    TooMany {
        /// The element count.
        numel: u64,
    },
    /// A U64 element too large for i64 (it cannot be a token id or an offset).
    TooLarge {
        /// Element index.
        index: usize,
        /// The value.
        value: u64,
    },
}

impl RawTensor<'_> {
    /// The number of elements the shape declares; `None` on overflow.
    pub fn numel(&self) -> Option<u64> {
        self.shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
    }

    /// The shape as `[a, b]` for messages.
    pub(crate) fn shape_text(&self) -> String {
        let dims: Vec<String> = self.shape.iter().map(u64::to_string).collect();
        format!("[{}]", dims.join(", "))
    }

    /// Decodes every element, checking the byte length against shape and dtype first.
    pub(crate) fn decode(&self) -> Result<Values, Undecodable> {
        let actual = self.data.len() as u64;
        let expected = self.numel().and_then(|n| self.dtype.byte_len(n));
        if expected != Some(actual) {
            return Err(Undecodable::Length { expected, actual });
        }
        if let Some(numel) = self.numel().filter(|&n| n > MAX_VOCAB_ELEMENTS) {
            return Err(Undecodable::TooMany { numel });
        }
        let d = self.data;
        let ints = |v: Vec<i64>| Ok(Values::Int(v));
        let floats = |v: Vec<f64>| Ok(Values::Float(v));
        match self.dtype {
            Dtype::Bool | Dtype::U8 => ints(d.iter().map(|&b| i64::from(b)).collect()),
            Dtype::I8 => ints(d.iter().map(|&b| i64::from(b as i8)).collect()),
            Dtype::I16 => ints(
                le::<2>(d)
                    .map(|b| i64::from(i16::from_le_bytes(b)))
                    .collect(),
            ),
            Dtype::U16 => ints(
                le::<2>(d)
                    .map(|b| i64::from(u16::from_le_bytes(b)))
                    .collect(),
            ),
            Dtype::I32 => ints(
                le::<4>(d)
                    .map(|b| i64::from(i32::from_le_bytes(b)))
                    .collect(),
            ),
            Dtype::U32 => ints(
                le::<4>(d)
                    .map(|b| i64::from(u32::from_le_bytes(b)))
                    .collect(),
            ),
            Dtype::I64 => ints(le::<8>(d).map(i64::from_le_bytes).collect()),
            Dtype::U64 => decode_u64(d).map(Values::Int),
            Dtype::F16 => floats(le::<2>(d).map(|b| f16::from_le_bytes(b).to_f64()).collect()),
            Dtype::Bf16 => floats(
                le::<2>(d)
                    .map(|b| bf16::from_le_bytes(b).to_f64())
                    .collect(),
            ),
            Dtype::F32 => floats(
                le::<4>(d)
                    .map(|b| f64::from(f32::from_le_bytes(b)))
                    .collect(),
            ),
            Dtype::F64 => floats(le::<8>(d).map(f64::from_le_bytes).collect()),
            _ => Err(Undecodable::Dtype),
        }
    }
}

/// Fixed-size little-endian chunks of `data` (any remainder is ignored; lengths are checked first).
fn le<const N: usize>(data: &[u8]) -> impl Iterator<Item = [u8; N]> + '_ {
    data.chunks_exact(N).map(|c| {
        let mut bytes = [0u8; N];
        bytes.copy_from_slice(c);
        bytes
    })
}

fn decode_u64(data: &[u8]) -> Result<Vec<i64>, Undecodable> {
    le::<8>(data)
        .enumerate()
        .map(|(index, b)| {
            let value = u64::from_le_bytes(b);
            i64::try_from(value).map_err(|_| Undecodable::TooLarge { index, value })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(dtype: Dtype, shape: &[u64], data: &[u8]) -> Values {
        let t = RawTensor {
            name: "x".into(),
            dtype,
            shape: shape.to_vec(),
            data,
            file: None,
        };
        t.decode().expect("decodable")
    }

    #[test]
    fn decodes_signed_and_unsigned_little_endian() {
        let data: Vec<u8> = [-2i32, 7].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(raw(Dtype::I32, &[2], &data), Values::Int(vec![-2, 7]));
        assert_eq!(
            raw(Dtype::U16, &[2], &[0xff, 0xff, 1, 0]),
            Values::Int(vec![65535, 1])
        );
        assert_eq!(raw(Dtype::I8, &[1], &[0xff]), Values::Int(vec![-1]));
        let bf: Vec<u8> = bf16::from_f32(256.0).to_le_bytes().to_vec();
        assert_eq!(raw(Dtype::Bf16, &[1], &bf), Values::Float(vec![256.0]));
    }

    #[test]
    fn length_mismatch_and_overflow_are_errors() {
        let t = RawTensor {
            name: "x".into(),
            dtype: Dtype::I64,
            shape: vec![3],
            data: &[0u8; 16],
            file: None,
        };
        let expected = Undecodable::Length {
            expected: Some(24),
            actual: 16,
        };
        assert_eq!(t.decode(), Err(expected));
        let huge = RawTensor {
            shape: vec![u64::MAX, 2],
            ..t.clone()
        };
        assert!(matches!(
            huge.decode(),
            Err(Undecodable::Length { expected: None, .. })
        ));
        let big = u64::MAX.to_le_bytes();
        let u = RawTensor {
            dtype: Dtype::U64,
            shape: vec![1],
            data: &big,
            ..t
        };
        assert!(matches!(
            u.decode(),
            Err(Undecodable::TooLarge { index: 0, .. })
        ));
        let many = vec![0u8; (MAX_VOCAB_ELEMENTS + 1) as usize];
        let bools = RawTensor {
            dtype: Dtype::Bool,
            shape: vec![MAX_VOCAB_ELEMENTS + 1],
            data: &many,
            ..u
        };
        let numel = MAX_VOCAB_ELEMENTS + 1;
        assert_eq!(bools.decode(), Err(Undecodable::TooMany { numel }));
    }
}
