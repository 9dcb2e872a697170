//! Every finding code the core can emit, with its fixed severity.
//!
//! The documentation of each code (title, explanation, example, fix) lives once, in the Python
//! rule registry (`eagle3_inspect/rules/<family>/codes.toml`); the binding exports these tables
//! (`_native.emitted_codes()`) so a Python test checks that every code emitted here is documented
//! there with the same severity.

use crate::Severity;

/// The ST (safetensors file format) codes the header reader emits.
pub const ST_CODES: [(&str, Severity); 23] = [
    ("ST001", Severity::Error),
    ("ST002", Severity::Error),
    ("ST003", Severity::Error),
    ("ST004", Severity::Error),
    ("ST005", Severity::Error),
    ("ST006", Severity::Error),
    ("ST007", Severity::Error),
    ("ST008", Severity::Error),
    ("ST009", Severity::Error),
    ("ST010", Severity::Error),
    ("ST011", Severity::Error),
    ("ST012", Severity::Error),
    ("ST013", Severity::Error),
    ("ST014", Severity::Error),
    ("ST015", Severity::Error),
    ("ST016", Severity::Error),
    ("ST017", Severity::Error),
    ("ST018", Severity::Error),
    ("ST019", Severity::Info),
    ("ST020", Severity::Info),
    ("ST021", Severity::Warning),
    ("ST022", Severity::Error),
    ("ST023", Severity::Error),
];

/// The IX (index, file set and config) codes the checkpoint resolver emits.
pub const IX_CODES: [(&str, Severity); 11] = [
    ("IX001", Severity::Error),
    ("IX002", Severity::Error),
    ("IX003", Severity::Error),
    ("IX004", Severity::Error),
    ("IX005", Severity::Warning),
    ("IX006", Severity::Warning),
    ("IX007", Severity::Error),
    ("IX008", Severity::Warning),
    ("IX009", Severity::Error),
    ("IX010", Severity::Error),
    ("IX011", Severity::Error),
];

/// Every code the core can emit (ST, IX, then VM), with its severity, in code order per family.
pub fn emitted_codes() -> Vec<(&'static str, Severity)> {
    let vm = crate::vocab::codes::RULES.iter().map(|(c, s, _)| (*c, *s));
    ST_CODES.iter().copied().chain(IX_CODES).chain(vm).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::Path;

    /// Every `"ST0nn"` / `"IX0nn"` literal in the non-test sources, with the first `Severity::`
    /// written after it (how every emitter spells `Finding::new(code, severity, ..)`).
    fn emitted_in_sources(dir: &Path, found: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).expect("source dir is readable") {
            let path = entry.expect("dir entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                emitted_in_sources(&path, found);
                continue;
            }
            if !name.ends_with(".rs") || name == "tests.rs" || name == "codes.rs" {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("source is UTF-8");
            let text = text.split("#[cfg(test)]").next().unwrap_or("");
            for (at, _) in text.match_indices('"') {
                let code = text.get(at + 1..at + 6).unwrap_or("");
                let family = code.get(..2).unwrap_or("");
                let closes = text.get(at + 6..at + 7) == Some("\"");
                let digits = code
                    .get(2..)
                    .is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()));
                if closes && digits && (family == "ST" || family == "IX") {
                    // Only `"CODE", Severity::X` is an emission; a comparison such as
                    // `f.code == "IX010"` is not.
                    let rest = text[at + 7..].trim_start();
                    let Some(rest) = rest.strip_prefix(',') else {
                        continue;
                    };
                    let Some(sev) = rest.trim_start().strip_prefix("Severity::") else {
                        continue;
                    };
                    let sev: String = sev.chars().take_while(char::is_ascii_alphabetic).collect();
                    found.entry(code.to_string()).or_insert(sev);
                }
            }
        }
    }

    #[test]
    fn tables_list_exactly_what_the_sources_emit() {
        let mut found = BTreeMap::new();
        emitted_in_sources(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut found,
        );
        let table: BTreeMap<String, String> = ST_CODES
            .iter()
            .chain(IX_CODES.iter())
            .map(|(c, s)| (c.to_string(), format!("{s:?}")))
            .collect();
        assert_eq!(found, table);
    }

    #[test]
    fn codes_are_numbered_in_order_and_unique() {
        for (prefix, table) in [("ST", &ST_CODES[..]), ("IX", &IX_CODES[..])] {
            for (i, (code, _)) in table.iter().enumerate() {
                assert_eq!(*code, format!("{prefix}{:03}", i + 1));
            }
        }
        assert_eq!(emitted_codes().len(), 23 + 11 + 23);
    }
}
