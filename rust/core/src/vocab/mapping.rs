//! Checks on a decoded `d2t`: the encoding verdict, the target ids it implies, their range,
//! uniqueness and order, the known bad patterns, and agreement with `t2d`.

use super::encoding::{decide_with_t2d, decide_without_t2d, Certainty, Encoding, Verdict};
use super::ids::{id_set, offsets_to_ids, IdFacts};
use super::messages;
use super::raw::RawTensor;
use super::report::locate;
use super::t2d::T2dMask;
use crate::Code;
use crate::Finding;

/// The verdict and the target ids of one `d2t`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mapping {
    pub verdict: Verdict,
    /// `d2t + arange` unless the verdict is absolute, then `d2t` itself (what was meant).
    pub target_ids: Vec<i64>,
    /// `d2t` is all zeros.
    pub all_zeros: bool,
}

/// Decides the encoding of `d2t` and reports every problem with the mapping it stores.
pub(crate) fn analyze_mapping(
    raw: &RawTensor<'_>,
    d2t: &[i64],
    t2d: Option<&T2dMask>,
    vd: Option<u64>,
    vt: Option<u64>,
    out: &mut Vec<Finding>,
) -> Mapping {
    let n = d2t.len();
    let offsets_ids = offsets_to_ids(d2t);
    let (offsets, absolute) = (IdFacts::of(&offsets_ids, vt), IdFacts::of(d2t, vt));
    let exact =
        t2d.and_then(|m| decide_with_t2d(&id_set(&offsets_ids), &id_set(d2t), &m.selected, n));
    let mut verdict = exact.unwrap_or_else(|| decide_without_t2d(&offsets, &absolute, d2t, vt));
    let is_arange = n >= 2 && (0i64..).zip(d2t).all(|(i, &v)| v == i);
    let all_zeros = d2t.iter().all(|&v| v == 0);
    if is_arange && verdict.encoding == Encoding::Ambiguous {
        verdict.encoding = Encoding::Absolute;
        verdict.certainty = Certainty::Likely;
        verdict.reason = format!(
            "d2t == arange({n}) is the known default-initialisation bug (verl-SpeCo PR #67): \
             identity written as absolute ids ({})",
            verdict.reason
        );
    }
    let absolute_reading = verdict.encoding == Encoding::Absolute;
    let (target_ids, facts, reading) = if absolute_reading {
        (d2t.to_vec(), absolute, "d2t read as absolute ids")
    } else {
        (offsets_ids, offsets, "d2t + arange(Vd)")
    };
    let mut push = |code, msg: String| out.push(locate(Finding::new(code, msg), raw));

    // The encoding: the arange bug is the specific diagnosis of an absolute identity. An exact
    // (t2d) or certain (one reading impossible) verdict is an error; a statistical one (rule c,
    // or an arange d2t nothing confirms) is only a warning: an evenly spaced selection written
    // as offsets (d2t = (k-1)*i, Model-Optimizer over a strided vocabulary) looks the same.
    let decided = matches!(verdict.certainty, Certainty::Exact | Certainty::Certain);
    if is_arange && decided && absolute_reading {
        push(Code::VM013, messages::arange(n, vt, t2d, &verdict));
    } else if absolute_reading && decided {
        push(Code::VM006, messages::absolute(d2t, &verdict));
    } else if !decided && (is_arange || absolute_reading) {
        push(
            Code::VM023,
            messages::likely_absolute(d2t, is_arange, &verdict),
        );
    }
    if verdict.encoding == Encoding::Ambiguous {
        push(Code::VM007, messages::ambiguous(&verdict));
    }
    // The target ids the verdict implies.
    let corrupt = verdict.encoding == Encoding::Corrupt;
    if facts.out_of_range() > 0 {
        let msg = messages::out_of_range(&facts, reading, vt, corrupt);
        push(Code::VM008, msg);
    }
    if facts.duplicates > 0 {
        push(Code::VM009, messages::duplicates(&facts, reading));
    }
    if facts.valid() && !facts.strictly_increasing {
        let (code, msg) = messages::order(&target_ids, t2d.is_some());
        push(code, msg);
    }
    // Known bad patterns and agreement with t2d and the vocabulary sizes.
    if let (true, Some(vd), Some(vt)) = (all_zeros && n > 0, vd, vt) {
        if vd < vt {
            push(Code::VM012, messages::zeros(n, vd, vt, t2d));
        }
    }
    if let (Some(mask), false) = (t2d, verdict.certainty == Certainty::Exact) {
        push(Code::VM018, messages::mismatch(&target_ids, reading, mask));
    }
    if let (Some(vd), Some(vt)) = (vd, vt) {
        if vd == vt && !all_zeros && !is_arange {
            push(Code::VM021, messages::permutation(d2t, vd));
        }
    }
    Mapping {
        verdict,
        target_ids,
        all_zeros,
    }
}
