"""The draft chain every comparison runs: teacher-forced EAGLE-3 drafting of `steps` tokens after
each of T positions of one sequence, all positions at once.

Row t of step 0 reads token x[t+1] and the target's aux hidden states at t (the pairing both
engines' runners make: input ids shifted left by one against the target's hidden states); row t
of step s >= 1 reads token x[t+1+s], the hidden state the draft returned for row t at step s-1,
at position t+s (the runners add 1 per step). Teacher forcing (the next true token instead of
the drafted one) keeps every step comparable with the producers' training-time-test steps.
Attention sees the chain tree (attention.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from . import attention


@dataclass
class ChainInputs:
    """tokens: [T + steps] target ids x_0..; aux: [T, K * Ht] target aux states per position."""

    tokens: torch.Tensor
    aux: torch.Tensor
    steps: int

    @property
    def rows(self) -> int:
        return int(self.aux.shape[0])


@dataclass
class StepResult:
    """One step's draft-vocab logits [T, Vd], top-1 *target* ids [T] and the hidden state the
    engine feeds to the next step [T, H]."""

    logits: torch.Tensor
    top1: torch.Tensor
    hidden: torch.Tensor


@dataclass
class ChainOutput:
    """Per step: draft-vocab logits [T, Vd] and top-1 target ids [T]."""

    logits: list[torch.Tensor]
    top1: list[torch.Tensor]


# (input_ids [T], positions [T], hidden [T, D], step) -> StepResult
StepFn = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, int], StepResult]


def run_chain(step: StepFn, inputs: ChainInputs) -> ChainOutput:
    """Drafts `inputs.steps` tokens after every position through `step` (an engine's forward)."""
    ctx = attention.AttentionContext()
    attention.CONTEXT.append(ctx)
    rows = torch.arange(inputs.rows)
    hidden = inputs.aux
    logits, top1 = [], []
    try:
        for s in range(inputs.steps):
            ctx.set_rows(rows.tolist(), [s] * inputs.rows)
            result = step(inputs.tokens[rows + 1 + s], rows + s, hidden, s)
            logits.append(result.logits.detach().float())
            top1.append(result.top1.detach())
            hidden = result.hidden
    finally:
        attention.CONTEXT.pop()
    return ChainOutput(logits, top1)
