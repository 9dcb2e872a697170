//! `compare_mappings`: whether two analysed checkpoints draft the same target token for every
//! draft id, whatever encoding each stores.

use super::analyze::VocabAnalysis;
use super::encoding::Encoding;
use super::ids::{id_set, set_difference};
use serde::Serialize;
use std::borrow::Cow;

/// Largest Vd for which an absent `d2t` is expanded to the identity 0..Vd-1 for comparison
/// (Vd comes from untrusted config; real vocabularies are far below this).
const IDENTITY_LIMIT: u64 = 1 << 24;

/// One draft id mapped differently by the two sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SlotDifference {
    /// The draft id.
    pub draft_id: u64,
    /// Target id on side a (`None` when a has fewer draft ids).
    pub a: Option<i64>,
    /// Target id on side b (`None` when b has fewer draft ids).
    pub b: Option<i64>,
}

/// The result of [`compare_mappings`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MappingComparison {
    /// Both sides select the same set of target ids.
    pub same_token_set: bool,
    /// Every draft id maps to the same target id on both sides (so the `lm_head` rows mean the
    /// same tokens), even if one side stores offsets and the other absolute ids.
    pub same_mapping: bool,
    /// Encoding stored on side a.
    pub a_encoding: Encoding,
    /// Encoding stored on side b.
    pub b_encoding: Encoding,
    /// Draft ids compared on side a (`None` when it has no usable mapping).
    pub a_len: Option<u64>,
    /// Draft ids compared on side b.
    pub b_len: Option<u64>,
    /// Draft ids whose target differs, counting draft ids present on one side only.
    pub differing_draft_ids: u64,
    /// The lowest such draft id.
    pub first_difference: Option<SlotDifference>,
    /// Distinct target ids selected only by side a.
    pub only_in_a: u64,
    /// Distinct target ids selected only by side b.
    pub only_in_b: u64,
    /// The mappings differ as read, but agree once an [`Encoding::Ambiguous`] side is read as
    /// absolute ids: that side then almost certainly stores absolute ids (VM006).
    pub same_if_ambiguous_is_absolute: bool,
}

/// Compares the draft-to-target mappings of two analyses, using the ids each side *meant*
/// (absolute `d2t` taken as stored ids). An absent `d2t` counts as the identity onto 0..Vd-1,
/// which is what every engine does without one. A side whose `d2t` is undecodable has no
/// mapping and never compares equal.
pub fn compare_mappings(a: &VocabAnalysis, b: &VocabAnalysis) -> MappingComparison {
    let (ids_a, ids_b) = (effective_ids(a), effective_ids(b));
    let mut cmp = MappingComparison {
        same_token_set: false,
        same_mapping: false,
        a_encoding: a.encoding,
        b_encoding: b.encoding,
        a_len: ids_a.as_ref().map(|v| v.len() as u64),
        b_len: ids_b.as_ref().map(|v| v.len() as u64),
        differing_draft_ids: 0,
        first_difference: None,
        only_in_a: 0,
        only_in_b: 0,
        same_if_ambiguous_is_absolute: false,
    };
    let (Some(x), Some(y)) = (ids_a, ids_b) else {
        let both_absent = a.encoding == Encoding::Absent && b.encoding == Encoding::Absent;
        cmp.same_token_set = both_absent && a.vd == b.vd;
        cmp.same_mapping = cmp.same_token_set;
        return cmp;
    };
    for draft_id in 0..x.len().max(y.len()) {
        let (p, q) = (x.get(draft_id).copied(), y.get(draft_id).copied());
        if p != q {
            cmp.differing_draft_ids += 1;
            cmp.first_difference.get_or_insert(SlotDifference {
                draft_id: draft_id as u64,
                a: p,
                b: q,
            });
        }
    }
    let (only_a, _, only_b, _) = set_difference(&id_set(&x), &id_set(&y));
    cmp.only_in_a = only_a;
    cmp.only_in_b = only_b;
    cmp.same_token_set = only_a == 0 && only_b == 0;
    cmp.same_mapping = cmp.differing_draft_ids == 0;
    cmp.same_if_ambiguous_is_absolute = !cmp.same_mapping && {
        let (xs, ys) = (readings(a.encoding, &x), readings(b.encoding, &y));
        xs.iter().any(|p| ys.iter().any(|q| p == q))
    };
    cmp
}

/// The readings of one side: as analysed, plus the absolute-ids reading `ids[i] - i` of an
/// ambiguous side (whose target ids are `d2t + arange`).
fn readings(encoding: Encoding, ids: &[i64]) -> Vec<Cow<'_, [i64]>> {
    let mut readings = vec![Cow::Borrowed(ids)];
    if encoding == Encoding::Ambiguous {
        let absolute = (0i64..)
            .zip(ids)
            .map(|(i, &t)| t.saturating_sub(i))
            .collect();
        readings.push(Cow::Owned(absolute));
    }
    readings
}

fn effective_ids(analysis: &VocabAnalysis) -> Option<Cow<'_, [i64]>> {
    if let Some(ids) = &analysis.target_ids {
        return Some(Cow::Borrowed(ids));
    }
    let vd = analysis.vd.filter(|&vd| vd <= IDENTITY_LIMIT)?;
    let identity = analysis.encoding == Encoding::Absent;
    identity.then(|| Cow::Owned((0..vd as i64).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::tests::fixtures::*;

    #[test]
    fn compare_offsets_with_absolute_of_same_selection() {
        let sel = sorted_selection();
        let mask = t2d(VT, &sel);
        let off = run(Some(&d2t(&offsets(&sel))), Some(&mask), Some(VD), Some(VT));
        let abs = run(Some(&d2t(&sel)), Some(&mask), Some(VD), Some(VT));
        let c = compare_mappings(&off, &abs);
        assert!(c.same_mapping && c.same_token_set);
        assert_eq!(
            (c.a_encoding, c.b_encoding),
            (Encoding::Offsets, Encoding::Absolute)
        );
        let freq = run(
            Some(&d2t(&offsets(&frequency_selection()))),
            None,
            Some(VD),
            Some(VT),
        );
        let c = compare_mappings(&off, &freq);
        assert!(c.same_token_set && !c.same_mapping);
        assert_eq!(c.first_difference.map(|d| d.draft_id), Some(0));
    }

    #[test]
    fn an_ambiguous_side_that_matches_only_as_absolute_is_flagged() {
        let sel = [3, 5, 9];
        let exact = run(
            Some(&d2t(&offsets(&sel))),
            Some(&t2d(20, &sel)),
            Some(3),
            Some(20),
        );
        let ambiguous = run(Some(&d2t(&sel)), None, Some(3), Some(20));
        assert_eq!(ambiguous.encoding, Encoding::Ambiguous);
        let c = compare_mappings(&exact, &ambiguous);
        assert!(!c.same_mapping && c.same_if_ambiguous_is_absolute);
        let c = compare_mappings(&exact, &exact);
        assert!(c.same_mapping && !c.same_if_ambiguous_is_absolute);
        let other = run(Some(&d2t(&[3, 6, 10])), None, Some(3), Some(20));
        assert!(!compare_mappings(&exact, &other).same_if_ambiguous_is_absolute);
    }

    #[test]
    fn compare_absent_with_zeros_and_corrupt() {
        let absent = run(None, None, Some(VD), Some(VT));
        let zeros = run(Some(&d2t(&vec![0; VD as usize])), None, Some(VD), Some(VT));
        assert!(compare_mappings(&absent, &zeros).same_mapping);
        let mut bad = d2t(&[0]);
        bad.bytes.clear();
        let corrupt = run(Some(&bad), None, Some(1), Some(VT));
        let c = compare_mappings(&corrupt, &corrupt);
        assert!(!c.same_mapping && c.a_len.is_none());
        let shorter = run(Some(&d2t(&[0; 10])), None, Some(10), Some(VT));
        let c = compare_mappings(&zeros, &shorter);
        assert_eq!(
            (c.differing_draft_ids, c.only_in_a, c.only_in_b),
            (VD - 10, VD - 10, 0)
        );
    }
}
