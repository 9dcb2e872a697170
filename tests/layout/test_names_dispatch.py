"""parse_block_key's prefix dispatch reads every key as the three patterns tried in turn did."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from eagle3_inspect.layout.names import parse_block_key, strip_model_prefix

_MIDLAYER_INDEXED = re.compile(r"^(midlayers?)\.(\d+)\.(.*)$")
_MIDLAYER = re.compile(r"^(midlayers?)\.(.*)$")
_LAYERS = re.compile(r"^layers\.(\d+)\.(.+)$")

# Pieces of the three spellings, a newline (`$` matches before one) and an Arabic-Indic digit
# (`\d` matches it, and int() reads it).
PIECES = ["model.", "midlayer", "midlayers", "layers", "layer", ".", "0", "12", "x", "\n", "\u0663"]
KEYS = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)


def _three_patterns(name: str) -> tuple | None:
    """The parse before the dispatch (names.py at 91ff721), as a tuple."""
    bare = strip_model_prefix(name)
    head = name[: len(name) - len(bare)]
    match = _MIDLAYER_INDEXED.match(bare)
    if match:
        spelled, index = match.group(1), int(match.group(2))
        return ("midlayer", index, match.group(3), f"{head}{spelled}.{match.group(2)}.")
    match = _LAYERS.match(bare)
    if match:
        index = int(match.group(1))
        return ("layers", index, match.group(2), f"{head}layers.{index}.")
    match = _MIDLAYER.match(bare)
    if match:
        return ("midlayer", 0, match.group(2), f"{head}{match.group(1)}.")
    return None


@settings(max_examples=2000, deadline=None)
@given(KEYS)
def test_dispatch_matches_the_three_patterns(name: str) -> None:
    key = parse_block_key(name)
    got = None if key is None else (key.dialect, key.index, key.rest, key.prefix)
    assert got == _three_patterns(name)


def test_each_spelling_still_parses() -> None:
    assert parse_block_key("model.layers.3.mlp.w").prefix == "model.layers.3."
    assert parse_block_key("midlayers.2.x").index == 2
    assert parse_block_key("midlayer.x").rest == "x"
    assert parse_block_key("fc.weight") is None
