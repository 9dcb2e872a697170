"""Checkpoint key grammar of EAGLE-3 drafters: which decoder block a key belongs to.

Two dialects exist (reference D.1): `midlayer.<rest>` (EAGLE, SpecForge, old Model-Optimizer;
multi-layer exports spell `midlayer.<i>.<rest>` or `midlayers.<i>.<rest>`) and `layers.<i>.<rest>`
(speculators, new Model-Optimizer). Keys may carry a leading `model.` that some exporters keep.
The layout detection and the diff's rename matching (`canonical_name`) both read keys here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The prefix some exporters leave on every key; engines differ in whether they strip it.
MODEL_PREFIX = "model."
_PREFIX_LEN = len(MODEL_PREFIX)

_MIDLAYER_INDEXED = re.compile(r"^(midlayers?)\.(\d+)\.(.*)$")
_MIDLAYER = re.compile(r"^(midlayers?)\.(.*)$")
_LAYERS = re.compile(r"^layers\.(\d+)\.(.+)$")


@dataclass(frozen=True, slots=True)
class BlockKey:
    """A key inside a decoder block: its dialect, layer index and the rest of the name."""

    dialect: str
    index: int
    rest: str
    prefix: str


def strip_model_prefix(name: str) -> str:
    """`name` without a leading `model.`."""
    return name[_PREFIX_LEN:] if name.startswith(MODEL_PREFIX) else name


def parse_block_key(name: str) -> BlockKey | None:
    """The decoder-block reading of `name`, or None for a top-level key (fc, norm, lm_head...)."""
    parts = block_parts(name)
    return None if parts is None else BlockKey(*parts)


def block_parts(name: str) -> tuple[str, int, str, str] | None:
    """`parse_block_key` as a plain tuple (dialect, index, rest, prefix): the layout detection
    reads every key of a header, and a tuple costs a fraction of a BlockKey to build."""
    bare = name[_PREFIX_LEN:] if name.startswith(MODEL_PREFIX) else name
    return _parse_bare(bare, name[: len(name) - len(bare)])


def _parse_bare(bare: str, head: str) -> tuple[str, int, str, str] | None:
    # The three spellings start differently: a prefix test picks the one pattern that can match.
    if bare.startswith("layers."):
        match = _LAYERS.match(bare)
        if match:
            index = int(match.group(1))
            return ("layers", index, match.group(2), f"{head}layers.{index}.")
        return None
    if not bare.startswith("midlayer"):
        return None
    match = _MIDLAYER_INDEXED.match(bare)
    if match:
        spelled, index = match.group(1), int(match.group(2))
        return ("midlayer", index, match.group(3), f"{head}{spelled}.{match.group(2)}.")
    match = _MIDLAYER.match(bare)
    if match:
        return ("midlayer", 0, match.group(2), f"{head}{match.group(1)}.")
    return None


def canonical_name(name: str) -> tuple[str, frozenset[str]]:
    """`name` in the `layers.N.` dialect without a `model.` prefix, and the rename rules that
    took it there (`model-prefix`, `midlayer`)."""
    rules = set()
    bare = strip_model_prefix(name)
    if bare != name:
        rules.add("model-prefix")
    parts = _parse_bare(bare, "")
    if parts is not None and parts[0] == "midlayer":
        bare = f"layers.{parts[1]}.{parts[2]}"
        rules.add("midlayer")
    return bare, frozenset(rules)
