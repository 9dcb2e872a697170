"""EN015: the fc input width this engine version builds, against the checkpoint's fc.weight.

Engines size fc as (aux-state count) x (target hidden size), each version reading the count from
its own place (profile `fc_aux_count`): SGLang <= 0.5.11 and vLLM <= 0.20 always 3; SGLang >=
0.5.12 and vLLM >= 0.22 `num_aux_hidden_states`, else len(eagle_config ids), else 3 (so the
top-level ids of a speculators config do not count there); speculators len(top-level ids) or 3.
A mismatch is the stacked loader's shape assertion: the engine refuses to load the drafter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eagle3_inspect.findings import Finding
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.rules.en.conditions import first_present, shape_fact
from eagle3_inspect.rules.en.emit import finding
from eagle3_inspect.rules.en.profile import FamilyProfile

DEFAULT_AUX = 3
FC_NAMES = ("fc.weight", "model.fc.weight")


def engine_aux_count(profile: FamilyProfile, config: Mapping[str, Any]) -> tuple[int, str]:
    """(count, where it came from) as this engine version reads it."""
    found = first_present(config, profile.fc_aux_count or ())
    if found is not None:
        key, value = found
        if isinstance(value, bool):
            pass
        elif isinstance(value, int) and value > 0:
            return value, key
        elif isinstance(value, list) and value:
            return len(value), f"len({key})"
    if not profile.fc_aux_count:
        return DEFAULT_AUX, f"always {DEFAULT_AUX} in this version"
    return (
        DEFAULT_AUX,
        f"the default {DEFAULT_AUX}: none of {', '.join(profile.fc_aux_count)} is set",
    )


def _fc_input(
    tensors: Mapping[str, TensorInfo], config: Mapping[str, Any]
) -> tuple[str, int, int] | None:
    """(fc's tensor name, its input width, the target hidden size), when the checkpoint has a
    2-D fc weight and the config a hidden size."""
    name = next((n for n in FC_NAMES if n in tensors), None)
    hidden = shape_fact(config, "target_hidden_size") or shape_fact(config, "hidden_size")
    if name is None or not isinstance(hidden, int) or len(tensors[name].shape) != 2:
        return None
    return name, tensors[name].shape[1], hidden


def check_capture_count(
    profile: FamilyProfile, tensors: Mapping[str, TensorInfo], config: Mapping[str, Any]
) -> list[Finding]:
    """EN020 when the engine reads no layer ids, so the target captures its default number of
    states, while fc is built for (and the checkpoint's fc.weight holds) another number."""
    default = profile.capture_default_count
    if default is None or first_present(config, profile.aux_layer_ids) is not None:
        return []
    fc = _fc_input(tensors, config)
    if fc is None:
        return []
    name, width, hidden = fc
    if width == default * hidden:
        return []
    count, source = engine_aux_count(profile, config)
    read = ", ".join(profile.aux_layer_ids) or "nowhere"
    return [
        finding(
            profile,
            "EN020",
            f"{profile.label} reads no layer ids ({read}), so the target captures its default "
            f"{default} state(s) = {default * hidden} features, but {name} reads {width} "
            f"({width // hidden} states; fc built for {count}: {source}): the drafter "
            "cannot be fed",
            tensor=name,
        )
    ]


def check_fc_width(
    profile: FamilyProfile, tensors: Mapping[str, TensorInfo], config: Mapping[str, Any]
) -> list[Finding]:
    """EN015 when the checkpoint's fc.weight input width is not the one the engine builds."""
    if profile.fc_aux_count is None:
        return []
    fc = _fc_input(tensors, config)
    if fc is None:
        return []
    name, width, hidden = fc
    count, source = engine_aux_count(profile, config)
    if width == count * hidden:
        return []
    return [
        finding(
            profile,
            "EN015",
            f"{profile.label} builds fc for {count} aux state(s) x {hidden} = {count * hidden} "
            f"inputs (count: {source}), but {name} has {width}: the weight loader's shape "
            "assertion fails and the drafter does not load",
            tensor=name,
        )
    ]
