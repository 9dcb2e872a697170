//! Unit tests of `analyze_vocab` and `compare_mappings`: every VM code fires on its fault and
//! stays quiet on correct sorted (EAGLE/SpecForge) and frequency-ordered (Model-Optimizer) maps.
//! Topic suites live beside this file: `model` (the model-based property tests), `props`,
//! `buffers` (real safetensors buffers), `t2d`; `fixtures` holds the shared tensors and runner.

mod buffers;
pub(super) mod fixtures;
mod model;
mod props;
mod t2d;

use super::{Certainty, Encoding};
use crate::Code;
use crate::{Dtype, Severity};
use fixtures::*;

#[test]
fn sorted_mapping_with_t2d_is_quiet() {
    let sel = sorted_selection();
    let a = run(
        Some(&d2t(&offsets(&sel))),
        Some(&t2d(VT, &sel)),
        Some(VD),
        Some(VT),
    );
    assert_eq!(codes(&a), Vec::<&str>::new());
    assert_eq!(
        (a.encoding, a.certainty),
        (Encoding::Offsets, Certainty::Exact)
    );
    assert_eq!(a.target_ids.as_deref(), Some(&sel[..]));
    assert_eq!(
        (a.sorted, a.vd, a.vt, a.t2d_selected),
        (Some(true), Some(VD), Some(VT), Some(VD))
    );
}

#[test]
fn sorted_mapping_without_t2d_is_certain_offsets() {
    let sel = sorted_selection();
    let a = run(Some(&d2t(&offsets(&sel))), None, Some(VD), Some(VT));
    assert_eq!(codes(&a), Vec::<&str>::new());
    assert_eq!(
        (a.encoding, a.certainty),
        (Encoding::Offsets, Certainty::Certain)
    );
}

#[test]
fn frequency_mapping_without_t2d_is_only_info() {
    let sel = frequency_selection();
    let a = run(
        Some(&ints("d2t", Dtype::I32, &offsets(&sel))),
        None,
        Some(VD),
        Some(VT),
    );
    assert_eq!(codes(&a), vec![Code::VM011]);
    assert_eq!(a.findings[0].severity(), Severity::Info);
    assert_eq!(
        (a.encoding, a.certainty),
        (Encoding::Offsets, Certainty::Certain)
    );
    assert_eq!(
        (a.target_ids.as_deref(), a.sorted),
        (Some(&sel[..]), Some(false))
    );
}

#[test]
fn vm001_missing_d2t_only_when_reduced() {
    let sel = sorted_selection();
    let a = run(None, None, Some(VD), Some(VT));
    assert_eq!(
        (codes(&a), a.encoding),
        (vec![Code::VM001], Encoding::Absent)
    );
    let a = run(None, Some(&t2d(VT, &sel)), None, None);
    assert_eq!(codes(&a), vec![Code::VM001], "Vd and Vt implied by t2d");
    assert!(a.findings[0].message.contains("nonzero(t2d) - arange(Vd)"));
    assert_eq!(
        codes(&run(None, None, Some(VT), Some(VT))),
        Vec::<&str>::new()
    );
    let all: Vec<i64> = (0..VT as i64).collect();
    let a = run(None, Some(&t2d(VT, &all)), Some(VD), Some(VT));
    assert_eq!(codes(&a), vec![Code::VM017, Code::VM001]);
    assert!(a.findings[1].message.contains("cannot rebuild d2t"));
}

#[test]
fn vm002_float_d2t_is_error_but_analysed() {
    let sel = sorted_selection();
    let a = run(
        Some(&ints("d2t", Dtype::F32, &offsets(&sel))),
        Some(&t2d(VT, &sel)),
        None,
        None,
    );
    assert_eq!(codes(&a), vec![Code::VM002]);
    assert_eq!(a.target_ids.as_deref(), Some(&sel[..]));
}

#[test]
fn vm003_unusual_integer_dtype() {
    let sel = sorted_selection();
    let a = run(
        Some(&ints("d2t", Dtype::U32, &offsets(&sel))),
        None,
        Some(VD),
        Some(VT),
    );
    assert_eq!(codes(&a), vec![Code::VM003]);
}

#[test]
fn vm004_unreadable_d2t() {
    let mut bad = d2t(&[0, 1, 2]);
    bad.bytes.pop();
    let a = run(Some(&bad), None, Some(3), Some(10));
    assert_eq!(
        (codes(&a), a.encoding),
        (vec![Code::VM004], Encoding::Corrupt)
    );
    assert_eq!(a.target_ids, None);
    // A BF16 d2t holding 0.5: not an integer, so there is nothing to analyse.
    let mut half_id = ints("d2t", Dtype::Bf16, &[0]);
    half_id.bytes = half::bf16::from_f32(0.5).to_le_bytes().to_vec();
    let a = run(Some(&half_id), None, Some(1), Some(10));
    assert_eq!(codes(&a), vec![Code::VM002, Code::VM004]);
}

#[test]
fn vm005_shape_not_vd() {
    let sel = sorted_selection();
    let mut two_d = d2t(&offsets(&sel));
    two_d.shape = vec![1, VD];
    let a = run(Some(&two_d), Some(&t2d(VT, &sel)), Some(VD), Some(VT));
    assert_eq!(codes(&a), vec![Code::VM005]);
    let a = run(Some(&d2t(&offsets(&sel))), None, Some(VD + 8), Some(VT));
    assert_eq!(codes(&a), vec![Code::VM005]);
}

#[test]
fn vm006_absolute_with_t2d_is_exact() {
    let sel = sorted_selection();
    let a = run(Some(&d2t(&sel)), Some(&t2d(VT, &sel)), Some(VD), Some(VT));
    assert_eq!(codes(&a), vec![Code::VM006]);
    assert_eq!(
        (a.encoding, a.certainty),
        (Encoding::Absolute, Certainty::Exact)
    );
    assert_eq!(a.target_ids.as_deref(), Some(&sel[..]));
    assert!(a.findings[0].message.contains("exact verdict"));
    assert_eq!(a.findings[0].tensor.as_deref(), Some("d2t"));
}

#[test]
fn vm006_absolute_without_t2d_rule_b_and_c() {
    // Rule b: the high special ids push d2t + arange past Vt.
    let sel = sorted_selection();
    let a = run(Some(&d2t(&sel)), None, Some(VD), Some(VT));
    assert_eq!(codes(&a), vec![Code::VM006]);
    assert_eq!(
        (a.encoding, a.certainty),
        (Encoding::Absolute, Certainty::Certain)
    );
    // Rule c: 150 ids spaced by 5 out of 1000, valid both ways but far too gap-free for offsets:
    // a statistical verdict, so only VM023 (a warning), never VM006.
    let spaced: Vec<i64> = (0..150).map(|i| 5 * i + 2).collect();
    let a = run(Some(&d2t(&spaced)), None, Some(150), Some(VT));
    assert_eq!(codes(&a), vec![Code::VM023]);
    assert_eq!(
        (a.encoding, a.certainty),
        (Encoding::Absolute, Certainty::Likely)
    );
    assert!(a.findings[0].message.contains("rule c"));
    assert_eq!(a.findings[0].severity(), Severity::Warning);
}

#[test]
fn vm023_evenly_spaced_offsets_are_a_warning_not_an_error() {
    // Issue 19: Model-Optimizer's own mapping code over a strided selection (every k-th id)
    // writes the offsets d2t = (k-1)*i. Without t2d that looks like absolute ids; it is valid
    // as offsets, so it may not be an error. With t2d the exact test says offsets: silence.
    for k in [2i64, 3, 5] {
        let n = 180usize;
        let d2t_values: Vec<i64> = (0..n as i64).map(|i| (k - 1) * i).collect();
        let selection: Vec<i64> = (0..n as i64).map(|i| k * i).collect();
        let a = run(Some(&d2t(&d2t_values)), None, Some(n as u64), Some(VT));
        assert_eq!(codes(&a), vec![Code::VM023], "k = {k}");
        assert!(a.findings.iter().all(|f| f.severity() != Severity::Error));
        let a = run(
            Some(&d2t(&d2t_values)),
            Some(&t2d(VT, &selection)),
            Some(n as u64),
            Some(VT),
        );
        assert_eq!(codes(&a), Vec::<&str>::new(), "k = {k}");
        assert_eq!(
            (a.encoding, a.certainty),
            (Encoding::Offsets, Certainty::Exact)
        );
    }
}

#[test]
fn vm007_ambiguous_small_mapping() {
    let a = run(Some(&d2t(&[3, 5, 9])), None, Some(3), Some(20));
    assert_eq!(codes(&a), vec![Code::VM007]);
    assert_eq!(a.encoding, Encoding::Ambiguous);
    assert_eq!(a.target_ids, Some(vec![3, 6, 11]), "read as offsets");
}

#[test]
fn vm008_out_of_range_and_corrupt() {
    let a = run(Some(&d2t(&[7, 7, 7])), None, Some(3), Some(8));
    assert_eq!(a.encoding, Encoding::Corrupt);
    assert_eq!(errors(&a), vec![Code::VM008]);
    assert!(a.findings[0].message.contains("2 of 3 target ids"));
}

#[test]
fn vm009_duplicate_target_ids() {
    let sel = sorted_selection();
    let mut off = offsets(&sel);
    off[1] = off[0] - 1; // draft id 1 now maps to the same target as draft id 0
    let a = run(Some(&d2t(&off)), None, Some(VD), Some(VT));
    // Read as absolute ids the -1 is invalid too, so the verdict is corrupt, read as offsets.
    assert_eq!(a.encoding, Encoding::Corrupt);
    assert_eq!(codes(&a), vec![Code::VM009]);
    assert!(a.findings[0].message.contains("draft ids 0 and 1"));
}

#[test]
fn vm010_unsorted_with_t2d_is_error() {
    let sel = sorted_selection();
    let mut shuffled = sel.clone();
    shuffled.swap(10, 90);
    let a = run(
        Some(&d2t(&offsets(&shuffled))),
        Some(&t2d(VT, &sel)),
        Some(VD),
        Some(VT),
    );
    assert_eq!(codes(&a), vec![Code::VM010]);
    assert_eq!(
        (a.encoding, a.certainty),
        (Encoding::Offsets, Certainty::Exact)
    );
}

#[test]
fn vm012_all_zeros_reduced_vocab() {
    let zeros = vec![0; VD as usize];
    let a = run(Some(&d2t(&zeros)), None, Some(VD), Some(VT));
    assert_eq!(codes(&a), vec![Code::VM012]);
    let ids: Vec<i64> = (0..VD as i64).collect();
    let a = run(Some(&d2t(&zeros)), Some(&t2d(VT, &ids)), Some(VD), Some(VT));
    assert_eq!(codes(&a), vec![Code::VM012]);
    assert!(a.findings[0].message.contains("placeholder"));
    // An all-False t2d (EAGLE's inference default) is no confirmation of the identity.
    let a = run(Some(&d2t(&zeros)), Some(&t2d(VT, &[])), Some(VD), Some(VT));
    assert_eq!(codes(&a), vec![Code::VM017, Code::VM012, Code::VM018]);
    assert!(!a.findings[1].message.contains("placeholder"));
}

#[test]
fn vm013_arange_default_bug() {
    // Without t2d the arange pattern is only suspected (VM023, a warning): an every-other-id
    // selection stored as offsets is byte-identical. t2d selecting ids 0..Vd-1 makes it VM013.
    let ids: Vec<i64> = (0..VD as i64).collect();
    let a = run(Some(&d2t(&ids)), None, Some(VD), Some(VT));
    assert_eq!(codes(&a), vec![Code::VM023]);
    assert!(a.findings[0].message.contains("arange"));
    assert_eq!(
        (a.encoding, a.certainty),
        (Encoding::Absolute, Certainty::Likely)
    );
    let a = run(Some(&d2t(&ids)), Some(&t2d(VT, &ids)), Some(VD), Some(VT));
    assert_eq!(
        (codes(&a), a.certainty),
        (vec![Code::VM013], Certainty::Exact)
    );
    assert_eq!(a.target_ids, Some(ids));
}

#[test]
fn findings_carry_their_location() {
    let a = run(Some(&d2t(&[0, 1, 2])), None, Some(3), Some(10));
    for f in &a.findings {
        assert_eq!(
            f.file.as_deref(),
            Some(std::path::Path::new("model.safetensors"))
        );
    }
    assert!(!a.findings.is_empty());
}

#[test]
fn analysis_serialises_with_lowercase_enums() {
    let sel = sorted_selection();
    let a = run(Some(&d2t(&sel)), Some(&t2d(VT, &sel)), Some(VD), Some(VT));
    let json = serde_json::to_value(&a).expect("serialisable");
    assert_eq!(json["encoding"], "absolute");
    assert_eq!(json["certainty"], "exact");
    assert_eq!(json["findings"][0]["code"], "VM006");
    assert_eq!(json["findings"][0]["severity"], "error");
    assert_eq!(
        json["target_ids"].as_array().map(Vec::len),
        Some(VD as usize)
    );
}
