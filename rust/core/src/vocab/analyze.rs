//! `analyze_vocab`: the whole `d2t`/`t2d` analysis of one checkpoint, from raw tensors to a
//! verdict, the target ids and findings.

use super::d2t::{check_d2t_shape, read_d2t};
use super::encoding::{Certainty, Encoding};
use super::mapping::analyze_mapping;
use super::raw::RawTensor;
use super::report::locate;
use super::t2d::{read_t2d, T2dMask};
use crate::Code;
use crate::Finding;
use serde::Serialize;

/// What the analysis gets: the two tensors when present, and the vocabulary sizes when known.
#[derive(Debug, Clone, Default)]
pub struct VocabInputs<'a> {
    /// The `d2t` tensor (draft id to target id offsets), if the checkpoint has one.
    pub d2t: Option<RawTensor<'a>>,
    /// The `t2d` tensor (target vocabulary mask), if the checkpoint has one.
    pub t2d: Option<RawTensor<'a>>,
    /// Vd: from `lm_head` rows or config `draft_vocab_size`.
    pub draft_vocab: Option<u64>,
    /// Vt: from config `vocab_size` or the target model.
    pub target_vocab: Option<u64>,
}

/// The result of [`analyze_vocab`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VocabAnalysis {
    /// Vd used: `draft_vocab`, else the `d2t` length, else the number of ids `t2d` selects.
    pub vd: Option<u64>,
    /// Vt used: `target_vocab`, else the `t2d` length.
    pub vt: Option<u64>,
    /// How `d2t` encodes the mapping.
    pub encoding: Encoding,
    /// How the encoding was decided.
    pub certainty: Certainty,
    /// Why, in words (empty when there is no `d2t` to decide about).
    pub reason: String,
    /// Target id of each draft id: `d2t + arange(Vd)` for offsets, ambiguous and corrupt
    /// encodings (what engines read); `d2t` itself when absolute (what was meant). `None` when
    /// `d2t` is absent or undecodable.
    pub target_ids: Option<Vec<i64>>,
    /// `target_ids` is strictly ascending (the sorted producers' layout).
    pub sorted: Option<bool>,
    /// Number of elements of `d2t` when decodable.
    pub d2t_len: Option<u64>,
    /// Number of elements of `t2d` when decodable.
    pub t2d_len: Option<u64>,
    /// `t2d.sum()`: target ids `t2d` selects, when decodable.
    pub t2d_selected: Option<u64>,
    /// `d2t` is all zeros (identity onto ids 0..Vd-1), when decodable.
    pub d2t_all_zeros: Option<bool>,
    /// Rule (c)'s log10 probability that a sorted offsets vector of this size is as gap-free as
    /// `d2t` (no repeated value), when computed.
    pub gap_free_log10_probability: Option<f64>,
    /// Every problem found, in check order.
    pub findings: Vec<Finding>,
}

/// Analyses the vocabulary mapping. Never panics and never fails: problems are findings.
pub fn analyze_vocab(inputs: &VocabInputs<'_>) -> VocabAnalysis {
    let mut out = Vec::new();
    let d2t = inputs.d2t.as_ref().and_then(|raw| read_d2t(raw, &mut out));
    let t2d = (inputs.t2d.as_ref()).and_then(|raw| read_t2d(raw, inputs.target_vocab, &mut out));
    let vt = inputs.target_vocab.or(t2d.as_ref().map(|m| m.len));
    let vd_from_t2d = match (&inputs.d2t, &t2d) {
        (None, Some(mask)) => Some(mask.selected.len() as u64),
        _ => None,
    };
    let vd = (inputs.draft_vocab)
        .or(d2t.as_ref().map(|v| v.len() as u64))
        .or(vd_from_t2d);
    if let (Some(raw), Some(values)) = (&inputs.d2t, &d2t) {
        check_d2t_shape(raw, values.len(), inputs.draft_vocab, &mut out);
    }
    check_sizes(inputs, vd, vt, t2d.as_ref(), &mut out);

    let mut analysis = VocabAnalysis {
        vd,
        vt,
        encoding: Encoding::Absent,
        certainty: Certainty::Unknown,
        reason: String::new(),
        target_ids: None,
        sorted: None,
        d2t_len: d2t.as_ref().map(|v| v.len() as u64),
        t2d_len: t2d.as_ref().map(|m| m.len),
        t2d_selected: t2d.as_ref().map(|m| m.selected.len() as u64),
        d2t_all_zeros: None,
        gap_free_log10_probability: None,
        findings: Vec::new(),
    };
    match (&inputs.d2t, d2t) {
        (None, _) => {
            analysis.reason = "no d2t tensor".into();
            missing_d2t(vd, vt, t2d.as_ref(), &mut out);
        }
        (Some(_), None) => {
            analysis.encoding = Encoding::Corrupt;
            analysis.reason = "d2t cannot be decoded".into();
        }
        (Some(raw), Some(values)) => {
            let m = analyze_mapping(raw, &values, t2d.as_ref(), vd, vt, &mut out);
            analysis.encoding = m.verdict.encoding;
            analysis.certainty = m.verdict.certainty;
            analysis.reason = m.verdict.reason;
            analysis.gap_free_log10_probability = m.verdict.gap_free_log10_probability;
            analysis.sorted = Some(m.target_ids.windows(2).all(|w| w[0] < w[1]));
            analysis.target_ids = Some(m.target_ids);
            analysis.d2t_all_zeros = Some(m.all_zeros);
        }
    }
    identity_note(inputs, &analysis, &mut out);
    analysis.findings = out;
    analysis
}

/// Vd against Vt, an unknown Vt, and `t2d.sum()` against Vd.
fn check_sizes(
    inputs: &VocabInputs<'_>,
    vd: Option<u64>,
    vt: Option<u64>,
    t2d: Option<&T2dMask>,
    out: &mut Vec<Finding>,
) {
    if let (Some(vd), Some(vt)) = (vd, vt) {
        if vd > vt {
            let msg =
                format!("the draft vocabulary (Vd = {vd}) is larger than the target's ({vt})");
            out.push(Finding::new(Code::VM019, msg));
        }
    }
    if let (None, Some(raw)) = (vt, &inputs.d2t) {
        let msg = "Vt is unknown (no t2d, no vocab_size): target ids were checked for >= 0 only";
        out.push(locate(Finding::new(Code::VM022, msg), raw));
    }
    let (Some(mask), Some(vd), Some(raw)) = (t2d, vd, &inputs.t2d) else {
        return;
    };
    let selected = mask.selected.len() as u64;
    if selected != vd {
        let why = if selected == mask.len && selected > 0 {
            ": t2d is all True, the SpecForge default buffer, so the mapping was never loaded"
        } else if selected == 0 {
            ": t2d is all False, the EAGLE inference default buffer"
        } else if selected < vd {
            ": too few distinct tokens in the data (EAGLE's scandata does not pad, EAGLE #241)"
        } else {
            ""
        };
        let msg = format!("t2d selects {selected} target ids but Vd = {vd}{why}");
        out.push(locate(Finding::new(Code::VM017, msg), raw));
    }
}

/// VM001: no `d2t` although the draft vocabulary is reduced.
fn missing_d2t(vd: Option<u64>, vt: Option<u64>, t2d: Option<&T2dMask>, out: &mut Vec<Finding>) {
    let (Some(vd), Some(vt)) = (vd, vt) else {
        return;
    };
    if vd >= vt {
        return;
    }
    let rebuild = match t2d {
        Some(m) if m.selected.len() as u64 == vd => format!(
            "; t2d is present and selects {vd} ids: rebuild d2t = nonzero(t2d) - arange(Vd)"
        ),
        Some(m) => format!(
            "; t2d is present but selects {} ids, not Vd, so it cannot rebuild d2t",
            m.selected.len()
        ),
        None => String::new(),
    };
    let msg = format!(
        "no d2t although Vd = {vd} < Vt = {vt}: SGLang uses draft ids as target ids and vLLM \
         keeps zeros, so only target ids 0..{} can be drafted{rebuild}",
        vd.saturating_sub(1)
    );
    out.push(Finding::new(Code::VM001, msg).tensor("d2t"));
}

/// VM020: Vd == Vt and the buffers that are present are the identity.
fn identity_note(inputs: &VocabInputs<'_>, analysis: &VocabAnalysis, out: &mut Vec<Finding>) {
    let (Some(vd), Some(vt)) = (analysis.vd, analysis.vt) else {
        return;
    };
    let d2t_identity = match &inputs.d2t {
        None => true,
        Some(_) => analysis.d2t_all_zeros == Some(true),
    };
    let t2d_identity = match &inputs.t2d {
        None => true,
        Some(_) => analysis.t2d_selected == Some(vt) && analysis.t2d_len == Some(vt),
    };
    let present = inputs.d2t.is_some() || inputs.t2d.is_some();
    if vd == vt && d2t_identity && t2d_identity && present {
        let msg = format!(
            "Vd == Vt == {vd} and the stored d2t/t2d are the identity (zeros / all True): \
             nothing to map; speculators, Model-Optimizer and TRT-LLM omit these buffers"
        );
        out.push(Finding::new(Code::VM020, msg));
    }
}
