"""VM rules: the d2t/t2d vocabulary mapping of a reduced-vocabulary EAGLE-3 drafter.

A drafter whose `lm_head` has Vd rows for a target with Vt tokens (Vd < Vt) stores `d2t` (int64,
shape [Vd]) and usually `t2d` (bool, shape [Vt]). Every engine (EAGLE, SGLang, vLLM, TRT-LLM)
reads `d2t` as offsets: draft id i becomes target id `i + d2t[i]`. `t2d` marks the selected
target ids; engines skip it at inference, trainers and validators use it. The checks run in the
Rust core (`eagle3_inspect_core::vocab`); severities and summaries here must match its table.
"""

from __future__ import annotations

from eagle3_inspect.catalog import RuleDoc
from eagle3_inspect.findings import Severity

_ENGINES_OFFSETS = (
    "SGLang builds hot_token_id = d2t + arange(Vd), vLLM scatters logits to arange(Vd) + d2t, "
    "EAGLE and TRT-LLM compute tokens + d2t[tokens]."
)

RULES: tuple[RuleDoc, ...] = (
    RuleDoc(
        code="VM001",
        severity=Severity.ERROR,
        summary="d2t missing while Vd < Vt",
        explanation=(
            "The draft head predicts Vd tokens but nothing says which target tokens they are. "
            "No engine fails: SGLang leaves hot_token_id = None and uses draft ids as target "
            "ids, vLLM keeps its zero-initialised draft_id_to_target_id (identity onto "
            "0..Vd-1), EAGLE keeps its zero buffer, and TRT-LLM's int32 parameter may stay "
            "uninitialised. The draft can only propose target ids 0..Vd-1 and acceptance "
            "collapses (NeMo Automodel PR #2447: d2t/t2d were saved to a side file only)."
        ),
        example="lm_head.weight [32000, 4096], vocab_size 128256, no d2t tensor",
        hint=(
            "Save the training mapping into the checkpoint as d2t (int64 offsets). If t2d is "
            "present: d2t = nonzero(t2d) - arange(Vd)."
        ),
    ),
    RuleDoc(
        code="VM002",
        severity=Severity.ERROR,
        summary="d2t has a floating-point dtype",
        explanation=(
            "d2t must be an integer tensor. Floating point loses ids: BF16 represents integers "
            "exactly only up to 256, F16 up to 2048, F32 up to 2^24. It usually comes from a "
            "dtype conversion that cast every tensor instead of only floating-point ones. The "
            "values are still analysed when all of them are integers (else VM004)."
        ),
        example="d2t: BF16 [32000]",
        hint=(
            "Re-export d2t from the training mapping as int64; when converting dtypes, cast only "
            "tensors with is_floating_point()."
        ),
    ),
    RuleDoc(
        code="VM003",
        severity=Severity.WARNING,
        summary="d2t integer dtype is not I64 or I32",
        explanation=(
            "Every producer writes int64; TRT-LLM stores int32. Narrower types cannot hold large "
            "offsets (I16 stops at 32767, I8 at 127), unsigned types cannot hold the negative "
            "offsets of a frequency-ordered (Model-Optimizer) mapping, and loaders that copy "
            "into a long parameter may reject or silently convert them."
        ),
        example="d2t: U32 [32000]",
        hint="Store d2t as int64: d2t = d2t.to(torch.int64).",
    ),
    RuleDoc(
        code="VM004",
        severity=Severity.ERROR,
        summary="d2t cannot be decoded into integer ids",
        explanation=(
            "The bytes of d2t do not give integer ids: the byte length does not match shape and "
            "dtype, the dtype cannot hold ids (BOOL, FP8, FP4, FP6, complex), a float d2t holds "
            "non-integer or non-finite values, a U64 value exceeds int64, or it has more than "
            "2^24 elements (far beyond any vocabulary; not decoded). Engines either "
            "fail to load it or read garbage; no mapping can be checked."
        ),
        example="d2t: BF16 [32000] holding 0.5; or I64 [32000] with 255999 bytes",
        hint="Regenerate d2t (int64, shape [Vd]) from the training vocabulary mapping.",
    ),
    RuleDoc(
        code="VM005",
        severity=Severity.ERROR,
        summary="d2t shape is not [Vd]",
        explanation=(
            "d2t must be 1-D with one entry per draft id (Vd = lm_head rows = draft_vocab_size). "
            "A 2-D d2t fails to load into the 1-D parameter; a length mismatch either fails to "
            "load or leaves draft ids without a target (EAGLE #241: the training data had fewer "
            "distinct tokens than draft_vocab_size). The values are analysed flattened."
        ),
        example="d2t [1, 32000]; or d2t [1746] with draft_vocab_size 32000",
        hint="Save d2t.reshape(-1) with exactly Vd entries matching the lm_head rows.",
    ),
    RuleDoc(
        code="VM006",
        severity=Severity.ERROR,
        summary="d2t stores absolute target ids, not offsets",
        explanation=(
            "d2t holds the target ids themselves, but every engine adds arange(Vd): "
            + _ENGINES_OFFSETS
            + " So draft id i proposes d2t[i] + i, a wrong token (or an out-of-range index and "
            "a CUDA assert). With t2d the verdict is exact (nonzero(t2d) equals the d2t values, "
            "not d2t + arange); without t2d it is certain when d2t + arange leaves [0, Vt) while "
            "d2t is a valid selection (rule b), or likely when d2t is strictly increasing with "
            "no repeated value, which a sorted offsets vector of that size almost never is "
            "(rule c; the message gives the probability)."
        ),
        example="d2t = [0, 1, 2, 5, ..., 128009] while t2d selects exactly those ids",
        hint="Convert to offsets: d2t_offset = d2t_abs - arange(Vd).",
    ),
    RuleDoc(
        code="VM007",
        severity=Severity.WARNING,
        summary="d2t encoding is ambiguous (offsets assumed)",
        explanation=(
            "Without t2d, d2t reads as a valid mapping both as offsets and as absolute ids, and "
            "no rule of the decision procedure separates them (typically a small or "
            "frequency-ordered vector). Engines read offsets, and so does this analysis; if the "
            "producer wrote absolute ids the draft proposes wrong tokens."
        ),
        example="d2t = [3, 5, 9], Vt = 20: offsets give ids 3, 6, 11; absolute ids 3, 5, 9",
        hint=(
            "Ship t2d with the checkpoint (bool [Vt], t2d[target_ids] = True) so the encoding "
            "can be verified, or check against the training vocabulary mapping."
        ),
    ),
    RuleDoc(
        code="VM008",
        severity=Severity.ERROR,
        summary="target ids outside [0, Vt)",
        explanation=(
            "Some draft ids map to target ids below 0 or at least Vt. vLLM scatters into a row "
            "of width Vt and SGLang indexes the target vocabulary with them: out-of-range ids "
            "raise CUDA index errors or, with negative wrap-around, silently pick wrong tokens. "
            "The message says which reading of d2t was used (offsets unless proven absolute)."
        ),
        example="d2t[31999] = 128000, so target id 159999 with Vt = 128256",
        hint=(
            "Rebuild d2t from the selected ids: d2t = selected_ids - arange(Vd), with every "
            "selected id in [0, Vt); check Vt matches the target's vocab_size."
        ),
    ),
    RuleDoc(
        code="VM009",
        severity=Severity.ERROR,
        summary="duplicate target ids",
        explanation=(
            "Two draft ids map to the same target id, so the selection has fewer than Vd "
            "distinct tokens: lm_head rows are wasted and probability mass is split. Producers "
            "build d2t from Vd distinct ids; duplicates mean a corrupted or hand-edited mapping."
        ),
        example="d2t = [0, -1, ...]: draft ids 0 and 1 both map to target id 0",
        hint="Regenerate the mapping from Vd distinct token ids: d2t = sorted_ids - arange(Vd).",
    ),
    RuleDoc(
        code="VM010",
        severity=Severity.ERROR,
        summary="target ids out of order although t2d is present",
        explanation=(
            "Producers that write t2d (EAGLE, SpecForge, speculators) sort the selected ids, so "
            "draft id i is the i-th id of nonzero(t2d) and lm_head row i was trained for it "
            "(SpecForge's validate_vocab_mapping_consistency requires this). A d2t whose target "
            "ids are a permutation of nonzero(t2d) means d2t and the lm_head rows disagree, e.g. "
            "a mapping regenerated or reordered after training (SpecForge PR #534)."
        ),
        example="t2d selects {5, 9, 12}; d2t + arange gives [9, 5, 12]",
        hint=(
            "Use the mapping the head was trained with; if the rows are known to follow sorted "
            "order: d2t = nonzero(t2d) - arange(Vd)."
        ),
    ),
    RuleDoc(
        code="VM011",
        severity=Severity.INFO,
        summary="target ids in frequency order (no t2d)",
        explanation=(
            "The target ids are a valid selection but not ascending: NVIDIA Model-Optimizer "
            "(calibrate_frequent_vocab) makes draft id i the i-th most frequent token and writes "
            "no t2d. Every engine handles this; only order-sensitive comparisons with a sorted "
            "t2d do not apply."
        ),
        example="d2t + arange = [128009, 13, 11, 279, ...]",
        hint="Nothing to fix. Compare with other mappings as sets, not element by element.",
    ),
    RuleDoc(
        code="VM012",
        severity=Severity.ERROR,
        summary="d2t all zeros while Vd < Vt",
        explanation=(
            "An all-zero d2t maps draft id i to target id i, so only target ids 0..Vd-1 can be "
            "proposed: the buffer was never filled (default zeros of EAGLE, SpecForge and vLLM) "
            "or never saved (NeMo Automodel PR #2447). A t2d that selects exactly 0..Vd-1 is the "
            "placeholder t2d[:Vd] = True (verl-SpeCo PR #66), not a trained selection. "
            "Acceptance is near zero."
        ),
        example="d2t = zeros(32000), vocab_size 128256",
        hint="Save the real training mapping: d2t = selected_ids - arange(Vd) (int64).",
    ),
    RuleDoc(
        code="VM013",
        severity=Severity.ERROR,
        summary="d2t == arange(Vd): draft id i maps to 2i",
        explanation=(
            "d2t initialised with torch.arange as an identity (verl-SpeCo PR #67) is an identity "
            "in absolute terms, but engines add arange(Vd) again, so draft id i proposes target "
            "id 2i: garbage drafts, and out-of-range indices once 2(Vd-1) >= Vt."
        ),
        example="d2t = [0, 1, 2, ..., 31999]",
        hint=(
            "An identity mapping is d2t = zeros(Vd); a real mapping is d2t = selected_ids - "
            "arange(Vd)."
        ),
    ),
    RuleDoc(
        code="VM014",
        severity=Severity.WARNING,
        summary="t2d is not a BOOL 0/1 mask",
        explanation=(
            "t2d should be a BOOL tensor of 0/1. Exporters sometimes write U8 or I64 (no engine "
            "reads t2d at inference, so nothing fails), but trainers and validators that do "
            "t2d.sum() or index with it may misbehave. Values other than 0 and 1 are read as "
            "selected (nonzero), like torch.nonzero."
        ),
        example="t2d: U8 [128256]",
        hint="Store t2d = t2d.to(torch.bool).",
    ),
    RuleDoc(
        code="VM015",
        severity=Severity.ERROR,
        summary="t2d cannot be decoded",
        explanation=(
            "The bytes of t2d do not match its shape and dtype, the dtype (FP8, FP4, FP6, "
            "complex) is not a mask, or it has more than 2^24 elements (not decoded). Loaders "
            "fail, and the exact encoding test of d2t is lost."
        ),
        example="t2d: BOOL [128256] with 32000 bytes",
        hint="Regenerate t2d: zeros(Vt, dtype=bool) with t2d[d2t + arange(Vd)] = True.",
    ),
    RuleDoc(
        code="VM016",
        severity=Severity.ERROR,
        summary="t2d shape is not [Vt]",
        explanation=(
            "t2d must be 1-D with one entry per target token. A different length means t2d was "
            "built for another target vocabulary (speculators' load_vocab_mappings checks "
            "t2d.shape[0] == verifier vocab size) or the config's vocab_size is wrong."
        ),
        example="t2d [128000] with vocab_size 128256",
        hint="Rebuild t2d with length Vt = the target's vocab_size, or fix vocab_size.",
    ),
    RuleDoc(
        code="VM017",
        severity=Severity.ERROR,
        summary="t2d.sum() != Vd",
        explanation=(
            "t2d must select exactly Vd target ids. All True is SpecForge's default buffer and "
            "all False EAGLE's inference default: the mapping was never loaded. Fewer than Vd "
            "comes from EAGLE's scandata on data with fewer distinct tokens than "
            "draft_vocab_size (EAGLE #241, #248), which does not pad."
        ),
        example="t2d.sum() = 128256 with draft_vocab_size 32000",
        hint="Rebuild t2d from d2t: t2d = zeros(Vt, bool); t2d[d2t + arange(Vd)] = True.",
    ),
    RuleDoc(
        code="VM018",
        severity=Severity.ERROR,
        summary="t2d and d2t select different token sets",
        explanation=(
            "nonzero(t2d) equals neither d2t + arange(Vd) (offsets) nor the d2t values "
            "(absolute), so the two buffers come from different mappings, e.g. a t2d "
            "regenerated after training (SpecForge PR #534) or a default buffer. Engines use "
            "only d2t; the encoding verdict then falls back to the rules without t2d."
        ),
        example="t2d selects 32000 ids, 1200 of which d2t + arange never reaches",
        hint=(
            "Keep the mapping the lm_head was trained with (usually d2t) and rebuild the other: "
            "t2d = zeros(Vt, bool); t2d[d2t + arange(Vd)] = True."
        ),
    ),
    RuleDoc(
        code="VM019",
        severity=Severity.ERROR,
        summary="draft vocabulary larger than target vocabulary",
        explanation=(
            "Vd (lm_head rows or draft_vocab_size) exceeds Vt (vocab_size of the target): some "
            "draft ids cannot map to distinct target tokens. Usually the wrong target model or "
            "a vocab_size copied from another config."
        ),
        example="lm_head.weight [152064, 4096] with vocab_size 151936",
        hint="Check vocab_size against the target model's config and draft_vocab_size.",
    ),
    RuleDoc(
        code="VM020",
        severity=Severity.INFO,
        summary="Vd == Vt: identity mapping",
        explanation=(
            "The draft and target vocabularies are the same size and the stored d2t (all "
            "zeros) and t2d (all True) are the identity. This is correct (EAGLE #222: the "
            "official Vicuna EAGLE-3 has an all-zero d2t because Vicuna's vocabulary is 32000). "
            "EAGLE deletes the buffers; speculators, Model-Optimizer and TRT-LLM omit them."
        ),
        example="vocab_size = draft_vocab_size = 32000, d2t = zeros(32000)",
        hint="Nothing to fix; the buffers may be dropped.",
    ),
    RuleDoc(
        code="VM021",
        severity=Severity.WARNING,
        summary="Vd == Vt but d2t is not all zeros",
        explanation=(
            "With equal vocabularies d2t should be absent or all zeros. A non-zero d2t is a "
            "permutation that engines treat differently: SGLang and vLLM apply it, EAGLE "
            "deletes the buffers when vocab_size == draft_vocab_size, and TRT-LLM has no d2t "
            "parameter. The same checkpoint then drafts different tokens per engine."
        ),
        example="vocab_size = draft_vocab_size = 32000, d2t[3] = 1, d2t[4] = -1",
        hint="Drop d2t/t2d (identity) or permute the lm_head rows into target order instead.",
    ),
    RuleDoc(
        code="VM022",
        severity=Severity.INFO,
        summary="target vocabulary size unknown",
        explanation=(
            "Neither t2d nor a vocab_size (draft config or target model) gives Vt, so target "
            "ids were only checked to be non-negative and rule b/c of the encoding decision "
            "could not use the upper bound."
        ),
        example="d2t present, no t2d, config without vocab_size",
        hint="Pass the target model (or its vocab_size) so the upper bound can be checked.",
    ),
)
