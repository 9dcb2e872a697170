//! The `d2t` encoding verdict: offsets or absolute ids, and how certain we are.
//!
//! Implements the decision procedure of the reference (eagle3-formats.md, section B.4): an exact
//! test against `nonzero(t2d)` when `t2d` exists, otherwise rules (a) to (d). Rule (a) is taken
//! in its general form (read as absolute ids, `d2t` has duplicates *or values outside [0, Vt)*).
//! The reference's rule (c) condition `max(d2t) > Vt - Vd` implies `d2t + arange` leaves
//! `[0, Vt)` for a strictly increasing `d2t`, so rule (b) already decides those cases; rule (c)
//! here covers what is left: both readings valid and `d2t` strictly increasing, called absolute
//! when a sorted offsets selection that gap-free is improbable (see [`RULE_C_THRESHOLD`]).

use super::ids::{gap_free_log10_probability, IdFacts};
use serde::Serialize;

/// Rule (c) calls a strictly increasing `d2t` absolute when a sorted offsets vector of the same
/// size would be that gap-free with probability below this.
pub const RULE_C_THRESHOLD: f64 = 1e-6;

/// How `d2t` encodes the draft-to-target mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// `target = d2t[i] + i`: what every engine reads.
    Offsets,
    /// `target = d2t[i]`: no engine reads this; convert with `d2t - arange(Vd)`.
    Absolute,
    /// Valid both ways and nothing decides; engines (and this analysis) read offsets.
    Ambiguous,
    /// Valid neither way, or undecodable.
    Corrupt,
    /// No `d2t` tensor.
    Absent,
}

impl Encoding {
    /// Lowercase name for reports and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Offsets => "offsets",
            Encoding::Absolute => "absolute",
            Encoding::Ambiguous => "ambiguous",
            Encoding::Corrupt => "corrupt",
            Encoding::Absent => "absent",
        }
    }
}

/// How the encoding verdict was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Certainty {
    /// Decided by comparison with `nonzero(t2d)`.
    Exact,
    /// Decided by a hard rule: one reading is impossible (rules a and b of B.4), or both
    /// readings give the same ids (Vd <= 1).
    Certain,
    /// A statistical rule (rule c of B.4, or the known `arange` default): the message gives odds.
    Likely,
    /// Nothing to decide from (ambiguous, absent or undecodable `d2t`).
    Unknown,
}

impl Certainty {
    /// Lowercase name for reports and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Certainty::Exact => "exact",
            Certainty::Certain => "certain",
            Certainty::Likely => "likely",
            Certainty::Unknown => "unknown",
        }
    }
}

/// An encoding verdict with its reason.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verdict {
    pub encoding: Encoding,
    pub certainty: Certainty,
    /// Why, in words, with the numbers that decided it.
    pub reason: String,
    /// Rule (c)'s log10 probability, when it was computed.
    pub gap_free_log10_probability: Option<f64>,
}

impl Verdict {
    fn new(encoding: Encoding, certainty: Certainty, reason: impl Into<String>) -> Verdict {
        Verdict {
            encoding,
            certainty,
            reason: reason.into(),
            gap_free_log10_probability: None,
        }
    }
}

/// The exact test: `selected` is `nonzero(t2d)` (ascending). `None` when it matches neither reading.
pub(crate) fn decide_with_t2d(
    offsets_set: &[i64],
    absolute_set: &[i64],
    selected: &[i64],
    n: usize,
) -> Option<Verdict> {
    let (offsets_match, absolute_match) = (offsets_set == selected, absolute_set == selected);
    // Set equality with a set of n ids means the readings hold n distinct ids.
    let distinct = selected.len() == n;
    if offsets_match && distinct {
        let why = "nonzero(t2d) is exactly the set d2t + arange(Vd)";
        return Some(Verdict::new(Encoding::Offsets, Certainty::Exact, why));
    }
    if absolute_match && distinct {
        let why = "nonzero(t2d) is exactly the set of d2t values, not d2t + arange(Vd)";
        return Some(Verdict::new(Encoding::Absolute, Certainty::Exact, why));
    }
    None
}

/// Rules (a) to (d) without `t2d`. `offsets` and `absolute` are the facts of the two readings.
pub(crate) fn decide_without_t2d(
    offsets: &IdFacts,
    absolute: &IdFacts,
    absolute_ids: &[i64],
    vt: Option<u64>,
) -> Verdict {
    let n = offsets.len;
    if n <= 1 {
        let why = "with at most one draft id both readings give the same target id";
        return Verdict::new(Encoding::Offsets, Certainty::Certain, why);
    }
    let bound = vt.map_or("[0, Vt)".to_string(), |vt| format!("[0, {vt})"));
    match (offsets.valid(), absolute.valid()) {
        (true, false) => {
            let why = format!(
                "rule a: read as absolute ids d2t has {} duplicate(s) and {} value(s) outside {bound}",
                absolute.duplicates,
                absolute.out_of_range()
            );
            Verdict::new(Encoding::Offsets, Certainty::Certain, why)
        }
        (false, true) => {
            let why = format!(
                "rule b: d2t + arange(Vd) has {} id(s) outside {bound} and {} duplicate(s), \
                 while d2t itself is {n} distinct ids inside it",
                offsets.out_of_range(),
                offsets.duplicates
            );
            Verdict::new(Encoding::Absolute, Certainty::Certain, why)
        }
        (false, false) => {
            let why = format!("neither d2t + arange(Vd) nor d2t is {n} distinct ids in {bound}");
            Verdict::new(Encoding::Corrupt, Certainty::Certain, why)
        }
        (true, true) => rule_c(absolute_ids, absolute, n, vt),
    }
}

/// Both readings are valid: a strictly increasing `d2t` is absolute unless a sorted selection of
/// that size could plausibly have no two adjacent ids.
fn rule_c(d2t: &[i64], absolute: &IdFacts, n: usize, vt: Option<u64>) -> Verdict {
    let sorted_absolute_shape = absolute.strictly_increasing
        && d2t
            .iter()
            .enumerate()
            .all(|(i, &v)| i64::try_from(i).is_ok_and(|i| v >= i));
    if let (true, Some(vt)) = (sorted_absolute_shape, vt) {
        let log10_p = gap_free_log10_probability(n, vt);
        if log10_p < RULE_C_THRESHOLD.log10() {
            let why = format!(
                "rule c: d2t is strictly increasing with no repeated value; a sorted offsets \
                 vector of {n} ids out of {vt} has no repeated value with probability {}",
                probability_text(log10_p)
            );
            let mut verdict = Verdict::new(Encoding::Absolute, Certainty::Likely, why);
            verdict.gap_free_log10_probability = Some(log10_p);
            return verdict;
        }
    }
    let why = format!(
        "both d2t + arange(Vd) and d2t are {n} distinct ids in range{}",
        if vt.is_none() { " (Vt unknown)" } else { "" }
    );
    Verdict::new(Encoding::Ambiguous, Certainty::Unknown, why)
}

/// A probability given by its log10, readable even far below f64's range.
fn probability_text(log10_p: f64) -> String {
    if log10_p > -300.0 {
        format!("{:.1e}", 10f64.powf(log10_p))
    } else {
        format!("about 1e{log10_p:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::ids::{id_set, offsets_to_ids};
    use super::*;

    fn without(d2t: &[i64], vt: Option<u64>) -> Verdict {
        let tgt = offsets_to_ids(d2t);
        decide_without_t2d(&IdFacts::of(&tgt, vt), &IdFacts::of(d2t, vt), d2t, vt)
    }

    #[test]
    fn rules_a_b_and_corrupt() {
        assert_eq!(without(&[0, 0, 3], Some(10)).encoding, Encoding::Offsets);
        assert_eq!(without(&[5, -1], Some(10)).encoding, Encoding::Offsets);
        let b = without(&[3, 9, 9 - 1], Some(10));
        assert_eq!(
            (b.encoding, b.certainty),
            (Encoding::Absolute, Certainty::Certain)
        );
        assert_eq!(without(&[9, 9, 9], Some(10)).encoding, Encoding::Corrupt);
        assert_eq!(without(&[4], Some(10)).certainty, Certainty::Certain);
    }

    #[test]
    fn rule_c_needs_long_gap_free_vectors() {
        let small = without(&[1, 4], Some(10));
        assert_eq!(
            (small.encoding, small.certainty),
            (Encoding::Ambiguous, Certainty::Unknown)
        );
        // 200 ids spaced by 3 out of 1000: as offsets they would be ids 3i + i = 4i < 1000.
        let spaced: Vec<i64> = (0..200).map(|i| 3 * i).collect();
        let v = without(&spaced, Some(1000));
        assert_eq!(
            (v.encoding, v.certainty),
            (Encoding::Absolute, Certainty::Likely)
        );
        let log10_p = v.gap_free_log10_probability;
        assert!(log10_p.is_some_and(|p| p < RULE_C_THRESHOLD.log10()));
        assert_eq!(without(&spaced, None).encoding, Encoding::Ambiguous);
    }

    #[test]
    fn exact_test_against_t2d() {
        let d2t = [2, 2, 5];
        let (off, abs) = (id_set(&offsets_to_ids(&d2t)), id_set(&d2t));
        let v = decide_with_t2d(&off, &abs, &[2, 3, 7], 3).map(|v| v.encoding);
        assert_eq!(v, Some(Encoding::Offsets));
        let d2t = [2, 4, 7];
        let (off, abs) = (id_set(&offsets_to_ids(&d2t)), id_set(&d2t));
        let v = decide_with_t2d(&off, &abs, &[2, 4, 7], 3).map(|v| v.encoding);
        assert_eq!(v, Some(Encoding::Absolute));
        assert_eq!(decide_with_t2d(&off, &abs, &[1, 2, 3], 3), None);
    }
}
