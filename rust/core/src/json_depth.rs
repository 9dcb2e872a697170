//! How deeply untrusted JSON text nests, measured in one pass over its bytes without parsing
//! it, so that a document nested 100,000 levels deep is refused before any recursive parser
//! (serde's, Python's `json`) or any walker of the parsed value meets it; and whether a text is
//! one complete JSON value, checked without building it (a `--resume` line of a million-tensor
//! report is validated without a million objects).

/// The deepest nesting accepted anywhere: serde_json's own limit (it refuses the 128th level),
/// the safetensors reference's (the README's Robustness table), and the Python readers'.
pub const MAX_JSON_DEPTH: usize = 127;

/// The deepest nesting of arrays and objects in `text` (0 for a scalar), brackets inside
/// strings not counted. Text that is not JSON gets a number too; the parser then refuses it.
pub fn nesting_depth(text: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut bytes = text.iter();
    while let Some(&byte) = bytes.next() {
        match byte {
            b'"' => {
                // Skip the string: to its closing quote, escapes included.
                while let Some(&c) = bytes.next() {
                    match c {
                        b'\\' => {
                            bytes.next();
                        }
                        b'"' => break,
                        _ => {}
                    }
                }
            }
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// True when `text` is UTF-8 and exactly one JSON value (whitespace around it allowed) nesting
/// at most [`MAX_JSON_DEPTH`] levels: validated in one pass, nothing built. (serde_json does not
/// check the UTF-8 of strings it ignores, hence the check of the whole text first.)
pub fn is_complete_json(text: &[u8]) -> bool {
    std::str::from_utf8(text).is_ok()
        && nesting_depth(text) <= MAX_JSON_DEPTH
        && serde_json::from_slice::<serde::de::IgnoredAny>(text).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_brackets_outside_strings_only() {
        assert_eq!(nesting_depth(b"3"), 0);
        assert_eq!(nesting_depth(b"{}"), 1);
        assert_eq!(nesting_depth(br#"{"a":[1,{"b":[]}],"c":{}}"#), 4);
        assert_eq!(nesting_depth(br#"{"[[[[": "\"[[", "k": ["]]]"]}"#), 2);
        assert_eq!(nesting_depth(br#""\\" [ ["#), 2);
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(nesting_depth(deep.as_bytes()), 100_000);
        assert_eq!(nesting_depth(b"]]]][["), 2);
    }

    #[test]
    fn complete_json_is_one_whole_value() {
        assert!(is_complete_json(br#" {"a": [1, "x\"}"]} "#));
        let torn: [&[u8]; 6] = [
            br#"{"a": [1"#,
            br#"{"a": 1}}"#,
            b"{} {}",
            b"",
            b"\xff",
            b"{\"a\": \"\xc3\"}",
        ];
        for torn in torn {
            assert!(!is_complete_json(torn), "{torn:?}");
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(!is_complete_json(deep.as_bytes()));
    }

    #[test]
    fn agrees_with_serde_json_at_its_limit() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let ok = nested(MAX_JSON_DEPTH);
        let too_deep = nested(MAX_JSON_DEPTH + 1);
        assert!(serde_json::from_str::<serde_json::Value>(&ok).is_ok());
        assert!(serde_json::from_str::<serde_json::Value>(&too_deep).is_err());
        assert_eq!(nesting_depth(ok.as_bytes()), MAX_JSON_DEPTH);
        assert_eq!(nesting_depth(too_deep.as_bytes()), MAX_JSON_DEPTH + 1);
    }
}
