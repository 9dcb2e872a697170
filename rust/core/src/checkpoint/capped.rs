//! Findings that come one per index entry or tensor (IX002, IX003, IX004, IX007): at most
//! [`LISTED_PER_FILE`] of one code about one file are built; the others are only counted and
//! folded into one last finding, so a million bad entries cost a counter each, not a finding
//! each (nor a line each in every report).

use crate::{Code, Finding};
use std::collections::HashMap;
use std::path::Path;

/// The most findings of one code about one file that are listed one by one.
pub const LISTED_PER_FILE: usize = 1_000;

/// A findings list that builds at most [`LISTED_PER_FILE`] findings per (code, file).
pub(super) struct Capped<'a, 'p> {
    out: &'a mut Vec<Finding>,
    /// (code, file) -> (how many were offered, where the first listed one is in `out`).
    groups: HashMap<(Code, &'p Path), (usize, usize)>,
}

impl<'a, 'p> Capped<'a, 'p> {
    pub(super) fn new(out: &'a mut Vec<Finding>) -> Self {
        Capped {
            out,
            groups: HashMap::new(),
        }
    }

    /// Adds the finding `make` builds (a `code` finding about `file`), unless that code has
    /// already been listed [`LISTED_PER_FILE`] times for that file: then it is only counted.
    pub(super) fn push(&mut self, code: Code, file: &'p Path, make: impl FnOnce() -> Finding) {
        let at = self.out.len();
        let (offered, _) = self.groups.entry((code, file)).or_insert((0, at));
        *offered += 1;
        if *offered <= LISTED_PER_FILE {
            self.out.push(make());
        }
    }

    /// Appends, for each (code, file) with more than [`LISTED_PER_FILE`] findings, one finding
    /// (same code, file and severity) saying how many were not listed. Deterministic: in the
    /// order the groups' first findings were listed.
    pub(super) fn finish(self) {
        let mut folded: Vec<(usize, usize)> = self
            .groups
            .values()
            .filter(|(offered, _)| *offered > LISTED_PER_FILE)
            .map(|&(offered, first)| (first, offered - LISTED_PER_FILE))
            .collect();
        folded.sort_unstable();
        for (first, more) in folded {
            let like = &self.out[first];
            let mut fold = Finding::new(
                like.code,
                format!(
                    "{more} more {} findings like the ones above for this file are not listed \
                     (the first {LISTED_PER_FILE} are)",
                    like.code
                ),
            );
            fold.file.clone_from(&like.file);
            self.out.push(fold);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Severity;

    #[test]
    fn past_the_cap_findings_are_counted_then_folded() {
        let mut out = Vec::new();
        let (a, b) = (Path::new("a.json"), Path::new("b.json"));
        let mut built = 0;
        {
            let mut capped = Capped::new(&mut out);
            for i in 0..LISTED_PER_FILE + 5 {
                capped.push(Code::IX002, a, || {
                    built += 1;
                    Finding::new(Code::IX002, format!("entry {i}")).file(a)
                });
            }
            capped.push(Code::IX002, b, || Finding::new(Code::IX002, "b").file(b));
            capped.finish();
        }
        assert_eq!(built, LISTED_PER_FILE);
        assert_eq!(out.len(), LISTED_PER_FILE + 2);
        let fold = out.last().unwrap();
        assert_eq!((fold.code, fold.severity()), (Code::IX002, Severity::Error));
        assert_eq!(fold.file.as_deref(), Some(a));
        assert!(
            fold.message.starts_with("5 more IX002 findings"),
            "{}",
            fold.message
        );
    }
}
