//! Unpacking of the sub-byte formats F4 (two per byte) and F6 (four per three bytes).
//!
//! F4 follows torch `float4_e2m1fn_x2`, which is what safetensors maps `F4` to: element 2i is the
//! LOW nibble of byte i, element 2i+1 the high nibble (c10 `Float4_e2m1fn_x2.h`: "val1 : val0",
//! bits 7654 : 3210).
//!
//! F6 has no packed torch or ml_dtypes type to copy (ml_dtypes stores one element per byte), and
//! the safetensors crate only defines the size rule. We use the same least-significant-first rule
//! as F4: a 3-byte group is read as a little-endian 24-bit integer `g = b0 | b1<<8 | b2<<16`, and
//! element k (0..4) of the group is `(g >> 6k) & 0x3F`. This is an assumption; see the module tests
//! for the exact layout, and change only here if a writer with another convention shows up.

/// Element `k` of an F4 byte: low nibble first.
#[inline(always)]
pub fn f4_nibbles(byte: u8) -> [u8; 2] {
    [byte & 0x0F, byte >> 4]
}

/// The four 6-bit codes of an F6 group of three bytes, least-significant bits first.
#[inline(always)]
pub fn f6_codes(group: [u8; 3]) -> [u8; 4] {
    let g = u32::from(group[0]) | u32::from(group[1]) << 8 | u32::from(group[2]) << 16;
    [
        (g & 0x3F) as u8,
        ((g >> 6) & 0x3F) as u8,
        ((g >> 12) & 0x3F) as u8,
        ((g >> 18) & 0x3F) as u8,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f4_low_nibble_is_first() {
        assert_eq!(f4_nibbles(0x21), [0x1, 0x2]);
        assert_eq!(f4_nibbles(0xF0), [0x0, 0xF]);
    }

    #[test]
    fn f6_round_trips_every_code_in_every_slot() {
        for slot in 0..4 {
            for code in 0..64u32 {
                let g = code << (6 * slot);
                let bytes = [g as u8, (g >> 8) as u8, (g >> 16) as u8];
                let mut want = [0u8; 4];
                want[slot as usize] = code as u8;
                assert_eq!(f6_codes(bytes), want);
            }
        }
    }
}
