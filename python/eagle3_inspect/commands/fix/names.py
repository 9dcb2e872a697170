"""The tensor-name half of a `fix` plan: every key rendered in one dialect (`layers.N.` or
`midlayer.`, with or without a `model.` prefix); which dialect the engine loads is decided by
simulating validate's EN name checks, not by a table here."""

from __future__ import annotations

import re

from eagle3_inspect.layout.names import MODEL_PREFIX, canonical_name

DIALECTS = (("layers", ""), ("midlayer", ""), ("layers", MODEL_PREFIX), ("midlayer", MODEL_PREFIX))
# Keys that live outside the model module in every engine: never prefixed.
_UNPREFIXED = re.compile(r"^(lm_head\.|d2t$|t2d$)")
_LAYER = re.compile(r"^layers\.(\d+)\.(.+)$")


def render(name: str, dialect: str, prefix: str, layers: int) -> str:
    """`name` in `dialect` (`layers` / `midlayer`) with `prefix`."""
    bare, _ = canonical_name(name)
    match = _LAYER.match(bare)
    if match and dialect == "midlayer":
        index, rest = match.groups()
        bare = f"midlayer.{rest}" if layers == 1 else f"midlayers.{index}.{rest}"
    if prefix and not _UNPREFIXED.match(bare):
        bare = prefix + bare
    return bare


def rename_all(names: list[str], dialect: str, prefix: str, layers: int) -> dict[str, str] | None:
    """Source name -> new name for every tensor; None when two names would collide."""
    out = {name: render(name, dialect, prefix, layers) for name in names}
    return out if len(set(out.values())) == len(out) else None
