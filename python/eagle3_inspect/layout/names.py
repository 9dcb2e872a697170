"""Checkpoint key grammar of EAGLE-3 drafters: which decoder block a key belongs to.

Two dialects exist (reference D.1): `midlayer.<rest>` (EAGLE, SpecForge, old Model-Optimizer;
multi-layer exports spell `midlayer.<i>.<rest>`) and `layers.<i>.<rest>` (speculators, new
Model-Optimizer). Keys may carry a leading `model.` that some exporters keep.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The prefix some exporters leave on every key; engines differ in whether they strip it.
MODEL_PREFIX = "model."

_MIDLAYER_INDEXED = re.compile(r"^midlayer\.(\d+)\.(.+)$")
_MIDLAYER = re.compile(r"^midlayer\.(.+)$")
_LAYERS = re.compile(r"^layers\.(\d+)\.(.+)$")


@dataclass(frozen=True)
class BlockKey:
    """A key inside a decoder block: its dialect, layer index and the rest of the name."""

    dialect: str
    index: int
    rest: str
    prefix: str


def strip_model_prefix(name: str) -> str:
    """`name` without a leading `model.`."""
    return name[len(MODEL_PREFIX) :] if name.startswith(MODEL_PREFIX) else name


def parse_block_key(name: str) -> BlockKey | None:
    """The decoder-block reading of `name`, or None for a top-level key (fc, norm, lm_head...)."""
    bare = strip_model_prefix(name)
    head = name[: len(name) - len(bare)]
    match = _MIDLAYER_INDEXED.match(bare)
    if match:
        index = int(match.group(1))
        return BlockKey("midlayer", index, match.group(2), f"{head}midlayer.{index}.")
    match = _LAYERS.match(bare)
    if match:
        index = int(match.group(1))
        return BlockKey("layers", index, match.group(2), f"{head}layers.{index}.")
    match = _MIDLAYER.match(bare)
    if match:
        return BlockKey("midlayer", 0, match.group(1), f"{head}midlayer.")
    return None


def block_name(prefix: str, rest: str) -> str:
    """Join a block prefix (e.g. `midlayer.` or `layers.1.`) and a relative key."""
    return prefix + rest
