"""EN016 / EN017: what this engine version does when the drafter's `max_position_embeddings` is
below the target's (profile `draft_positions`): keeps the drafter's size for the draft's RoPE
cache (positions past it index out of it), or raises it to the target's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eagle3_inspect.findings import Finding
from eagle3_inspect.reader.rope import DRAFT_CONTAINERS, TARGET_CONTAINERS, read_positions
from eagle3_inspect.reader.target import TargetInfo
from eagle3_inspect.rules.en.emit import finding
from eagle3_inspect.rules.en.profile import FamilyProfile

# vLLM 0.33 config/speculative.py _CACHE_ONLY_ROPE_TYPES: RoPE types for which
# max_position_embeddings only sizes the cos/sin cache, so raising it changes nothing else.
CACHE_ONLY_ROPE_TYPES = frozenset({"default", "linear", "llama3", "ntk", "proportional"})


def check_positions(
    profile: FamilyProfile, config: Mapping[str, Any] | None, target: TargetInfo
) -> list[Finding]:
    policy = profile.draft_positions
    if not policy or not config or not target.raw:
        return []
    draft = read_positions(config, DRAFT_CONTAINERS)
    served = read_positions(target.raw, TARGET_CONTAINERS)
    d, t = draft.max_position_embeddings, served.max_position_embeddings
    if d is None or t is None or d >= t:
        return []
    where = f"({profile.positions_source})" if profile.positions_source else ""
    raised = policy == "target" or (
        policy == "target-if-cache-only-rope" and draft.rope.type in CACHE_ONLY_ROPE_TYPES
    )
    if raised:
        return [
            finding(
                profile,
                "EN017",
                f"{profile.label} raises the drafter's {draft.max_position_key} {d} to the "
                f"target's {t} before building the draft {where}",
                config_key=draft.max_position_key,
            )
        ]
    if policy == "target-if-cache-only-rope":
        effect = (
            f"RoPE type {draft.rope.type} derives its frequencies from it, so it is not raised "
            f"and the served context is limited to {d} positions"
        )
    else:
        effect = (
            f"it sizes the draft RoPE cache from it while the target serves {t} positions: "
            f"positions >= {d} index past the cache"
        )
    return [
        finding(
            profile,
            "EN016",
            f"{profile.label} keeps the drafter's {draft.max_position_key} {d} (target {t}): "
            f"{effect} {where}".rstrip(),
            config_key=draft.max_position_key,
        )
    ]
