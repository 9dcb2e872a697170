//! JSON text spelled exactly as Python's `json` encoder spells it (`ensure_ascii=True`), for the
//! binding's writers of per-tensor records (Python's spelling is the binding's business, not the
//! core's): a string literal as `encode_basestring_ascii`
//! escapes it, a float as `float.__repr__` (shortest round-trip digits; exponent form when the
//! decimal exponent is below -4 or at least 16), integers in decimal.
//!
//! Python's output is the contract: the Python tests compare these spellings with the encoder's
//! on random and edge values.

use std::fmt::Write;

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `text` as a JSON string literal with every character outside printable ASCII escaped
/// (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, else `\u00XX`, astral characters as a surrogate
/// pair), the bytes `json.encoder.encode_basestring_ascii` writes.
pub fn push_str(out: &mut String, text: &str) {
    out.push('"');
    let bytes = text.as_bytes();
    let mut plain_from = 0;
    let mut at = 0;
    while at < bytes.len() {
        // Printable ASCII other than the quote and the backslash is copied as it is: scanned a byte
        // at a time, copied a run at a time (a name or message is nearly always all of it).
        let b = bytes[at];
        if (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\' {
            at += 1;
            continue;
        }
        out.push_str(&text[plain_from..at]);
        // `at` is a char boundary: every byte before it in this run was ASCII.
        let c = text[at..].chars().next().unwrap_or('\u{fffd}');
        at += c.len_utf8().max(1);
        plain_from = at;
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    push_unicode_escape(out, *unit);
                }
            }
        }
    }
    out.push_str(&text[plain_from..]);
    out.push('"');
}

fn push_unicode_escape(out: &mut String, unit: u16) {
    out.push_str("\\u");
    for shift in [12u16, 8, 4, 0] {
        out.push(HEX[usize::from((unit >> shift) & 0xf)] as char);
    }
}

/// Appends `value` as `repr(value)` does in Python; false (nothing appended) for an infinity or
/// NaN, which JSON cannot hold.
pub fn push_f64(out: &mut String, value: f64) -> bool {
    if !value.is_finite() {
        return false;
    }
    // Rust's `{:e}` gives the shortest digits that round-trip, as Python's repr does:
    // "-1.2345e-7", "0e0". They are re-laid out the way Python lays them out.
    let mut sci = SmallText::default();
    // At most 25 bytes ("-d.ddddddddddddddddde-308"): the buffer holds them.
    let _ = write!(sci, "{value:e}");
    let digits = sci
        .as_str()
        .bytes()
        .take_while(|b| *b != b'e')
        .filter(u8::is_ascii_digit);
    let n = digits.count();
    if may_tie(value, n) {
        // Two n-digit decimals equally near: when both read back as `value`, Python takes the
        // even one, Rust's shortest mode the upper. Rust's fixed-precision mode rounds half to
        // even, as Python does; its choice is taken when it reads back (at a power of two the
        // lower neighbour is nearer, and only one of the two may).
        let mut even = SmallText::default();
        let _ = write!(even, "{value:.prec$e}", prec = n.saturating_sub(1));
        if even.as_str().parse::<f64>().is_ok_and(|v| v == value) {
            sci = even;
        }
    }
    let sci = sci.as_str();
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, mantissa),
    };
    // The digits: the first, then those after the point (if any).
    let (first, rest) = match mantissa.get(..1) {
        Some(first) => (first, &mantissa[1..]),
        None => ("0", ""), // `{:e}` always writes a digit: not reached
    };
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    let digits = DigitPair(first, rest);
    if negative {
        out.push('-');
    }
    if !(-4..16).contains(&exponent) {
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let _ = write!(
            out,
            "e{}{:02}",
            if exponent < 0 { '-' } else { '+' },
            exponent.abs()
        );
        return true;
    }
    // Fixed notation: the point goes after `point` digits (it may be before the first).
    let point = exponent + 1;
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', point.unsigned_abs() as usize));
        digits.push_range(out, 0, digits.len());
    } else {
        let point = point as usize;
        if point >= digits.len() {
            digits.push_range(out, 0, digits.len());
            out.extend(std::iter::repeat_n('0', point - digits.len()));
            out.push_str(".0");
        } else {
            digits.push_range(out, 0, point);
            out.push('.');
            digits.push_range(out, point, digits.len());
        }
    }
    true
}

/// Whether `value`'s shortest round-trip spelling, of `n` significant digits, may be one of two
/// equally near: only when `value` is exactly halfway between two n-digit decimals, that is its
/// exact decimal expansion has n + 1 significant digits. That needs n >= 16 (below, n-digit
/// decimals are spaced wider than a double's ulp, so a halfway one would not round-trip).
fn may_tie(value: f64, n: usize) -> bool {
    if n < 16 {
        return false;
    }
    let bits = value.abs().to_bits();
    let (biased, fraction) = ((bits >> 52) as i32, bits & ((1u64 << 52) - 1));
    let (mut mantissa, mut exponent) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    };
    if mantissa == 0 {
        return false;
    }
    let zeros = mantissa.trailing_zeros();
    mantissa >>= zeros;
    exponent += zeros as i32;
    if exponent >= 0 {
        return true; // an integer: rare here, and the exact way is always right
    }
    // value = mantissa * 5^k / 10^k: its significant digits are those of mantissa * 5^k (odd,
    // so no trailing zeros), at least 19 of them once k > 25 (5^26 > 10^18), more than n + 1.
    let k = exponent.unsigned_abs();
    if k > 25 {
        return false;
    }
    let exact = u128::from(mantissa) * 5u128.pow(k);
    exact.checked_ilog10().map_or(1, |log| log as usize + 1) == n + 1
}

/// A float's significant digits, held as the two pieces `{:e}` writes around its point.
struct DigitPair<'a>(&'a str, &'a str);

impl DigitPair<'_> {
    fn len(&self) -> usize {
        self.0.len() + self.1.len()
    }

    /// Appends digits `from..to` (ASCII: byte indices are digit indices).
    fn push_range(&self, out: &mut String, from: usize, to: usize) {
        let split = self.0.len();
        if from < split {
            out.push_str(&self.0[from..to.min(split)]);
        }
        if to > split {
            out.push_str(&self.1[from.max(split) - split..to - split]);
        }
    }
}

/// A float's `{:e}` text, on the stack (no allocation per float of a million-row report).
#[derive(Default)]
struct SmallText {
    bytes: [u8; 32],
    len: usize,
}

impl SmallText {
    fn as_str(&self) -> &str {
        // Only whole `&str`s are ever copied in, so the bytes are UTF-8; "" if ever not.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl Write for SmallText {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        let end = self.len + text.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(text.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn float(value: f64) -> String {
        let mut out = String::new();
        assert!(push_f64(&mut out, value));
        out
    }

    fn string(text: &str) -> String {
        let mut out = String::new();
        push_str(&mut out, text);
        out
    }

    #[test]
    fn floats_are_spelled_as_python_repr_spells_them() {
        // Each right-hand side is Python 3's repr() of the left.
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (1e-4, "0.0001"),
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (123456789012345.6, "123456789012345.6"),
            (1234567890123456.0, "1234567890123456.0"),
            (1e16, "1e+16"),
            (1.2345e16, "1.2345e+16"),
            (1e100, "1e+100"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (5e-324, "5e-324"),
            (0.30000000000000004, "0.30000000000000004"),
            (100.0, "100.0"),
        ];
        for (value, expected) in cases {
            assert_eq!(float(value), expected, "{value:e}");
        }
        // Exactly halfway between two shortest spellings: Python takes the even last digit.
        // (Written as text: each is exact in binary, more digits than a literal may carry.)
        let ties = [
            ("562949953421312.25", "562949953421312.2"),
            ("654666177277479.25", "654666177277479.2"),
            ("108119094801817.875", "108119094801817.88"),
            ("29064109547129.8125", "29064109547129.812"),
            ("2359571230533.53125", "2359571230533.5312"),
            ("92616078949.515625", "92616078949.51562"),
            // 2^-24: halfway, but the lower spelling reads back as the float below it.
            ("5.9604644775390625e-08", "5.960464477539063e-08"),
        ];
        for (exact, expected) in ties {
            let value: f64 = exact.parse().unwrap();
            assert_eq!(float(value), expected, "{exact}");
            assert_eq!(float(-value), format!("-{expected}"), "-{exact}");
        }
    }

    #[test]
    fn non_finite_floats_are_refused() {
        let mut out = String::new();
        for value in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
            assert!(!push_f64(&mut out, value));
        }
        assert!(out.is_empty());
    }

    #[test]
    fn strings_are_escaped_as_encode_basestring_ascii_escapes_them() {
        assert_eq!(string("model.w"), r#""model.w""#);
        assert_eq!(string("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(string("\n\r\t\u{8}\u{c}"), r#""\n\r\t\b\f""#);
        assert_eq!(string("\u{0}\u{1f}\u{7f}"), r#""\u0000\u001f\u007f""#);
        assert_eq!(string("é€"), r#""\u00e9\u20ac""#);
        assert_eq!(string("😀"), r#""\ud83d\ude00""#);
        assert_eq!(string(""), r#""""#);
    }

    proptest! {
        #[test]
        fn every_finite_float_round_trips(bits in any::<u64>()) {
            let value = f64::from_bits(bits);
            prop_assume!(value.is_finite());
            let text = float(value);
            prop_assert_eq!(text.parse::<f64>().unwrap().to_bits(), value.to_bits());
            // A float always reads back as a float in Python: a point or an exponent.
            prop_assert!(text.contains('.') || text.contains('e'));
        }

        #[test]
        fn escaped_strings_are_ascii_json_of_the_same_text(text in any::<String>()) {
            let literal = string(&text);
            prop_assert!(literal.bytes().all(|b| (b' '..=b'~').contains(&b)));
            prop_assert_eq!(serde_json::from_str::<String>(&literal).unwrap(), text);
        }
    }
}
