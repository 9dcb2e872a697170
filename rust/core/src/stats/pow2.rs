//! Exact scaling by powers of two, the tool that keeps statistics inside f64's range: `x · 2^k`
//! is exact whenever the result is a normal number, so data near the top (or bottom) of the range
//! can be brought near 1, summed, and scaled back with no rounding beyond the sums' own.

/// `x · 2^k` for any `k`, exact when the result is a normal number.
pub(crate) fn ldexp(mut x: f64, mut k: i32) -> f64 {
    // Steps of at most 2^±1000 keep every factor representable.
    while k > 1000 {
        x *= pow2(1000);
        k -= 1000;
    }
    while k < -1000 {
        x *= pow2(-1000);
        k += 1000;
    }
    x * pow2(k)
}

/// 2^k for `-1022 <= k <= 1023`.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// The exponent `e` with `|x| · 2^-e` in `[0.5, 1)` (0 for zero and non-finite `x`).
pub(crate) fn exponent(x: f64) -> i32 {
    if x == 0.0 || !x.is_finite() {
        return 0;
    }
    let biased = (x.abs().to_bits() >> 52) as i32;
    if biased == 0 {
        // Subnormal: 2^64 brings it into the normal range exactly.
        return exponent(x * pow2(64)) - 64;
    }
    biased - 1022
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ldexp_is_exact_across_the_range() {
        assert_eq!(ldexp(1.5, 3), 12.0);
        assert_eq!(
            ldexp(f64::MAX, -1100),
            f64::MAX / 2f64.powi(1000) / 2f64.powi(100)
        );
        assert_eq!(ldexp(ldexp(f64::MAX, -1100), 1100), f64::MAX);
        let tiny = 5e-324;
        assert_eq!(ldexp(ldexp(tiny, 1100), -1100), tiny);
        assert_eq!(ldexp(f64::MAX, 1), f64::INFINITY);
    }

    #[test]
    fn exponent_brackets_the_magnitude() {
        for x in [
            1.0,
            0.75,
            -3.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            1e-310,
            1e300,
        ] {
            let m = ldexp(x.abs(), -exponent(x));
            assert!((0.5..1.0).contains(&m), "{x}: {m}");
        }
        assert_eq!((exponent(0.0), exponent(f64::NAN)), (0, 0));
    }
}
