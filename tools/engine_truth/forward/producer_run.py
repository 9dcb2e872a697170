"""What a producer's training-time forward gives for one drafter: per draft step, the logits over
the draft vocabulary and the top-1 target token ids (through the producer's own d2t), how many
leading rows are valid at that step (the producers pad the shifted tokens at the end), the aux
hidden states it was fed and which layer boundaries they came from (`stream` indices, see
inputs.py), and where that choice is made in its code. `draft_error`: when the producer's own
forward collected the aux states but its draft module then raised (no logits: `logits` empty),
where and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class ProducerRun:
    producer: str
    version: str
    logits: list[torch.Tensor]
    top1: list[torch.Tensor]
    valid: list[int]
    aux: torch.Tensor
    boundaries: list[int]
    evidence: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    draft_error: dict[str, Any] | None = None

    def summary(self) -> dict[str, Any]:
        extra = {} if self.draft_error is None else {"draft_error": self.draft_error}
        return extra | {
            "producer": self.producer,
            "version": self.version,
            "aux_boundaries": self.boundaries,
            "valid_rows": self.valid,
            "evidence": self.evidence,
            "notes": self.notes,
        }


def to_target(draft_ids: torch.Tensor, d2t: torch.Tensor | None) -> torch.Tensor:
    """Draft ids -> target ids by the offset encoding every producer writes (id + d2t[id])."""
    return draft_ids if d2t is None else draft_ids + d2t[draft_ids]


def head_outputs(model: torch.nn.Module, **inputs: Any) -> list[torch.Tensor]:
    """One no-grad `model(**inputs)` of a speculators draft model: what its `lm_head` returned at
    each call (one per TTT step), for the one sequence, as float (both speculators releases'
    forwards return nothing per step, so the head is where the logits are read)."""
    recorded: list[torch.Tensor] = []
    hook = model.lm_head.register_forward_hook(
        lambda m, a, o: recorded.append(o.detach()[0].float())
    )
    try:
        with torch.no_grad():
            model(**inputs)
    finally:
        hook.remove()
    return recorded
