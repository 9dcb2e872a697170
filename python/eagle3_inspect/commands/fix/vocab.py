"""The vocab half of a `fix` plan: a d2t of absolute ids re-encoded as offsets, a t2d mask
generated from d2t when the engine needs one, and refusals for a mapping that cannot be read or
whose d2t and t2d disagree (their VM codes)."""

from __future__ import annotations

import numpy as np

from eagle3_inspect.commands.fix.config import Refusal
from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.draft_config import read_draft_config
from eagle3_inspect.reader.target import TargetInfo
from eagle3_inspect.reader.tensorinfo import TensorInfo

# The absolute-ids d2t findings a re-encoding fixes (VM013: the absolute identity arange).
D2T_ABSOLUTE = ("VM006", "VM013")
# Verdicts decided by t2d or a hard rule: only those are rewritten (VM023 is statistics).
DECIDED = ("exact", "certain")


def offsets_d2t(
    ckpt: Checkpoint, target: TargetInfo | None
) -> tuple[np.ndarray | None, str | None]:
    """d2t re-encoded as offsets when it holds absolute ids; refuses a d2t/t2d it cannot read."""
    draft = read_draft_config(ckpt.config)
    mapping = ckpt.vocab_mapping(
        target_vocab=target.vocab_size if target and not draft.vocab_size else None
    )
    bad = [
        f for f in mapping.findings if f.severity is Severity.ERROR and f.code not in D2T_ABSOLUTE
    ]
    if bad:
        raise Refusal(bad[0].code, bad[0].message)
    if mapping.encoding != "absolute" or mapping.target_ids is None or "d2t" not in ckpt.tensors:
        return None, None
    if mapping.certainty not in DECIDED:
        return None, (
            "d2t looks like absolute target ids by statistics only (VM023): left as stored, "
            "since offsets over an evenly spaced selection look the same; ship t2d to decide"
        )
    ids = np.asarray(mapping.target_ids, dtype=np.int64)
    offsets = ids - np.arange(ids.size, dtype=np.int64)
    return offsets, "d2t holds absolute target ids: rewritten as offsets (target = draft + d2t)"


def t2d_info(size: int) -> TensorInfo:
    return TensorInfo(name="t2d", dtype="BOOL", shape=(size,), nbytes=size, file="", offset=0)


def needs_t2d(findings: list[Finding]) -> bool:
    return any(f.tensor == "t2d" and f.code in ("EN002", "EN008") for f in findings)


def generate_t2d(
    ckpt: Checkpoint, d2t_offsets: np.ndarray | None, size: int | None
) -> np.ndarray | None:
    if size is None:
        return None
    if d2t_offsets is None:
        ids = np.asarray(ckpt.vocab_mapping().target_ids, dtype=np.int64)
    else:
        ids = d2t_offsets + np.arange(d2t_offsets.size, dtype=np.int64)
    if ids.size > 1 and bool(np.any(np.diff(ids) <= 0)):
        # A t2d mask implies draft id i = the i-th selected target id; an unsorted d2t would
        # then disagree with its own t2d (VM010), so the mask cannot be derived.
        raise Refusal(
            "VM010",
            "the engine needs t2d, but d2t's target ids are not ascending, so a t2d mask "
            "generated from it would disagree with the lm_head row order",
        )
    out = np.zeros(size, dtype=np.bool_)
    out[ids] = True
    return out
