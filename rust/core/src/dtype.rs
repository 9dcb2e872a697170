//! The safetensors element types: names, bit widths and the byte-length rule.

use std::fmt;

/// One element type of the safetensors format, as spelled in a header's `dtype` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dtype {
    /// Boolean, one byte per element.
    Bool,
    /// Unsigned 8-bit integer.
    U8,
    /// Signed 8-bit integer.
    I8,
    /// Signed 16-bit integer.
    I16,
    /// Unsigned 16-bit integer.
    U16,
    /// Signed 32-bit integer.
    I32,
    /// Unsigned 32-bit integer.
    U32,
    /// Signed 64-bit integer.
    I64,
    /// Unsigned 64-bit integer.
    U64,
    /// IEEE half precision.
    F16,
    /// bfloat16.
    Bf16,
    /// IEEE single precision.
    F32,
    /// IEEE double precision.
    F64,
    /// FP8 E4M3 "fn": no infinity, NaN at S.1111.111.
    F8E4M3,
    /// FP8 E5M2: IEEE-like, has infinities and NaNs.
    F8E5M2,
    /// FP8 E8M0 "fnu": unsigned exponent-only scale, no zero, 0xFF is NaN.
    F8E8M0,
    /// FP8 E4M3 FNUZ: NaN only at 0x80, no infinity, no negative zero.
    F8E4M3Fnuz,
    /// FP8 E5M2 FNUZ: NaN only at 0x80, no infinity, no negative zero.
    F8E5M2Fnuz,
    /// FP4 E2M1 (MXFP4), two elements per byte, low nibble first.
    F4,
    /// FP6 E2M3, four elements per three bytes.
    F6E2M3,
    /// FP6 E3M2, four elements per three bytes.
    F6E3M2,
    /// Complex number as two IEEE single precision values (real, imaginary).
    C64,
}

impl Dtype {
    /// Every dtype, in the order of the safetensors `Dtype` enum.
    pub const ALL: [Dtype; 22] = [
        Dtype::Bool,
        Dtype::U8,
        Dtype::I8,
        Dtype::I16,
        Dtype::U16,
        Dtype::I32,
        Dtype::U32,
        Dtype::I64,
        Dtype::U64,
        Dtype::F16,
        Dtype::Bf16,
        Dtype::F32,
        Dtype::F64,
        Dtype::F8E4M3,
        Dtype::F8E5M2,
        Dtype::F8E8M0,
        Dtype::F8E4M3Fnuz,
        Dtype::F8E5M2Fnuz,
        Dtype::F4,
        Dtype::F6E2M3,
        Dtype::F6E3M2,
        Dtype::C64,
    ];

    /// Parses the header spelling (`"BF16"`, `"F8_E4M3"`, ...). Case-sensitive, like the reference.
    pub fn parse(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The header spelling of this dtype.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::Bool => "BOOL",
            Dtype::U8 => "U8",
            Dtype::I8 => "I8",
            Dtype::I16 => "I16",
            Dtype::U16 => "U16",
            Dtype::I32 => "I32",
            Dtype::U32 => "U32",
            Dtype::I64 => "I64",
            Dtype::U64 => "U64",
            Dtype::F16 => "F16",
            Dtype::Bf16 => "BF16",
            Dtype::F32 => "F32",
            Dtype::F64 => "F64",
            Dtype::F8E4M3 => "F8_E4M3",
            Dtype::F8E5M2 => "F8_E5M2",
            Dtype::F8E8M0 => "F8_E8M0",
            Dtype::F8E4M3Fnuz => "F8_E4M3FNUZ",
            Dtype::F8E5M2Fnuz => "F8_E5M2FNUZ",
            Dtype::F4 => "F4",
            Dtype::F6E2M3 => "F6_E2M3",
            Dtype::F6E3M2 => "F6_E3M2",
            Dtype::C64 => "C64",
        }
    }

    /// Bits per element.
    pub fn bits(self) -> u64 {
        match self {
            Dtype::F4 => 4,
            Dtype::F6E2M3 | Dtype::F6E3M2 => 6,
            Dtype::Bool
            | Dtype::U8
            | Dtype::I8
            | Dtype::F8E4M3
            | Dtype::F8E5M2
            | Dtype::F8E8M0
            | Dtype::F8E4M3Fnuz
            | Dtype::F8E5M2Fnuz => 8,
            Dtype::I16 | Dtype::U16 | Dtype::F16 | Dtype::Bf16 => 16,
            Dtype::I32 | Dtype::U32 | Dtype::F32 => 32,
            Dtype::I64 | Dtype::U64 | Dtype::F64 | Dtype::C64 => 64,
        }
    }

    /// Bytes per element for byte-aligned dtypes; `None` for the packed sub-byte F4/F6 types.
    pub fn size(self) -> Option<u64> {
        let bits = self.bits();
        bits.is_multiple_of(8).then_some(bits / 8)
    }

    /// The alignment a reader needs for a zero-copy typed view (C64 aligns as its f32 parts).
    pub fn alignment(self) -> u64 {
        match self {
            Dtype::C64 => 4,
            other => other.size().unwrap_or(1),
        }
    }

    /// True for every floating-point dtype (including FP8, FP4, FP6; not C64).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Dtype::F16
                | Dtype::Bf16
                | Dtype::F32
                | Dtype::F64
                | Dtype::F8E4M3
                | Dtype::F8E5M2
                | Dtype::F8E8M0
                | Dtype::F8E4M3Fnuz
                | Dtype::F8E5M2Fnuz
                | Dtype::F4
                | Dtype::F6E2M3
                | Dtype::F6E3M2
        )
    }

    /// True for the signed and unsigned integer dtypes (not BOOL).
    pub fn is_int(self) -> bool {
        matches!(
            self,
            Dtype::U8
                | Dtype::I8
                | Dtype::I16
                | Dtype::U16
                | Dtype::I32
                | Dtype::U32
                | Dtype::I64
                | Dtype::U64
        )
    }

    /// Byte length of `numel` elements, as the reference computes it: `numel * bits` must not
    /// overflow and must be a whole number of bytes. `None` when either rule fails.
    pub fn byte_len(self, numel: u64) -> Option<u64> {
        let bits = numel.checked_mul(self.bits())?;
        (bits % 8 == 0).then_some(bits / 8)
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in Dtype::ALL {
            assert_eq!(Dtype::parse(d.name()), Some(d));
        }
        assert_eq!(Dtype::parse("bf16"), None);
        assert_eq!(Dtype::parse("F128"), None);
    }

    #[test]
    fn sub_byte_lengths() {
        assert_eq!(Dtype::F4.byte_len(4), Some(2));
        assert_eq!(Dtype::F4.byte_len(3), None);
        assert_eq!(Dtype::F6E2M3.byte_len(4), Some(3));
        assert_eq!(Dtype::F6E3M2.byte_len(2), None);
        assert_eq!(Dtype::C64.byte_len(3), Some(24));
        assert_eq!(Dtype::F64.byte_len(u64::MAX), None);
    }
}
