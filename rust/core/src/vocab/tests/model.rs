//! Model-based property test: on random small `d2t`/`t2d` pairs, the findings agree with a naive
//! re-statement of each rule (hash sets and loops, no shared helpers).

use super::fixtures::*;
use crate::vocab::{Certainty, Encoding};
use crate::Code;
use proptest::prelude::*;
use std::collections::BTreeSet;

/// Vt, a d2t of values around the valid range, and an optional t2d mask of length Vt.
fn case() -> impl Strategy<Value = (u64, Vec<i64>, Option<Vec<bool>>)> {
    (1u64..40).prop_flat_map(|vt| {
        let v = vt as i64;
        let d2t = proptest::collection::vec(-v..2 * v, 0..(vt as usize + 4));
        let mask = proptest::option::of(proptest::collection::vec(any::<bool>(), vt as usize));
        (Just(vt), d2t, mask)
    })
}

/// Naive: the values are `n` distinct ids in `[0, vt)`.
fn valid(ids: &[i64], vt: u64) -> bool {
    let set: BTreeSet<i64> = ids.iter().copied().collect();
    set.len() == ids.len() && ids.iter().all(|&x| x >= 0 && (x as u64) < vt)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn findings_match_naive_rules((vt, values, mask) in case()) {
        let n = values.len();
        let offsets_ids: Vec<i64> = values.iter().enumerate().map(|(i, &v)| v + i as i64).collect();
        let selected: Option<Vec<i64>> = mask.as_ref().map(|m| {
            (0i64..).zip(m).filter(|(_, &on)| on).map(|(i, _)| i).collect()
        });
        let mask_tensor = selected.as_ref().map(|s| t2d(vt, s));
        let a = run(Some(&d2t(&values)), mask_tensor.as_ref(), Some(n as u64), Some(vt));
        let has = |code: Code| a.findings.iter().any(|f| f.code == code);

        // target_ids is the absolute reading exactly when the verdict is absolute.
        let expected_ids = if a.encoding == Encoding::Absolute { &values } else { &offsets_ids };
        prop_assert_eq!(a.target_ids.as_ref(), Some(expected_ids));
        let ids = expected_ids;
        prop_assert_eq!(has(Code::VM008),
            ids.iter().any(|&x| x < 0 || x as u64 >= vt));
        let in_range: Vec<i64> = ids.iter().copied().filter(|&x| x >= 0 && (x as u64) < vt).collect();
        let distinct: BTreeSet<i64> = in_range.iter().copied().collect();
        prop_assert_eq!(has(Code::VM009), distinct.len() != in_range.len());
        prop_assert_eq!(has(Code::VM012), n > 0 && (n as u64) < vt && values.iter().all(|&v| v == 0));
        // An encoding error needs t2d or a hard rule; a statistical verdict is VM023 only.
        let is_arange = n >= 2 && (0..).zip(&values).all(|(i, &v)| v == i);
        let decided = matches!(a.certainty, Certainty::Exact | Certainty::Certain);
        let absolute = a.encoding == Encoding::Absolute;
        prop_assert_eq!(has(Code::VM013), is_arange && decided && absolute);
        prop_assert_eq!(has(Code::VM006), !is_arange && decided && absolute);
        prop_assert_eq!(has(Code::VM023), !decided && (absolute || is_arange));
        if has(Code::VM023) {
            prop_assert!(selected.is_none() || a.certainty != Certainty::Exact);
        }

        match &selected {
            Some(sel) => {
                let sel_set: BTreeSet<i64> = sel.iter().copied().collect();
                let off_set: BTreeSet<i64> = offsets_ids.iter().copied().collect();
                let abs_set: BTreeSet<i64> = values.iter().copied().collect();
                let exact = sel.len() == n && (off_set == sel_set || abs_set == sel_set);
                prop_assert_eq!(a.certainty == Certainty::Exact, exact);
                prop_assert_eq!(has(Code::VM018), !exact);
                prop_assert_eq!(has(Code::VM017), sel.len() != n);
                if exact && off_set == sel_set {
                    prop_assert_eq!(a.encoding, Encoding::Offsets);
                }
                let sorted = ids.windows(2).all(|w| w[0] < w[1]);
                prop_assert_eq!(has(Code::VM010), valid(ids, vt) && !sorted);
            }
            None if n >= 2 => {
                let (off_ok, abs_ok) = (valid(&offsets_ids, vt), valid(&values, vt));
                let expected = match (off_ok, abs_ok) {
                    (true, false) => Some(Encoding::Offsets),
                    (false, true) => Some(Encoding::Absolute),
                    (false, false) => Some(Encoding::Corrupt),
                    (true, true) => None, // rule c, the arange default, or ambiguous
                };
                if let Some(expected) = expected {
                    prop_assert_eq!(a.encoding, expected);
                    prop_assert_eq!(a.certainty, Certainty::Certain);
                } else {
                    prop_assert!(matches!(a.encoding, Encoding::Absolute | Encoding::Ambiguous));
                }
            }
            None => prop_assert_eq!(a.encoding, Encoding::Offsets),
        }
    }
}
