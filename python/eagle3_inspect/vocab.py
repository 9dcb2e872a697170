"""`VocabMapping`: the d2t/t2d analysis of a checkpoint (native, no torch), and the VM findings.

Every engine reads `d2t` as offsets: `target = draft + d2t[draft]`. The analysis decides how the
checkpoint actually stores it, how certain that verdict is, and what is wrong with the mapping.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from eagle3_inspect import _native
from eagle3_inspect.draft_config import read_draft_config
from eagle3_inspect.findings import Finding

if TYPE_CHECKING:
    from eagle3_inspect.checkpoint import Checkpoint


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
    target_ids: np.ndarray | None
    sorted: bool | None
    t2d_selected: int | None
    findings: list[Finding]
    raw: dict[str, Any]

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


def _finding(data: dict[str, Any]) -> Finding:
    from eagle3_inspect.catalog import all_rules

    doc = all_rules().get(data["code"])
    return Finding.from_dict({**data, "hint": doc.hint if doc else None})


def mapping_from_json(data: dict[str, Any]) -> VocabMapping:
    ids = data.get("target_ids")
    return VocabMapping(
        vd=data.get("vd"),
        vt=data.get("vt"),
        encoding=data["encoding"],
        certainty=data["certainty"],
        reason=data.get("reason", ""),
        target_ids=None if ids is None else np.asarray(ids, dtype=np.int64),
        sorted=data.get("sorted"),
        t2d_selected=data.get("t2d_selected"),
        findings=[_finding(f) for f in data.get("findings", [])],
        raw=data,
    )


def default_vocab_sizes(ckpt: Checkpoint) -> tuple[int | None, int | None]:
    """(Vd, Vt) as the checkpoint states them: lm_head rows or config draft_vocab_size; config
    vocab_size (t2d's length is the analysis's own fallback)."""
    config = read_draft_config(ckpt.config)
    head = ckpt.tensors.get("lm_head.weight")
    vd = head.shape[0] if head is not None and len(head.shape) == 2 else config.draft_vocab_size
    return vd, config.vocab_size


def analyze(
    ckpt: Checkpoint, draft_vocab: int | None = None, target_vocab: int | None = None
) -> VocabMapping:
    vd, vt = default_vocab_sizes(ckpt)
    data = _native.vocab_mapping(
        ckpt._native,
        draft_vocab=draft_vocab if draft_vocab is not None else vd,
        target_vocab=target_vocab if target_vocab is not None else vt,
    )
    return mapping_from_json(data)
