"""RoPE and position range of a model config, read from whichever layout wrote it, into one
normalised `Rope` (type, theta, scaling parameters) and `max_position_embeddings`.

Layouts (each key path is remembered, so findings can point at it):
- transformers 4: `rope_theta` and `rope_scaling` (`type` or `rope_type`, `factor`, ...);
- transformers 5: `rope_parameters` (`rope_type`, `rope_theta`, scaling fields), flat or keyed
  per layer type (`{"full_attention": {...}, "sliding_attention": {...}}`; the full-attention
  entry is the one read);
- speculators: either of the above inside `transformer_layer_config`;
- multimodal targets: either of the above inside `text_config` / `language_config` /
  `llm_config`.
The same values written in two layouts read as equal `Rope`s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Containers searched, in order, before the top level.
DRAFT_CONTAINERS = ("transformer_layer_config",)
TARGET_CONTAINERS = ("text_config", "language_config", "llm_config")
# Keys that name the RoPE type, and keys that are not scaling parameters.
TYPE_KEYS = ("rope_type", "type")
NOT_SCALING = frozenset({"rope_type", "type", "rope_theta"})
# A per-layer-type rope_parameters table is keyed by these.
LAYER_TYPES = ("full_attention", "sliding_attention", "chunked_attention")


@dataclass(frozen=True)
class Rope:
    """A config's rotary embedding. `theta` is None when the config does not state it (the
    engine then uses its own default); `scaling` holds the scaling parameters (factor, ...)."""

    type: str = "default"
    theta: float | None = None
    scaling: tuple[tuple[str, Any], ...] = ()
    keys: dict[str, str] = field(default_factory=dict, compare=False)
    conflicts: tuple[str, ...] = field(default=(), compare=False)

    def scaling_dict(self) -> dict[str, Any]:
        return dict(self.scaling)

    def describe(self) -> str:
        theta = "unstated" if self.theta is None else _number(self.theta)
        scaling = ", ".join(f"{k}={_number(v)}" for k, v in self.scaling)
        return f"type {self.type}, theta {theta}" + (f", {scaling}" if scaling else "")


@dataclass(frozen=True)
class Positions:
    """`max_position_embeddings` and the RoPE of one config, with where each was read."""

    max_position_embeddings: int | None
    max_position_key: str | None
    rope: Rope


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, str) else str(value)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=0.0)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def same_rope(a: Rope, b: Rope) -> bool:
    """Equal type, theta (both stated) and scaling parameters, numbers compared as numbers."""
    if a.type != b.type:
        return False
    if a.theta is not None and b.theta is not None and not _same(a.theta, b.theta):
        return False
    sa, sb = a.scaling_dict(), b.scaling_dict()
    return sa.keys() == sb.keys() and all(_same(sa[k], sb[k]) for k in sa)


def _containers(
    config: Mapping[str, Any], nested: tuple[str, ...]
) -> list[tuple[str, Mapping[str, Any]]]:
    out: list[tuple[str, Mapping[str, Any]]] = []
    for key in nested:
        node = config.get(key)
        if isinstance(node, Mapping):
            out.append((f"{key}.", node))
    out.append(("", config))
    return out


def _params_table(value: Any, where: str) -> tuple[Mapping[str, Any] | None, str]:
    """A flat rope_parameters table (the full-attention one of a per-layer-type table)."""
    if not isinstance(value, Mapping):
        return None, where
    if value and all(isinstance(v, Mapping) for v in value.values()):
        for layer in LAYER_TYPES:
            if isinstance(value.get(layer), Mapping):
                return value[layer], f"{where}.{layer}"
        first = next(iter(value))
        return value[first], f"{where}.{first}"
    return value, where


def _type_of(table: Mapping[str, Any]) -> str | None:
    for key in TYPE_KEYS:
        if isinstance(table.get(key), str):
            return str(table[key])
    return None


def _scaling_of(table: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in table.items() if k not in NOT_SCALING and v is not None}


def read_rope(config: Mapping[str, Any] | None, nested: tuple[str, ...] = ()) -> Rope:
    """The RoPE a config states, from the first container (nested ones first) that has any."""
    for prefix, node in _containers(config or {}, nested):
        rope = _rope_in(node, prefix)
        if rope is not None:
            return rope
    return Rope()


def _rope_in(node: Mapping[str, Any], prefix: str) -> Rope | None:
    keys: dict[str, str] = {}
    readings: list[tuple[str, str | None, Any, dict[str, Any]]] = []
    params, at = _params_table(node.get("rope_parameters"), f"{prefix}rope_parameters")
    if params is not None:
        readings.append((at, _type_of(params), params.get("rope_theta"), _scaling_of(params)))
    legacy = node.get("rope_scaling")
    theta = node.get("rope_theta")
    if isinstance(legacy, Mapping) or theta is not None:
        table = legacy if isinstance(legacy, Mapping) else {}
        legacy_theta = theta if theta is not None else table.get("rope_theta")
        where = f"{prefix}rope_scaling" if table else f"{prefix}rope_theta"
        readings.append((where, _type_of(table), legacy_theta, _scaling_of(table)))
    if not readings:
        return None
    where, kind, theta_value, scaling = readings[0]
    conflicts = []
    for other, other_kind, other_theta, other_scaling in readings[1:]:
        kind = kind or other_kind
        if theta_value is None:
            theta_value = other_theta
        elif other_theta is not None and not _same(theta_value, other_theta):
            conflicts.append(f"{where} says theta {theta_value}, {other} says {other_theta}")
        if not scaling:
            scaling = other_scaling
    keys["rope"] = where
    theta_float = float(theta_value) if isinstance(theta_value, int | float) else None
    return Rope(
        type=kind or "default",
        theta=theta_float,
        scaling=tuple(sorted(scaling.items())),
        keys=keys,
        conflicts=tuple(conflicts),
    )


def read_positions(config: Mapping[str, Any] | None, nested: tuple[str, ...] = ()) -> Positions:
    """`max_position_embeddings` (first container that has it) and the RoPE of `config`."""
    value, key = None, None
    for prefix, node in _containers(config or {}, nested):
        found = node.get("max_position_embeddings")
        if isinstance(found, int) and not isinstance(found, bool):
            value, key = found, f"{prefix}max_position_embeddings"
            break
    return Positions(value, key, read_rope(config, nested))
