//! Bit-level rules of the sub-16-bit float formats (FP8, FP6, FP4) and the lookup tables built
//! from them at compile time, so that decoding is one table load per element with no branching.
//!
//! Each format is described by a [`Minifloat`]: exponent and mantissa widths, bias, and which
//! encodings are special. [`Minifloat::decode`] is the reference rule; the tables are that rule
//! evaluated for every bit pattern, and the tests check the two agree.

use super::ElementClass;

/// How a format spends its special encodings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Specials {
    /// IEEE-like: the all-ones exponent is infinity (mantissa 0) or NaN (mantissa non-zero).
    Ieee,
    /// "fn" (E4M3FN): no infinity; only S.1111.111 (all exponent and mantissa bits set) is NaN.
    FiniteNanAllOnes,
    /// "fnuz": no infinity, no negative zero; the single pattern 1000...0 is NaN.
    Fnuz,
    /// No special values at all (FP4 and FP6 "fn" formats).
    FiniteOnly,
    /// E8M0 "fnu": unsigned, exponent only, value 2^(e-127), no zero; all ones is NaN.
    ExponentOnly,
}

/// A small binary float format of at most 8 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Minifloat {
    /// Exponent field width in bits.
    pub exp_bits: u32,
    /// Mantissa field width in bits.
    pub man_bits: u32,
    /// Exponent bias.
    pub bias: i32,
    /// Special-value rules.
    pub specials: Specials,
}

/// FP8 E4M3FN (safetensors `F8_E4M3`, torch `float8_e4m3fn`): bias 7, max 448.
pub const E4M3FN: Minifloat = Minifloat::new(4, 3, 7, Specials::FiniteNanAllOnes);
/// FP8 E5M2 (safetensors `F8_E5M2`): bias 15, IEEE-like, max 57344.
pub const E5M2: Minifloat = Minifloat::new(5, 2, 15, Specials::Ieee);
/// FP8 E8M0FNU (safetensors `F8_E8M0`): 2^(e-127), 0xFF NaN.
pub const E8M0FNU: Minifloat = Minifloat::new(8, 0, 127, Specials::ExponentOnly);
/// FP8 E4M3FNUZ: bias 8, NaN only at 0x80, max 240.
pub const E4M3FNUZ: Minifloat = Minifloat::new(4, 3, 8, Specials::Fnuz);
/// FP8 E5M2FNUZ: bias 16, NaN only at 0x80, max 57344.
pub const E5M2FNUZ: Minifloat = Minifloat::new(5, 2, 16, Specials::Fnuz);
/// FP4 E2M1FN (safetensors `F4`): bias 1, values 0, 0.5, 1, 1.5, 2, 3, 4, 6 and negatives.
pub const E2M1FN: Minifloat = Minifloat::new(2, 1, 1, Specials::FiniteOnly);
/// FP6 E2M3FN (safetensors `F6_E2M3`): bias 1, max 7.5.
pub const E2M3FN: Minifloat = Minifloat::new(2, 3, 1, Specials::FiniteOnly);
/// FP6 E3M2FN (safetensors `F6_E3M2`): bias 3, max 28.
pub const E3M2FN: Minifloat = Minifloat::new(3, 2, 3, Specials::FiniteOnly);

/// 2^k as an f64 for the exponent range these formats need (well inside f64's normal range).
const fn pow2(k: i32) -> f64 {
    // Normal f64: biased exponent k + 1023 in bits 52..63, zero mantissa.
    f64::from_bits(((k + 1023) as u64) << 52)
}

impl Minifloat {
    /// A format description.
    pub const fn new(exp_bits: u32, man_bits: u32, bias: i32, specials: Specials) -> Self {
        Minifloat {
            exp_bits,
            man_bits,
            bias,
            specials,
        }
    }

    /// Total bits per element (sign bit included, except for the unsigned E8M0).
    pub const fn bits(self) -> u32 {
        match self.specials {
            Specials::ExponentOnly => self.exp_bits + self.man_bits,
            _ => 1 + self.exp_bits + self.man_bits,
        }
    }

    /// The class of a bit pattern (only the low [`Minifloat::bits`] bits are looked at).
    pub const fn classify(self, bits: u8) -> ElementClass {
        let width = self.bits();
        let mask = if width >= 8 { 0xFF } else { (1u8 << width) - 1 };
        let bits = bits & mask;
        let exp_mask = ((1u32 << self.exp_bits) - 1) as u8;
        let man_mask = ((1u32 << self.man_bits) - 1) as u8;
        let exp = (bits >> self.man_bits) & exp_mask;
        let man = bits & man_mask;
        let magnitude = bits & (mask >> 1);
        let negative = bits >> (width - 1) == 1;
        match self.specials {
            Specials::ExponentOnly => {
                if bits == 0xFF {
                    ElementClass::Nan
                } else {
                    ElementClass::Finite
                }
            }
            Specials::Fnuz if bits == 1 << (width - 1) => ElementClass::Nan,
            Specials::FiniteNanAllOnes if magnitude == mask >> 1 => ElementClass::Nan,
            Specials::Ieee if exp == exp_mask && man != 0 => ElementClass::Nan,
            Specials::Ieee if exp == exp_mask && negative => ElementClass::NegInf,
            Specials::Ieee if exp == exp_mask => ElementClass::PosInf,
            _ if magnitude == 0 => ElementClass::Zero,
            _ => ElementClass::Finite,
        }
    }

    /// The exact value of a bit pattern (NaN for NaN patterns, ±inf for infinities).
    pub const fn decode(self, bits: u8) -> f64 {
        match self.classify(bits) {
            ElementClass::Nan => return f64::NAN,
            ElementClass::PosInf => return f64::INFINITY,
            ElementClass::NegInf => return f64::NEG_INFINITY,
            ElementClass::Zero | ElementClass::Finite => {}
        }
        if let Specials::ExponentOnly = self.specials {
            return pow2(bits as i32 - self.bias);
        }
        let width = self.bits();
        let exp = ((bits >> self.man_bits) as u32 & ((1 << self.exp_bits) - 1)) as i32;
        let man = (bits as u32 & ((1 << self.man_bits) - 1)) as i32;
        let sign = if (bits >> (width - 1)) & 1 == 1 {
            -1.0
        } else {
            1.0
        };
        let man_scale = self.man_bits as i32;
        let magnitude = if exp == 0 {
            // Subnormal: 0.m × 2^(1-bias) = m × 2^(1-bias-M).
            man as f64 * pow2(1 - self.bias - man_scale)
        } else {
            // Normal: 1.m × 2^(e-bias) = (2^M + m) × 2^(e-bias-M).
            ((1 << man_scale) + man) as f64 * pow2(exp - self.bias - man_scale)
        };
        sign * magnitude
    }

    /// The value of every 8-bit pattern; for narrower formats, index by the low bits
    /// (the higher bits are ignored, so the table repeats).
    pub const fn table(self) -> [f64; 256] {
        let mut table = [0.0; 256];
        let mut i = 0;
        while i < 256 {
            table[i] = self.decode(i as u8);
            i += 1;
        }
        table
    }
}

/// Values of all 256 F8_E4M3 (E4M3FN) patterns.
pub static E4M3FN_TABLE: [f64; 256] = E4M3FN.table();
/// Values of all 256 F8_E5M2 patterns.
pub static E5M2_TABLE: [f64; 256] = E5M2.table();
/// Values of all 256 F8_E8M0 patterns.
pub static E8M0FNU_TABLE: [f64; 256] = E8M0FNU.table();
/// Values of all 256 F8_E4M3FNUZ patterns.
pub static E4M3FNUZ_TABLE: [f64; 256] = E4M3FNUZ.table();
/// Values of all 256 F8_E5M2FNUZ patterns.
pub static E5M2FNUZ_TABLE: [f64; 256] = E5M2FNUZ.table();
/// Values of the 16 FP4 patterns, repeated: index with a nibble.
pub static E2M1FN_TABLE: [f64; 256] = E2M1FN.table();
/// Values of the 64 FP6 E2M3 patterns, repeated: index with 6 bits.
pub static E2M3FN_TABLE: [f64; 256] = E2M3FN.table();
/// Values of the 64 FP6 E3M2 patterns, repeated: index with 6 bits.
pub static E3M2FN_TABLE: [f64; 256] = E3M2FN.table();

#[cfg(test)]
mod tests {
    use super::*;

    /// Decoding by the textbook formula (−1)^s × 2^(e−bias) × (1 + m/2^M), written independently
    /// of [`Minifloat::decode`] with powi and floating division.
    fn formula(f: Minifloat, bits: u8) -> f64 {
        let w = f.bits();
        let s = if w < 8 || f.specials != Specials::ExponentOnly {
            (bits >> (w - 1)) & 1
        } else {
            0
        };
        let e = ((bits as u32) >> f.man_bits) & ((1 << f.exp_bits) - 1);
        let m = (bits as u32) & ((1 << f.man_bits) - 1);
        let frac = m as f64 / (1u32 << f.man_bits) as f64;
        let v = if e == 0 && f.specials != Specials::ExponentOnly {
            2f64.powi(1 - f.bias) * frac
        } else {
            2f64.powi(e as i32 - f.bias) * (1.0 + frac)
        };
        if s == 1 {
            -v
        } else {
            v
        }
    }

    const ALL: [(Minifloat, &[f64; 256]); 8] = [
        (E4M3FN, &E4M3FN_TABLE),
        (E5M2, &E5M2_TABLE),
        (E8M0FNU, &E8M0FNU_TABLE),
        (E4M3FNUZ, &E4M3FNUZ_TABLE),
        (E5M2FNUZ, &E5M2FNUZ_TABLE),
        (E2M1FN, &E2M1FN_TABLE),
        (E2M3FN, &E2M3FN_TABLE),
        (E3M2FN, &E3M2FN_TABLE),
    ];

    #[test]
    fn tables_match_formula_for_every_pattern() {
        for (f, table) in ALL {
            let width = f.bits();
            for bits in 0..=255u8 {
                let low = if width >= 8 {
                    bits
                } else {
                    bits & ((1 << width) - 1)
                };
                let got = table[bits as usize];
                match f.classify(bits) {
                    ElementClass::Nan => assert!(got.is_nan(), "{f:?} {bits:#x}"),
                    ElementClass::PosInf => assert_eq!(got, f64::INFINITY),
                    ElementClass::NegInf => assert_eq!(got, f64::NEG_INFINITY),
                    ElementClass::Zero => assert_eq!(got, 0.0, "{f:?} {bits:#x}"),
                    ElementClass::Finite => {
                        assert_eq!(got, formula(f, low), "{f:?} {bits:#x}");
                        assert!(got != 0.0);
                    }
                }
            }
        }
    }

    #[test]
    fn special_counts_per_format() {
        // (format, NaN patterns, inf patterns, zero patterns) among the 2^bits distinct patterns.
        let expected = [
            (E4M3FN, 2, 0, 2),
            (E5M2, 6, 2, 2),
            (E8M0FNU, 1, 0, 0),
            (E4M3FNUZ, 1, 0, 1),
            (E5M2FNUZ, 1, 0, 1),
            (E2M1FN, 0, 0, 2),
            (E2M3FN, 0, 0, 2),
            (E3M2FN, 0, 0, 2),
        ];
        for (f, nans, infs, zeros) in expected {
            let n = 1u32 << f.bits();
            let classes: Vec<_> = (0..n).map(|b| f.classify(b as u8)).collect();
            let count = |c: ElementClass| classes.iter().filter(|&&x| x == c).count();
            assert_eq!(count(ElementClass::Nan), nans, "{f:?}");
            let inf = count(ElementClass::PosInf) + count(ElementClass::NegInf);
            assert_eq!(inf, infs, "{f:?}");
            assert_eq!(count(ElementClass::Zero), zeros, "{f:?}");
        }
    }

    #[test]
    fn known_extremes() {
        let max_finite = |t: &[f64; 256]| {
            t.iter()
                .copied()
                .filter(|v| v.is_finite())
                .fold(0.0, f64::max)
        };
        assert_eq!(max_finite(&E4M3FN_TABLE), 448.0);
        assert_eq!(max_finite(&E5M2_TABLE), 57344.0);
        assert_eq!(max_finite(&E4M3FNUZ_TABLE), 240.0);
        assert_eq!(max_finite(&E5M2FNUZ_TABLE), 57344.0);
        assert_eq!(max_finite(&E2M1FN_TABLE), 6.0);
        assert_eq!(max_finite(&E2M3FN_TABLE), 7.5);
        assert_eq!(max_finite(&E3M2FN_TABLE), 28.0);
        assert_eq!(max_finite(&E8M0FNU_TABLE), 2f64.powi(127));
        assert_eq!(E8M0FNU_TABLE[0], 2f64.powi(-127));
        assert_eq!(E8M0FNU_TABLE[127], 1.0);
        // Smallest subnormals.
        assert_eq!(E4M3FN_TABLE[1], 2f64.powi(-9));
        assert_eq!(E5M2_TABLE[1], 2f64.powi(-16));
        assert_eq!(E4M3FNUZ_TABLE[1], 2f64.powi(-10));
        assert_eq!(E5M2FNUZ_TABLE[1], 2f64.powi(-17));
        let fp4: Vec<f64> = E2M1FN_TABLE[..16].to_vec();
        let want = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
        assert_eq!(&fp4[..8], &want);
        for i in 0..8 {
            assert_eq!(fp4[8 + i], -want[i]);
        }
        assert!(E4M3FN_TABLE[0x7F].is_nan() && E4M3FN_TABLE[0xFF].is_nan());
        assert_eq!(E4M3FN_TABLE[0x7E], 448.0);
        assert!(E4M3FNUZ_TABLE[0x80].is_nan());
        assert_eq!(E4M3FNUZ_TABLE[0x00], 0.0);
        assert_eq!(E5M2_TABLE[0x7C], f64::INFINITY);
        assert_eq!(E5M2_TABLE[0xFC], f64::NEG_INFINITY);
    }
}
