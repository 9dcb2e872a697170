"""Comparing the d2t/t2d vocabulary mappings of two checkpoints as mappings, not bytes: which
encoding each side's d2t uses (`offsets`: target = draft + d2t[draft], what every engine reads;
or `absolute`: target = d2t[draft]), and whether both map the same draft ids to the same target
ids and select the same target-token set.

Seam: this is a numpy implementation of the analysis the native `vocab` module
(`analyze_vocab`, `compare_mappings`) provides. `analyze_side` and `compare_sides` are the two
entry points; to switch to the native analysis, reimplement them over it and keep the
`VocabSide` / `compare_sides` dict shapes (the diff report and its JSON only use those).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from eagle3_inspect.diff.match import canonical

if TYPE_CHECKING:
    from eagle3_inspect.checkpoint import Checkpoint


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
    reason: str = ""
    draft_vocab: int | None = None
    target_vocab: int | None = None
    targets: np.ndarray | None = None
    selected: np.ndarray | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "d2t": self.d2t,
            "t2d": self.t2d,
            "encoding": self.encoding,
            "certain": self.certain,
            "reason": self.reason,
            "draft_vocab": self.draft_vocab,
            "target_vocab": self.target_vocab,
        }


def _find(ckpt: Checkpoint, want: str) -> str | None:
    names = [n for n in ckpt.tensors if canonical(n)[0] == want and n not in ckpt.unreadable]
    return sorted(names)[0] if names else None


def _as_int(array: np.ndarray) -> np.ndarray | None:
    flat = np.asarray(array).reshape(-1)
    if flat.dtype.kind in "iub":
        return flat.astype(np.int64)
    values = flat.astype(np.float64)
    if np.all(np.isfinite(values)) and np.all(values == np.round(values)):
        return values.astype(np.int64)
    return None


def analyze_side(ckpt: Checkpoint) -> VocabSide:
    """Finds d2t/t2d (in any key dialect) and decides d2t's encoding, following the decision
    procedure of eagle3-formats.md B.4: exact with t2d, by duplicates/range/monotonicity without."""
    side = VocabSide(d2t=_find(ckpt, "d2t"), t2d=_find(ckpt, "t2d"))
    if side.t2d is not None:
        mask = np.asarray(ckpt.tensor(side.t2d)).reshape(-1)
        side.target_vocab = int(mask.size)
        side.selected = np.flatnonzero(mask.astype(bool))
    elif ckpt.config and isinstance(ckpt.config.get("vocab_size"), int):
        side.target_vocab = ckpt.config["vocab_size"]
    if side.d2t is None:
        return side
    d2t = _as_int(ckpt.tensor(side.d2t))
    if d2t is None:
        side.encoding, side.reason = "corrupt", "d2t holds non-integer values"
        return side
    side.draft_vocab = int(d2t.size)
    offsets = d2t + np.arange(d2t.size, dtype=np.int64)
    side.encoding, side.reason = _classify(d2t, offsets, side.selected, side.target_vocab)
    if side.encoding == "ambiguous":
        side.encoding, side.certain = "offsets", False
    if side.encoding == "offsets":
        side.targets = offsets
    elif side.encoding == "absolute":
        side.targets = d2t
    return side


def _classify(
    d2t: np.ndarray, offsets: np.ndarray, selected: np.ndarray | None, vt: int | None
) -> tuple[str, str]:
    if selected is not None:
        sel = set(selected.tolist())
        if set(offsets.tolist()) == sel:
            return "offsets", "d2t + arange equals the ids t2d selects"
        if set(d2t.tolist()) == sel:
            return "absolute", "d2t itself equals the ids t2d selects"
    if np.unique(d2t).size < d2t.size:
        return "offsets", "d2t has duplicates, so it cannot be absolute ids"
    limit = vt if vt is not None else np.iinfo(np.int64).max
    if offsets.size and (offsets.min() < 0 or offsets.max() >= limit):
        if d2t.min() >= 0 and d2t.max() < limit:
            return "absolute", "d2t + arange leaves [0, Vt) but d2t itself is unique and in range"
        return "corrupt", "neither d2t nor d2t + arange is a set of valid target ids"
    increasing = bool(np.all(np.diff(d2t) > 0))
    at_least_index = bool(np.all(d2t >= np.arange(d2t.size)))
    if vt is not None and increasing and at_least_index and d2t.max() > vt - d2t.size:
        return "absolute", "d2t is strictly increasing and exceeds Vt - Vd"
    return "ambiguous", "valid either way; read as offsets (the engine convention)"


def _same_set(x: np.ndarray | None, y: np.ndarray | None) -> bool | None:
    if x is None or y is None:
        return None
    return bool(np.array_equal(np.unique(x), np.unique(y)))


def compare_sides(a: VocabSide, b: VocabSide) -> dict[str, Any]:
    """The `"vocab"` block: each side, whether both map every draft id to the same target id
    (`same_mapping`, None when a side has no decodable d2t) and select the same target tokens
    (`same_token_set`), whether the encodings agree, and a one-line summary."""
    same_mapping: bool | None = None
    if a.targets is not None and b.targets is not None:
        same_mapping = bool(np.array_equal(a.targets, b.targets))
    token_set = _same_set(a.targets, b.targets)
    if token_set is None:
        token_set = _same_set(a.selected, b.selected)
    same_encoding = None if a.encoding is None or b.encoding is None else a.encoding == b.encoding
    return {
        "a": a.to_dict(),
        "b": b.to_dict(),
        "same_encoding": same_encoding,
        "same_mapping": same_mapping,
        "same_token_set": token_set,
        "summary": _summary(a, b, same_mapping, token_set),
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


def compare_vocab(a: Checkpoint, b: Checkpoint) -> dict[str, Any]:
    """Analyses both checkpoints' d2t/t2d and compares them."""
    return compare_sides(analyze_side(a), analyze_side(b))
