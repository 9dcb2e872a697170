//! Checks on a decoded `d2t`: the encoding verdict, the target ids it implies, their range,
//! uniqueness and order, the known bad patterns, and agreement with `t2d`.

use super::codes::*;
use super::encoding::{decide_with_t2d, decide_without_t2d, Certainty, Encoding, Verdict};
use super::ids::{id_set, offsets_to_ids, set_difference, IdFacts};
use super::raw::RawTensor;
use super::report::locate;
use super::t2d::T2dMask;
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
    let (target_ids, facts) = if absolute_reading {
        (d2t.to_vec(), absolute)
    } else {
        (offsets_ids, offsets)
    };
    let reading = if absolute_reading {
        "d2t read as absolute ids"
    } else {
        "d2t + arange(Vd)"
    };
    let mut push = |code, msg: String| out.push(locate(finding(code, msg), raw));

    if is_arange {
        push(D2T_ARANGE, arange_message(n, vt, t2d, &verdict));
    } else if let (true, Some(&stored)) = (absolute_reading, d2t.last()) {
        let last = n - 1;
        let engine_id = stored.saturating_add(last as i64);
        push(
            D2T_ABSOLUTE,
            format!(
                "d2t stores absolute target ids, not offsets ({} verdict: {}); every engine \
                 reads target = d2t[i] + i, so draft id {last} becomes {engine_id} instead of {}",
                verdict.certainty.as_str(),
                verdict.reason,
                stored
            ),
        );
    }
    if verdict.encoding == Encoding::Ambiguous {
        push(
            D2T_AMBIGUOUS,
            format!(
                "cannot tell offsets from absolute ids: {}; read as offsets like every engine. \
                 A t2d tensor would decide it",
                verdict.reason
            ),
        );
    }
    if let Some((slot, id)) = facts.first_out_of_range {
        let bound = vt.map_or("Vt unknown".into(), |vt| format!("Vt = {vt}"));
        let mut msg = format!(
            "{} of {n} target ids ({reading}) are outside [0, Vt) ({} negative, {} too large; \
             {bound}); first: draft id {slot} -> {id}",
            facts.out_of_range(),
            facts.negative,
            facts.too_large
        );
        if verdict.encoding == Encoding::Corrupt {
            msg.push_str("; d2t read as absolute ids is not a valid selection either");
        }
        push(TARGET_OUT_OF_RANGE, msg);
    }
    if let Some((first, repeat, id)) = facts.first_duplicate {
        push(
            TARGET_DUPLICATES,
            format!(
                "{} duplicate target id(s) among {n} ({reading}); first: id {id} at draft ids \
                 {first} and {repeat}, so part of the draft vocabulary is wasted",
                facts.duplicates
            ),
        );
    }
    if facts.valid() && !facts.strictly_increasing {
        let descent = target_ids
            .windows(2)
            .position(|w| w[0] >= w[1])
            .unwrap_or(0);
        let (a, b) = (target_ids[descent], target_ids[descent + 1]);
        let msg = match t2d {
            Some(_) => format!(
                "target ids are not ascending (draft id {descent} -> {a}, then {} -> {b}) although \
                 t2d is present: sorted producers (EAGLE, SpecForge, speculators) make draft id i \
                 the i-th id of nonzero(t2d), so the lm_head rows and d2t disagree",
                descent + 1
            ),
            None => format!(
                "target ids are a valid selection in frequency order, not ascending (draft id \
                 {descent} -> {a}, then {} -> {b}): the NVIDIA Model-Optimizer layout, fine for \
                 every engine",
                descent + 1
            ),
        };
        let code = if t2d.is_some() {
            TARGET_UNSORTED_WITH_T2D
        } else {
            TARGET_FREQUENCY_ORDER
        };
        push(code, msg);
    }
    if let (true, Some(vd), Some(vt)) = (all_zeros && n > 0, vd, vt) {
        if vd < vt {
            push(D2T_ALL_ZEROS, zeros_message(n, vd, vt, t2d));
        }
    }
    if let (Some(mask), false) = (t2d, verdict.certainty == Certainty::Exact) {
        push(
            T2D_D2T_MISMATCH,
            mismatch_message(&target_ids, reading, mask),
        );
    }
    if let (Some(vd), Some(vt)) = (vd, vt) {
        if vd == vt && !all_zeros && !is_arange {
            let nonzero = d2t.iter().filter(|&&v| v != 0).count();
            push(
                FULL_VOCAB_NOT_IDENTITY,
                format!(
                    "Vd == Vt == {vd} but {nonzero} of {n} d2t values are not zero: SGLang and \
                     vLLM apply this permutation, EAGLE deletes the buffers when Vd == Vt and \
                     TRT-LLM has no d2t parameter, so engines draft different tokens"
                ),
            );
        }
    }
    Mapping {
        verdict,
        target_ids,
        all_zeros,
    }
}

fn arange_message(n: usize, vt: Option<u64>, t2d: Option<&T2dMask>, verdict: &Verdict) -> String {
    let last = (n as u64 - 1) * 2;
    let past_end = match vt {
        Some(vt) if last >= vt => format!(", past the end of the target vocabulary ({vt})"),
        _ => String::new(),
    };
    let exact = verdict.certainty == Certainty::Exact;
    let t2d_note = match (t2d, exact, verdict.encoding) {
        (None, _, _) => "no t2d to confirm",
        (Some(_), true, Encoding::Absolute) => "t2d selects ids 0..Vd-1, the identity",
        (Some(_), true, _) => "t2d agrees with the 2i reading",
        (Some(_), false, _) => "t2d matches neither reading",
    };
    format!(
        "d2t == arange({n}): every engine reads target = d2t[i] + i = 2i, so draft id {} \
         becomes {last}{past_end}; an identity mapping is d2t = zeros ({t2d_note})",
        n - 1
    )
}

fn zeros_message(n: usize, vd: u64, vt: u64, t2d: Option<&T2dMask>) -> String {
    let identity_t2d = t2d.is_some_and(|m| (0i64..).zip(&m.selected).all(|(i, &s)| i == s));
    let note = if identity_t2d {
        "; t2d agrees (selects exactly ids 0..Vd-1), the placeholder t2d[:Vd] = True of \
         verl-SpeCo PR #66, not a trained selection"
    } else {
        ""
    };
    format!(
        "d2t is all zeros ({n} values) while Vd = {vd} < Vt = {vt}: every engine maps draft id \
         i to target id i, so only target ids 0..{} can ever be drafted; the mapping was never \
         saved{note}",
        n.saturating_sub(1)
    )
}

fn mismatch_message(target_ids: &[i64], reading: &str, mask: &T2dMask) -> String {
    let (only_d2t, ex_d2t, only_t2d, ex_t2d) = set_difference(&id_set(target_ids), &mask.selected);
    let example = |e: Option<i64>| e.map_or(String::new(), |v| format!(" (e.g. {v})"));
    format!(
        "t2d selects {} target ids and d2t gives {} ({reading}); {only_d2t} of the d2t ids are \
         not in t2d{} and {only_t2d} t2d ids are not reached by d2t{}; neither reading of d2t \
         matches t2d",
        mask.selected.len(),
        target_ids.len(),
        example(ex_d2t),
        example(ex_t2d)
    )
}
