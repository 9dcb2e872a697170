//! The decoding pass the reference makes over the header: every string decoded (a lone surrogate
//! escape fails), every number parsed (`1e999` is out of range), nesting capped at serde_json's
//! limit (127 levels load, 128 do not). JSON text can be grammatical and still fail all three;
//! the grammar-only pass in `json` cannot see them, so this pass decides what the reference's
//! typed parse would reject.
//!
//! It allocates nothing per value: strings are decoded and dropped, numbers parsed and dropped.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// A JSON value that has been fully decoded and thrown away.
struct Decoded;

impl<'de> Deserialize<'de> for Decoded {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // deserialize_any makes serde_json decode strings and numbers and count nesting depth,
        // exactly as the reference's typed parse (through serde's buffered Content) does.
        deserializer.deserialize_any(DecodedVisitor)
    }
}

struct DecodedVisitor;

impl<'de> Visitor<'de> for DecodedVisitor {
    type Value = Decoded;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Decoded, E> {
        Ok(Decoded)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Decoded, E> {
        Ok(Decoded)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Decoded, E> {
        Ok(Decoded)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Decoded, E> {
        Ok(Decoded)
    }
    fn visit_str<E>(self, _: &str) -> Result<Decoded, E> {
        Ok(Decoded)
    }
    fn visit_unit<E>(self) -> Result<Decoded, E> {
        Ok(Decoded)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Decoded, A::Error> {
        while seq.next_element::<Decoded>()?.is_some() {}
        Ok(Decoded)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Decoded, A::Error> {
        while map.next_key::<Decoded>()?.is_some() {
            map.next_value::<Decoded>()?;
        }
        Ok(Decoded)
    }
}

/// Decodes the whole header text as the reference would, returning serde_json's error (with its
/// line and column) when a string, number or nesting depth cannot be decoded.
pub(super) fn decode_fully(text: &str) -> Result<(), serde_json::Error> {
    serde_json::from_str::<Decoded>(text).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::decode_fully;

    #[test]
    fn grammatical_json_that_does_not_decode_is_refused() {
        assert!(decode_fully(r#"{"a":"\ud800"}"#).is_err());
        assert!(decode_fully(r#"{"\udc00":1}"#).is_err());
        assert!(decode_fully(r#"{"a":1e999}"#).is_err());
        assert!(decode_fully(r#"{"a":-1e400}"#).is_err());
        // A surrogate pair and huge integers (parsed as f64, finite) decode.
        assert!(decode_fully(r#"{"a":"\ud83d\ude00","b":123456789012345678901234567890}"#).is_ok());
    }

    #[test]
    fn nesting_is_capped_below_128_levels_counting_the_header_object() {
        // Measured on the reference: 127 levels in all load, 128 are refused.
        let nested =
            |depth: usize| format!("{{\"a\":{}1{}}}", "[".repeat(depth), "]".repeat(depth));
        assert!(decode_fully(&nested(126)).is_ok());
        assert!(decode_fully(&nested(127)).is_err());
    }
}
