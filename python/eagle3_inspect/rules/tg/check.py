"""TG001-TG005: the drafter's `max_position_embeddings` and RoPE against the target's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eagle3_inspect.findings import Finding
from eagle3_inspect.reader.rope import (
    DRAFT_CONTAINERS,
    TARGET_CONTAINERS,
    Positions,
    Rope,
    read_positions,
    same_rope,
)
from eagle3_inspect.registry import finding


def draft_positions(config: Mapping[str, Any] | None) -> Positions:
    return read_positions(config, DRAFT_CONTAINERS)


def target_positions(config: Mapping[str, Any] | None) -> Positions:
    return read_positions(config, TARGET_CONTAINERS)


def _position_range(draft: Positions, target: Positions) -> list[Finding]:
    d, t = draft.max_position_embeddings, target.max_position_embeddings
    if d is None or t is None or d >= t:
        return []
    return [
        finding(
            "TG001",
            f"drafter {draft.max_position_key} is {d}, the target's {target.max_position_key} "
            f"is {t}: an engine that sizes the draft RoPE cache from the drafter's config "
            f"indexes past it at positions >= {d} (vllm#48894, sglang PR #10787)",
            config_key=draft.max_position_key,
        )
    ]


def _conflicts(rope: Rope, side: str) -> list[Finding]:
    return [
        finding(
            "TG005", f"{side} config states two RoPE values: {c}", config_key=rope.keys.get("rope")
        )
        for c in rope.conflicts
    ]


def _rope(draft: Rope, target: Rope) -> list[Finding]:
    where = draft.keys.get("rope")
    there = target.keys.get("rope", "its defaults")
    if draft.theta is None and target.theta is not None and draft.type == target.type:
        return [
            finding(
                "TG004",
                f"drafter states no rope_theta; the target's ({there}) is "
                f"{target.describe()}: the engine builds the draft RoPE from its own default",
                config_key=where or "rope_theta",
            )
        ]
    if same_rope(draft, target):
        return []
    code = "TG002" if draft.type == target.type and draft.scaling == target.scaling else "TG003"
    return [
        finding(
            code,
            f"drafter RoPE ({where or 'defaults'}) is {draft.describe()}, the target's "
            f"({there}) is {target.describe()}",
            config_key=where or "rope_theta",
        )
    ]


def check_positions_and_rope(
    draft_config: Mapping[str, Any] | None, target_config: Mapping[str, Any] | None
) -> list[Finding]:
    """Position range and RoPE of the drafter against the target's (any layout on either side;
    the same values in different layouts raise nothing)."""
    if not draft_config or not target_config:
        return []
    draft, target = draft_positions(draft_config), target_positions(target_config)
    out = _position_range(draft, target)
    out += _conflicts(draft.rope, "drafter") + _conflicts(target.rope, "target")
    out += _rope(draft.rope, target.rope)
    return out
