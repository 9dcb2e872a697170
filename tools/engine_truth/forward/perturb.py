"""Trained-looking weights for the forward comparison. The corpus drafters hold their producers'
random init, where every RMSNorm weight is exactly 1: a norm applied twice, applied to the wrong
tensor or skipped is then invisible. Each norm weight (and the LM head, when the producer trains
its own) is replaced by a seeded perturbation, the same tensors for the producer and the engines,
so a difference a trained drafter would show shows here too."""

from __future__ import annotations

import re
import zlib

import torch

NORM = re.compile(r"(^|\.)([a-z_]*norm(\.\d+)?)\.weight$")


def perturbed(tensors: dict[str, torch.Tensor], head_trained: bool) -> dict[str, torch.Tensor]:
    """A copy of `tensors` with norm weights 1 + U(-0.5, 0.5) and, with `head_trained`,
    lm_head + N(0, std of lm_head), rounded to each tensor's own dtype (bf16 in the corpus), so
    producer and engines read exactly the same values whatever dtype they load in."""
    out = {}
    for name, t in tensors.items():
        g = torch.Generator().manual_seed(zlib.crc32(name.encode()))
        if NORM.search(name):
            t = (1.0 + (torch.rand(t.shape, generator=g) - 0.5)).to(t.dtype)
        elif head_trained and name.endswith("lm_head.weight"):
            noise = torch.randn(t.shape, generator=g) * float(t.float().std())
            t = (t.float() + noise).to(t.dtype)
        out[name] = t.contiguous()
    return out
