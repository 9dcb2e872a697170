"""Comparing the d2t/t2d vocabulary mappings of two checkpoints as mappings, not bytes: which
encoding each side's d2t uses (`offsets`: target = draft + d2t[draft], what every engine reads;
or `absolute`: target = d2t[draft]), and whether both map the same draft ids to the same target
ids and select the same target-token set. The analysis is the native one (`Checkpoint.
vocab_mapping`, `reader/compare.py`); this module finds the tensors in any key dialect and
shapes the diff's `"vocab"` block."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from eagle3_inspect.layout.names import canonical_name
from eagle3_inspect.reader.compare import vocab_analysis, vocab_comparison
from eagle3_inspect.reader.vocab import default_vocab_sizes, mapping_from_json

if TYPE_CHECKING:
    import numpy as np

    from eagle3_inspect.reader.checkpoint import Checkpoint


@dataclass
class VocabSide:
    """One checkpoint's mapping. `encoding` is `offsets`, `absolute`, `corrupt`, or None without
    a d2t; `certain` is False when d2t is formally valid either way and is read as offsets (the
    engine convention). `targets[i]` is the target id of draft id i under that encoding (None
    when unknown)."""

    d2t: str | None = None
    t2d: str | None = None
    encoding: str | None = None
    certain: bool = True
    certainty: str | None = None
    reason: str = ""
    draft_vocab: int | None = None
    target_vocab: int | None = None
    targets: np.ndarray | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "d2t": self.d2t,
            "t2d": self.t2d,
            "encoding": self.encoding,
            "certain": self.certain,
            "certainty": self.certainty,
            "reason": self.reason,
            "draft_vocab": self.draft_vocab,
            "target_vocab": self.target_vocab,
        }


def _find(ckpt: Checkpoint, want: str) -> str | None:
    names = [n for n in ckpt.tensors if canonical_name(n)[0] == want and n not in ckpt.unreadable]
    return sorted(names)[0] if names else None


def _names(ckpt: Checkpoint) -> tuple[str | None, str | None]:
    return _find(ckpt, "d2t"), _find(ckpt, "t2d")


def _side(
    d2t: str | None, t2d: str | None, analysis: Mapping[str, Any], with_targets: bool = True
) -> VocabSide:
    mapping = mapping_from_json(analysis)
    encoding = {"absent": None, "ambiguous": "offsets"}.get(mapping.encoding, mapping.encoding)
    return VocabSide(
        d2t=d2t,
        t2d=t2d,
        encoding=encoding if d2t is not None else None,
        certain=mapping.encoding != "ambiguous",
        certainty=mapping.certainty,
        reason=mapping.reason,
        draft_vocab=analysis.get("d2t_len"),
        target_vocab=mapping.vt,
        targets=mapping.target_ids if with_targets else None,
    )


def _analysis_args(ckpt: Checkpoint) -> tuple[tuple[int | None, int | None], tuple[str, str]]:
    d2t, t2d = _names(ckpt)
    _, vt = default_vocab_sizes(ckpt.tensors, ckpt.config)
    # Vd is the d2t length here: a diff compares mappings as stored, whatever lm_head says.
    return (None, vt), (d2t or "", t2d or "")


def analyze_side(ckpt: Checkpoint) -> VocabSide:
    """One checkpoint's mapping, found under any key dialect (`d2t`, `model.d2t`, ...)."""
    vocab, names = _analysis_args(ckpt)
    return _side(names[0] or None, names[1] or None, vocab_analysis(ckpt, vocab, names))


def compare_vocab(a: Checkpoint, b: Checkpoint) -> dict[str, Any]:
    """The `"vocab"` block: each side, whether both map every draft id to the same target id
    (`same_mapping`, None when a side has no decodable d2t) and select the same target tokens
    (`same_token_set`), whether the encodings agree, and a one-line summary."""
    vocab_a, names_a = _analysis_args(a)
    vocab_b, names_b = _analysis_args(b)
    data = vocab_comparison(a, b, (vocab_a, vocab_b), (names_a, names_b))
    # The comparison itself ran natively: the sides' target arrays are not needed (building
    # them would import numpy, about 50 ms of a fresh CLI process).
    side_a = _side(names_a[0] or None, names_a[1] or None, data["a"], with_targets=False)
    side_b = _side(names_b[0] or None, names_b[1] or None, data["b"], with_targets=False)
    cmp = data["comparison"]
    comparable = all(data[s].get("target_ids") is not None for s in ("a", "b"))
    same_mapping = bool(cmp["same_mapping"]) if comparable else None
    token_set = bool(cmp["same_token_set"]) if comparable else None
    same_encoding = (
        None
        if side_a.encoding is None or side_b.encoding is None
        else side_a.encoding == side_b.encoding
    )
    return {
        "a": side_a.to_dict(),
        "b": side_b.to_dict(),
        "same_encoding": same_encoding,
        "same_mapping": same_mapping,
        "same_token_set": token_set,
        "differing_draft_ids": cmp.get("differing_draft_ids") if comparable else None,
        "summary": _summary(side_a, side_b, same_mapping, token_set),
    }


def _summary(a: VocabSide, b: VocabSide, mapping: bool | None, tokens: bool | None) -> str:
    if a.d2t is None and b.d2t is None:
        return "neither side has a d2t mapping"
    if a.d2t is None or b.d2t is None:
        return f"only {'A' if b.d2t is None else 'B'} has a d2t mapping"
    enc = (
        f"both use {a.encoding} encoding"
        if a.encoding == b.encoding
        else f"A uses {a.encoding}, B uses {b.encoding} encoding"
    )
    if mapping:
        return f"same draft-to-target mapping; {enc}"
    if mapping is None:
        return f"mapping cannot be compared; {enc}"
    what = "same target tokens in a different draft order" if tokens else "different target tokens"
    return f"different mapping ({what}); {enc}"
