//! The wording of the mapping findings: each message states the concrete ids and sizes involved.

use super::encoding::{Certainty, Encoding, Verdict};
use super::ids::{id_set, set_difference, IdFacts};
use super::t2d::T2dMask;
use crate::Code;

/// VM006: what the engines draft instead of the stored absolute id of the last draft id.
pub(crate) fn absolute(d2t: &[i64], verdict: &Verdict) -> String {
    let last = d2t.len().saturating_sub(1);
    let stored = d2t.last().copied().unwrap_or(0);
    let engine_id = stored.saturating_add(last as i64);
    format!(
        "d2t stores absolute target ids, not offsets ({} verdict: {}); every engine reads \
         target = d2t[i] + i, so draft id {last} becomes {engine_id} instead of {stored}",
        verdict.certainty.as_str(),
        verdict.reason
    )
}

/// VM023: the statistical verdict, with what would decide it.
pub(crate) fn likely_absolute(d2t: &[i64], arange: bool, verdict: &Verdict) -> String {
    let last = d2t.len().saturating_sub(1);
    let stored = d2t.last().copied().unwrap_or(0);
    let engine_id = stored.saturating_add(last as i64);
    let why = if arange {
        format!(
            "d2t == arange({}), the default-initialisation bug's pattern (verl-SpeCo PR #67), \
             but also what offsets over an every-other-id selection look like",
            d2t.len()
        )
    } else {
        verdict.reason.clone()
    };
    format!(
        "d2t looks like absolute target ids, by statistics only ({why}); both readings are \
         valid, and every engine reads offsets: draft id {last} maps to {engine_id}, not \
         {stored}. An evenly spaced selection stored as offsets (d2t = (k-1)*i) looks the same; \
         a t2d tensor (or checking a few ids against the tokenizer) decides it"
    )
}

/// VM007.
pub(crate) fn ambiguous(verdict: &Verdict) -> String {
    format!(
        "cannot tell offsets from absolute ids: {}; read as offsets like every engine. A t2d \
         tensor would decide it",
        verdict.reason
    )
}

/// VM008.
pub(crate) fn out_of_range(
    facts: &IdFacts,
    reading: &str,
    vt: Option<u64>,
    corrupt: bool,
) -> String {
    let (slot, id) = facts.first_out_of_range.unwrap_or((0, 0));
    let bound = vt.map_or("Vt unknown".into(), |vt| format!("Vt = {vt}"));
    let either = if corrupt {
        "; d2t read as absolute ids is not a valid selection either"
    } else {
        ""
    };
    format!(
        "{} of {} target ids ({reading}) are outside [0, Vt) ({} negative, {} too large; \
         {bound}); first: draft id {slot} -> {id}{either}",
        facts.out_of_range(),
        facts.len,
        facts.negative,
        facts.too_large
    )
}

/// VM009.
pub(crate) fn duplicates(facts: &IdFacts, reading: &str) -> String {
    let (first, repeat, id) = facts.first_duplicate.unwrap_or((0, 0, 0));
    format!(
        "{} duplicate target id(s) among {} ({reading}); first: id {id} at draft ids {first} \
         and {repeat}, so part of the draft vocabulary is wasted",
        facts.duplicates, facts.len
    )
}

/// VM010 with `t2d`, VM011 without: where the target ids first stop ascending.
pub(crate) fn order(target_ids: &[i64], has_t2d: bool) -> (Code, String) {
    let i = target_ids
        .windows(2)
        .position(|w| w[0] >= w[1])
        .unwrap_or(0);
    let (a, b) = (target_ids.get(i), target_ids.get(i + 1));
    let (a, b) = (a.copied().unwrap_or(0), b.copied().unwrap_or(0));
    let step = format!("draft id {i} -> {a}, then {} -> {b}", i + 1);
    if has_t2d {
        let msg = format!(
            "target ids are not ascending ({step}) although t2d is present: sorted producers \
             (EAGLE, SpecForge, speculators) make draft id i the i-th id of nonzero(t2d), so the \
             lm_head rows and d2t disagree"
        );
        (Code::VM010, msg)
    } else {
        let msg = format!(
            "target ids are a valid selection in frequency order, not ascending ({step}): the \
             NVIDIA Model-Optimizer layout, fine for every engine"
        );
        (Code::VM011, msg)
    }
}

/// VM013: `d2t == arange(n)`, n >= 2.
pub(crate) fn arange(
    n: usize,
    vt: Option<u64>,
    t2d: Option<&T2dMask>,
    verdict: &Verdict,
) -> String {
    let last_draft = n.saturating_sub(1);
    let last = (last_draft as u64).saturating_mul(2);
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
        "d2t == arange({n}): every engine reads target = d2t[i] + i = 2i, so draft id \
         {last_draft} becomes {last}{past_end}; an identity mapping is d2t = zeros ({t2d_note})"
    )
}

/// VM012: all zeros with a reduced vocabulary.
pub(crate) fn zeros(n: usize, vd: u64, vt: u64, t2d: Option<&T2dMask>) -> String {
    let identity_t2d = t2d
        .is_some_and(|m| m.selected.len() == n && (0i64..).zip(&m.selected).all(|(i, &s)| i == s));
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

/// VM018: how the token sets of `d2t` and `t2d` differ.
pub(crate) fn mismatch(target_ids: &[i64], reading: &str, mask: &T2dMask) -> String {
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

/// VM021: a non-identity `d2t` with equal vocabularies.
pub(crate) fn permutation(d2t: &[i64], vd: u64) -> String {
    let nonzero = d2t.iter().filter(|&&v| v != 0).count();
    format!(
        "Vd == Vt == {vd} but {nonzero} of {} d2t values are not zero: SGLang and vLLM apply \
         this permutation, EAGLE deletes the buffers when Vd == Vt and TRT-LLM has no d2t \
         parameter, so engines draft different tokens",
        d2t.len()
    )
}
