//! The exact tolerance screen of the vector diff loops: how many units in the last place two
//! finite same-dtype BF16, F16 or F32 values may lie apart in their bits and still be certainly
//! within `|x - y| <= atol + rtol*|y|`, so a vector step whose places all pass needs no bound
//! arithmetic (four `f64` operations per place, a quarter of the loop) and only steps with some
//! place beyond the screen compute the bound as [`super::lanes::Lanes::step`] defines it.
//!
//! Claim. Let `x`, `y` be finite, with the same sign bit, and magnitudes (the bits without the
//! sign, which order finite values like their absolute values) at most `k` apart, where the
//! format has `m` explicit mantissa bits, smallest gap `u` (that of the subnormals) and
//! `k <= 2^(m/2)`. Then `|x - y| <= k*2^-m*|y| + k*u`.
//! Proof. Neighbouring magnitudes `j` and `j+1` are one unit of `j`'s binade apart: `2^(e-m)`
//! for a normal binade `e`, `u` below the normal range and in the first normal binade. If `y`
//! is subnormal or zero, the at most `k` gaps between `y` and `x` are each `u` (they do not
//! reach past the first normal binade, which holds `2^m > k` values). If `y` is normal, in
//! binade `e` (`|y| >= 2^e`): going down from `y`, every gap is at most `2^(e-m)`; going up,
//! `s >= 1` gaps in `e` and `t` in `e+1` (`s + t <= k`), where `|y| >= 2^(e+1) - s*2^(e-m)`, so
//! `|x - y| / |y| <= (s + 2t) 2^-m / (2 - s 2^-m) <= (2k - 1) 2^-m / (2 - k 2^-m) <= k 2^-m`,
//! the last step because `k^2 2^-m <= 1`.
//! The bound the kernel compares with is `B = fl(atol + fl(rtol*|y|))` in `f64`, with both
//! operands non-negative and normal or zero, so `B >= (1 - 2^-52)(atol + rtol*|y|)`; and
//! `|x - y|` is exact in `f64`. Hence when `k*2^-m <= (1 - 2^-52) rtol` and
//! `k*u <= (1 - 2^-52) atol`, `|x - y| <= B`: not a mismatch. With `k = 0` the values are
//! equal and `0 <= B` always. Two finite values of different sign bits are never within `k`
//! in the wrapped difference of their bits (that would need a magnitude at the top of the
//! range, a NaN), so the loops screen on the raw bits: `|bits(x) - bits(y)| <= k`, wrapping.

use crate::Dtype;

/// Blocks to run unscreened after a block in which some vector step had a place beyond the
/// screen, before screening again.
const REST_BLOCKS: u8 = 32;

/// Whether a chunk's next block runs the screened vector loop, and with which screen (computed
/// once: it depends only on the pair's dtype and tolerance). Screening pays where nearly every
/// step passes (pairs a unit or two apart everywhere, or mostly equal); where steps with a
/// place beyond it are common, the screened loop's branch mispredicts and the plain loop, which
/// always computes the bound, is faster. So a block that saw such a step turns screening off
/// for the next [`REST_BLOCKS`] blocks. Either loop gives the same bits (the claim above), so
/// this changes only the speed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ScreenState {
    units: u32,
    rest: u8,
}

impl ScreenState {
    /// Screening on, with the screen of `dtype` at tolerance `tol` ([`screen_units`]).
    pub fn new(dtype: Dtype, tol: (f64, f64)) -> ScreenState {
        ScreenState {
            units: screen_units(dtype, tol),
            rest: 0,
        }
    }

    /// The screen the next block should use, `None` when it should run the plain loop.
    pub fn next(&self) -> Option<u32> {
        (self.rest == 0).then_some(self.units)
    }

    /// Records the block just run: `clean` when it screened and every step passed.
    pub fn after(&mut self, clean: bool) {
        self.rest = match self.rest {
            0 if !clean => REST_BLOCKS,
            rest => rest.saturating_sub(1),
        };
    }
}

/// The largest screen the loops use (so `k <= 2^(m/2)` holds for every screened dtype).
const MAX_UNITS: u32 = 8;

/// The largest `k <= MAX_UNITS` for which the claim above makes places of `dtype` whose bits
/// are at most `k` apart certainly within the tolerance `(rtol, atol)`; 0 when only equal bits
/// are (always true: `0 <= B`).
pub(crate) fn screen_units(dtype: Dtype, (rtol, atol): (f64, f64)) -> u32 {
    let (mantissa, smallest_gap_exp) = match dtype {
        Dtype::Bf16 => (7, -133),
        Dtype::F16 => (10, -24),
        Dtype::F32 => (23, -149),
        _ => return 0,
    };
    // Each side of both inequalities is a small multiple of a power of two (exact in f64), and
    // the factor (1 - 2^-52) is exact too.
    let slack = 1.0 - f64::EPSILON;
    (1..=MAX_UNITS)
        .rev()
        .find(|&k| {
            let k = f64::from(k);
            k * pow2(-mantissa) <= slack * rtol && k * pow2(smallest_gap_exp) <= slack * atol
        })
        .unwrap_or(0)
}

/// `2^e` for the exponents used here (well inside the normal range of `f64`).
fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::tolerance::default_tolerance;

    #[test]
    fn default_tolerances_give_the_expected_screens() {
        // BF16: 2 * 2^-7 = 0.015625 <= 0.016; 3 * 2^-7 is not.
        assert_eq!(screen_units(Dtype::Bf16, default_tolerance(Dtype::Bf16)), 2);
        // F16: 1 * 2^-10 <= 1e-3 < 2 * 2^-10.
        assert_eq!(screen_units(Dtype::F16, default_tolerance(Dtype::F16)), 1);
        // F32: 8 * 2^-23 = 9.5e-7 <= 1.3e-6 (capped at 8).
        assert_eq!(screen_units(Dtype::F32, default_tolerance(Dtype::F32)), 8);
        assert_eq!(screen_units(Dtype::Bf16, (0.0, 0.0)), 0);
        assert_eq!(screen_units(Dtype::Bf16, (1.0, 0.0)), 0); // atol 0: subnormal gaps fail
        assert_eq!(screen_units(Dtype::F64, (1.0, 1.0)), 0);
    }

    #[test]
    fn thresholds_are_exact() {
        let at = |r: f64| screen_units(Dtype::Bf16, (r, 1e-5));
        let two = 2.0 * pow2(-7);
        assert_eq!(at(two), 1); // equality needs the slack: (1 - 2^-52) * two < two
        assert_eq!(at(two / (1.0 - f64::EPSILON)), 2);
        assert_eq!(at(pow2(-7) * 0.999), 0);
    }

    /// Every place the loops' raw-bit screen passes, for `dtype` values decoded by `value`:
    /// within the bound exactly as the kernel computes it, and never of different signs.
    fn check_screen(dtype: Dtype, tol: (f64, f64), ys: impl Iterator<Item = u32>, bits: u32) {
        use crate::elements::le;
        let value = |b: u32| -> f64 {
            match dtype {
                Dtype::Bf16 => f64::from(f32::from_bits(b << 16)),
                Dtype::F16 => {
                    half::f16::from_bits(u16::from_le_bytes(le(&b.to_le_bytes()))).to_f64()
                }
                _ => f64::from(f32::from_bits(b)),
            }
        };
        let k = screen_units(dtype, tol);
        assert!(k >= 1, "{dtype} {tol:?}");
        let wrap = if bits == 32 {
            u32::MAX
        } else {
            (1u32 << bits) - 1
        };
        for yb in ys {
            let y = value(yb);
            if !y.is_finite() {
                continue;
            }
            for off in 1..=k {
                for xb in [yb.wrapping_add(off) & wrap, yb.wrapping_sub(off) & wrap] {
                    let x = value(xb);
                    if !x.is_finite() {
                        continue;
                    }
                    assert_eq!((xb ^ yb) >> (bits - 1), 0, "{dtype} {xb:#x} {yb:#x}");
                    let bound = tol.1 + tol.0 * y.abs();
                    assert!((x - y).abs() <= bound, "{dtype} {xb:#x} {yb:#x} {tol:?}");
                }
            }
        }
    }

    /// The claim, exhaustively over BF16 and F16 `y`, sampled over F32, at the default
    /// tolerances and at the smallest tolerances that give each dtype its largest screens.
    #[test]
    fn every_screened_pair_is_within_the_bound() {
        let edge = |m: i32, g: i32, k: f64| {
            let s = 1.0 - f64::EPSILON;
            (k * pow2(-m) / s, k * pow2(g) / s)
        };
        for tol in [
            default_tolerance(Dtype::Bf16),
            edge(7, -133, 2.0),
            edge(7, -133, 8.0),
        ] {
            check_screen(Dtype::Bf16, tol, 0..=0xFFFF, 16);
        }
        for tol in [
            default_tolerance(Dtype::F16),
            edge(10, -24, 1.0),
            edge(10, -24, 8.0),
        ] {
            check_screen(Dtype::F16, tol, 0..=0xFFFF, 16);
        }
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        let sample = std::iter::from_fn(move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            Some(s as u32)
        });
        // Every binade edge and the subnormals too, beside random words.
        let edges = (0..512u32).flat_map(|e| [e << 23, (e << 23).wrapping_sub(1), e << 23 | 1]);
        for tol in [default_tolerance(Dtype::F32), edge(23, -149, 8.0)] {
            check_screen(
                Dtype::F32,
                tol,
                edges.clone().chain(sample.clone().take(400_000)),
                32,
            );
        }
    }
}
