"""`VocabMapping`: the d2t/t2d analysis of a checkpoint (native, no torch), and the VM findings.

Every engine reads `d2t` as offsets: `target = draft + d2t[draft]`. The analysis decides how the
checkpoint actually stores it, how certain that verdict is, and what is wrong with the mapping.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from eagle3_inspect import _native
from eagle3_inspect.findings import Finding
from eagle3_inspect.reader.draft_config import read_draft_config
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.registry import from_native

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class VocabMapping:
    """The mapping as the checkpoint means it, and what is wrong with it.

    `encoding` is "offsets", "absolute", "ambiguous", "corrupt" or "absent"; `certainty` is
    "exact" (decided with t2d), "certain", "likely" or "unknown". `target_ids[i]` is the target
    token of draft id i (d2t + arange for offsets; d2t itself when it stores absolute ids)."""

    vd: int | None
    vt: int | None
    encoding: str
    certainty: str
    reason: str
    sorted: bool | None
    t2d_selected: int | None
    findings: list[Finding]
    raw: Mapping[str, Any]

    @functools.cached_property
    def target_ids(self) -> np.ndarray | None:
        # Built on first use: validate never needs it, and numpy costs start-up time.
        ids = self.raw.get("target_ids")
        if ids is None:
            return None
        import numpy as np

        return np.asarray(ids, dtype=np.int64)

    def to_dict(self) -> dict[str, Any]:
        return {
            "vd": self.vd,
            "vt": self.vt,
            "encoding": self.encoding,
            "certainty": self.certainty,
            "reason": self.reason,
            "sorted": self.sorted,
            "t2d_selected": self.t2d_selected,
            "findings": [f.to_dict() for f in self.findings],
        }


def mapping_from_json(data: Mapping[str, Any]) -> VocabMapping:
    return VocabMapping(
        vd=data.get("vd"),
        vt=data.get("vt"),
        encoding=data["encoding"],
        certainty=data["certainty"],
        reason=data.get("reason", ""),
        sorted=data.get("sorted"),
        t2d_selected=data.get("t2d_selected"),
        findings=[from_native(f) for f in data.get("findings", [])],
        raw=data,
    )


def default_vocab_sizes(
    tensors: Mapping[str, TensorInfo], config: dict[str, Any] | None
) -> tuple[int | None, int | None]:
    """(Vd, Vt) as the checkpoint states them: lm_head rows or config draft_vocab_size; config
    vocab_size (t2d's length is the analysis's own fallback). A config value that is not a
    count (a float, a string, an object, a negative or 2**70: the config is untrusted) is no
    size at all here; the E3 config checks report it."""
    draft = read_draft_config(config)
    head = tensors.get("lm_head.weight")
    vd = head.shape[0] if head is not None and len(head.shape) == 2 else draft.draft_vocab_size
    return _count(vd), _count(draft.vocab_size)


def _count(value: Any) -> int | None:
    """`value` when it is an int the native analysis takes (0..2**63-1), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63:
        return value
    return None


def analyze(
    native: _native.NativeCheckpoint, draft_vocab: int | None, target_vocab: int | None
) -> VocabMapping:
    """The native d2t/t2d analysis of an open checkpoint for the given Vd and Vt."""
    data = _native.vocab_mapping(native, draft_vocab=draft_vocab, target_vocab=target_vocab)
    return mapping_from_json(data)
