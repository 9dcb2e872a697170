//! Property tests: random valid selections round-trip through both encodings, and arbitrary
//! bytes, dtypes and shapes never panic.

use super::fixtures::*;
use crate::vocab::{compare_mappings, Certainty, Encoding};
use crate::Code;
use crate::Dtype;
use proptest::prelude::*;
use proptest::sample::subsequence;

/// A target vocabulary size and a sorted selection of 1..=Vt distinct ids out of it.
fn selection() -> impl Strategy<Value = (u64, Vec<i64>)> {
    (1u64..600).prop_flat_map(|vt| {
        let all: Vec<i64> = (0..vt as i64).collect();
        (Just(vt), subsequence(all, 1..=vt as usize))
    })
}

/// The error codes a *valid* selection may still trigger: the degenerate selection that is
/// byte-identical to the all-zeros bad pattern. (The every-other-id selection whose offsets
/// are `arange` is no error: only t2d could tell it from the arange bug, VM023 warns.)
fn expected_errors(sel: &[i64], vt: u64) -> Vec<Code> {
    let n = sel.len() as i64;
    if (sel.len() as u64) < vt && sel.iter().copied().eq(0..n) {
        vec![Code::VM012]
    } else {
        vec![]
    }
}

/// The every-other-id selection: its offsets are `arange(n)`.
fn every_other(sel: &[i64]) -> bool {
    let n = sel.len() as i64;
    n >= 2 && sel.iter().copied().eq((0..n).map(|i| 2 * i))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn offsets_with_t2d_are_exact_offsets((vt, sel) in selection()) {
        let vd = sel.len() as u64;
        let a = run(Some(&d2t(&offsets(&sel))), Some(&t2d(vt, &sel)), Some(vd), Some(vt));
        prop_assert_eq!(errors(&a), expected_errors(&sel, vt));
        if expected_errors(&sel, vt).is_empty() {
            prop_assert_eq!((a.encoding, a.certainty), (Encoding::Offsets, Certainty::Exact));
            prop_assert_eq!(a.target_ids.as_deref(), Some(&sel[..]));
        }
    }

    #[test]
    fn offsets_without_t2d_are_never_called_absolute((vt, sel) in selection(), seed in any::<u64>()) {
        let vd = sel.len() as u64;
        // Sorted (EAGLE) and shuffled (Model-Optimizer frequency order) layouts.
        let mut freq = sel.clone();
        shuffle(&mut freq, seed);
        for order in [&sel, &freq] {
            let a = run(Some(&d2t(&offsets(order))), None, Some(vd), Some(vt));
            prop_assert_eq!(errors(&a), expected_errors(order, vt));
            if every_other(order) {
                // The arange pattern without t2d: a warning, never an error.
                prop_assert_eq!(a.certainty, Certainty::Likely);
                prop_assert!(codes(&a).contains(&Code::VM023));
            } else if expected_errors(order, vt).is_empty() {
                // Rule c can only misjudge with probability < RULE_C_THRESHOLD per case.
                prop_assert!(matches!(a.encoding, Encoding::Offsets | Encoding::Ambiguous));
                prop_assert_eq!(a.target_ids.as_deref(), Some(&order[..]));
            }
        }
    }

    #[test]
    fn absolute_is_detected_and_compares_equal((vt, sel) in selection()) {
        let vd = sel.len() as u64;
        let mask = t2d(vt, &sel);
        let abs = run(Some(&d2t(&sel)), Some(&mask), Some(vd), Some(vt));
        let off = run(Some(&d2t(&offsets(&sel))), Some(&mask), Some(vd), Some(vt));
        if vd >= 2 {
            prop_assert_eq!((abs.encoding, abs.certainty), (Encoding::Absolute, Certainty::Exact));
            prop_assert!(codes(&abs).contains(&Code::VM006) || codes(&abs).contains(&Code::VM013));
        }
        prop_assert_eq!(abs.target_ids.as_deref(), Some(&sel[..]));
        let c = compare_mappings(&off, &abs);
        prop_assert!(c.same_mapping && c.same_token_set);
        // Without t2d an absolute vector is absolute or ambiguous, never offsets or corrupt.
        let bare = run(Some(&d2t(&sel)), None, Some(vd), Some(vt));
        if vd >= 2 {
            prop_assert!(matches!(bare.encoding, Encoding::Absolute | Encoding::Ambiguous));
        }
        if bare.encoding == Encoding::Absolute {
            prop_assert!(compare_mappings(&off, &bare).same_mapping);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(
        d in tensor(), t in tensor(),
        vd in proptest::option::of(prop_oneof![0u64..64, any::<u64>()]),
        vt in proptest::option::of(prop_oneof![0u64..64, any::<u64>()]),
    ) {
        let (d, t) = (d.map(|mut o| { o.name = "d2t".into(); o }), t);
        let a = run(d.as_ref(), t.as_ref(), vd, vt);
        let c = compare_mappings(&a, &a);
        // A mapping equals itself; only an undecodable d2t has no mapping to compare.
        prop_assert_eq!(c.same_mapping, a.target_ids.is_some() || a.encoding == Encoding::Absent);
    }
}

/// An optional tensor with any dtype and shape: either bytes consistent with the shape (so values
/// are decoded and analysed) or arbitrary bytes.
fn tensor() -> impl Strategy<Value = Option<Owned>> {
    let dtype = proptest::sample::select(Dtype::ALL.to_vec());
    let consistent = (dtype.clone(), 0usize..40).prop_flat_map(|(dtype, n)| {
        let len = dtype.byte_len(n as u64).unwrap_or(0) as usize;
        (
            Just(dtype),
            Just(n),
            proptest::collection::vec(any::<u8>(), len),
        )
    });
    let consistent = consistent.prop_map(|(dtype, n, bytes)| Owned {
        name: "t2d".into(),
        dtype,
        shape: vec![n as u64],
        bytes,
    });
    let shapes = proptest::collection::vec(prop_oneof![0u64..8, any::<u64>()], 0..4);
    let arbitrary = (dtype, shapes, proptest::collection::vec(any::<u8>(), 0..96)).prop_map(
        |(dtype, shape, bytes)| Owned {
            name: "t2d".into(),
            dtype,
            shape,
            bytes,
        },
    );
    proptest::option::of(prop_oneof![consistent, arbitrary])
}

/// Deterministic Fisher-Yates with a xorshift generator.
fn shuffle(v: &mut [i64], mut seed: u64) {
    for i in (1..v.len()).rev() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        v.swap(i, (seed % (i as u64 + 1)) as usize);
    }
}
