"""Tiny stand-ins for a drafter: its config with every size field divided by one power of two,
and every tensor shape with the dimensions that are whole multiples of a size divided by the
same factor. What a loader checks survives exactly: names, dtypes, layer and head counts, aux
ids, flags, and every shape relation (fc = k x hidden, q/k/v = heads x head_dim, draft vocab
against target vocab); values do not (the harness judges loading, not numbers). A Kimi-sized
drafter becomes a model of a few MB on CPU; nothing of the drafter's weights is read."""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# Config fields that are sizes (widths, vocabularies, ranks), at any depth of the config
# (`transformer_layer_config`, `text_config`, ...). Counts (layers, heads) are not sizes.
SIZE_FIELDS = frozenset(
    {
        "hidden_size",
        "target_hidden_size",
        "intermediate_size",
        "moe_intermediate_size",
        "vocab_size",
        "draft_vocab_size",
        "target_vocab_size",
        "head_dim",
        "q_lora_rank",
        "kv_lora_rank",
        "qk_nope_head_dim",
        "qk_rope_head_dim",
        "v_head_dim",
        # DFlash2's candidate selector: codebooks [vocab, rank] and a hidden -> rank projection.
        "selector_rank",
    }
)
# Group widths that must divide hidden_size and stay as they are: the dimensions derived from
# hidden_size / group (DFlash2's kernel projection, 2 * taps * groups) then shrink with it.
DIVISOR_FIELDS = frozenset({"conv_group_size"})
# Block-quantised scales are one per block: the block edge shrinks with the weights.
BLOCK_FIELDS = frozenset({"weight_block_size"})
# Every size stays at least 2 x the factor, so a dimension that is a count (3 aux states, 8
# heads) is never mistaken for a multiple of a size.
SCALES = (16, 8, 4, 2)


@dataclass(frozen=True)
class StandIn:
    """The shrunk config, the stand-in tensors' shapes and dtypes, and the factor (1: the sizes
    have no common power-of-two factor, so the stand-ins are the drafter's own shapes)."""

    config: dict[str, Any]
    shapes: dict[str, tuple[tuple[int, ...], str]]
    scale: int

    @property
    def elements(self) -> int:
        """Elements of all stand-in tensors together (the worker allocates them)."""
        return sum(math.prod(shape) for shape, _ in self.shapes.values())


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    """Every dict in a JSON value, outermost first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def _is_size(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def size_units(config: Mapping[str, Any]) -> list[int]:
    """Every size the config states, plus the head width a config without `head_dim` implies
    (hidden_size / num_attention_heads, as transformers derives it)."""
    units: set[int] = set()
    for node in _walk(dict(config)):
        units.update(v for k, v in node.items() if k in SIZE_FIELDS and _is_size(v))
        hidden, heads = node.get("hidden_size"), node.get("num_attention_heads")
        derived = "head_dim" not in node and _is_size(hidden) and _is_size(heads)
        if derived and isinstance(hidden, int) and isinstance(heads, int) and hidden % heads == 0:
            units.add(hidden // heads)
    return sorted(units)


def choose_scale(units: Sequence[int], divided: Sequence[tuple[int, int]] = ()) -> int:
    """The largest factor of SCALES dividing every size and leaving each at least 2, and
    leaving each `divided` (size, group) pair's shrunk size a multiple of its group."""
    for scale in SCALES:
        sizes_ok = all(u % scale == 0 and u // scale >= 2 for u in units)
        groups_ok = all(
            size % scale == 0 and (size // scale) % group == 0 for size, group in divided
        )
        if units and sizes_ok and groups_ok:
            return scale
    return 1


def divided_sizes(config: Mapping[str, Any]) -> list[tuple[int, int]]:
    """(hidden_size, group) for every group width (DIVISOR_FIELDS) beside a hidden_size, or
    beside the hidden_size of the config's `transformer_layer_config` (speculators' layout)."""
    nested = config.get("transformer_layer_config")
    fallback = nested.get("hidden_size") if isinstance(nested, Mapping) else None
    out = []
    for node in _walk(dict(config)):
        hidden = node.get("hidden_size", fallback)
        for key in DIVISOR_FIELDS:
            group = node.get(key)
            if isinstance(group, int) and isinstance(hidden, int) and _is_size(group):
                out.append((hidden, group))
    return out


def shrink_shape(shape: Sequence[int], units: Sequence[int], scale: int) -> tuple[int, ...]:
    """`shape` with each dimension that is a whole multiple of a size divided by `scale`."""
    return tuple(
        d // scale if d % scale == 0 and any(d % u == 0 for u in units) else d for d in shape
    )


def shrink_config(config: Mapping[str, Any], scale: int) -> dict[str, Any]:
    """A deep copy of `config` with every size field and block edge divided by `scale`."""
    out = copy.deepcopy(dict(config))
    if scale == 1:
        return out
    for node in _walk(out):
        for key, value in node.items():
            if key in SIZE_FIELDS and _is_size(value):
                node[key] = value // scale
            elif key in BLOCK_FIELDS and isinstance(value, list) and all(map(_is_size, value)):
                node[key] = [max(1, v // scale) for v in value]
    return out


def stand_in(
    config: Mapping[str, Any], tensors: Mapping[str, tuple[Sequence[int], str]]
) -> StandIn:
    """Stand-ins for a drafter with this config and these tensors (name -> (shape, dtype))."""
    units = size_units(config)
    scale = choose_scale(units, divided_sizes(config))
    shapes = {
        name: (shrink_shape(shape, units, scale), dtype) for name, (shape, dtype) in tensors.items()
    }
    return StandIn(shrink_config(config, scale), shapes, scale)
