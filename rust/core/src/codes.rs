//! `Code`: every finding code the core can emit (ST, IX, PT, VM), with its severity.
//!
//! Generated at build time (`build.rs`) from the rule registry's
//! `eagle3_inspect/rules/{st_ix,vm,pt}/codes.toml`, where each code is defined once with its
//! severity, summary, explanation, example, hint and evidence: an emit site names a `Code` and
//! never a severity, and a code missing from codes.toml does not compile.

use crate::Severity;
use std::fmt;

include!(concat!(env!("OUT_DIR"), "/codes.rs"));

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<Code> for &str {
    fn eq(&self, other: &Code) -> bool {
        *self == other.as_str()
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_is_numbered_from_one_without_gaps() {
        for family in ["ST", "IX", "PT", "VM"] {
            let numbers: Vec<String> = Code::ALL
                .iter()
                .filter_map(|c| c.as_str().strip_prefix(family).map(str::to_owned))
                .collect();
            let expected: Vec<String> = (1..=numbers.len()).map(|n| format!("{n:03}")).collect();
            assert_eq!(numbers, expected, "{family}");
        }
    }

    #[test]
    fn severities_are_the_registry_s() {
        assert_eq!(Code::ST001.severity(), Severity::Error);
        assert_eq!(Code::ST019.severity(), Severity::Info);
        assert_eq!(Code::IX005.severity(), Severity::Warning);
        assert_eq!(Code::VM011.severity(), Severity::Info);
        assert_eq!(Code::VM006.to_string(), "VM006");
    }
}
