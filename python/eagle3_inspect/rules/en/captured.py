"""Which target layers an engine version takes the aux hidden states from, for one drafter config
and target: the ids it reads (and where, or its default), its id convention for that target, the
capture-before-layer indices they become, and whether the target's class implements capture in
that version at all. These are the facts the EN003 / EN005 / EN006 / EN010 checks reason from,
stated for a reader (the HTML report's target section), from the same functions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from eagle3_inspect.reader.target import TargetInfo
from eagle3_inspect.rules.en.aux import capture_indices, convention_for, engine_layer_ids
from eagle3_inspect.rules.en.conditions import first_present
from eagle3_inspect.rules.en.profile import FamilyProfile


@dataclass(frozen=True)
class AuxCapture:
    """One engine version's aux capture. `read_from` is the config key the ids come from (None:
    it reads none and uses `default`); `layers` the capture-before-layer indices (None when the
    ids are not read or the family's own rules place them); `top` the highest index the target
    has room for; `target_captures` whether the target's class implements capture in this
    version (None: not checked, or no target)."""

    engine: str
    read_from: str | None
    ids: list[int] | None
    default: str
    convention: str
    layers: list[int] | None
    top: int | None
    target_captures: bool | None


def _int_list(value: Any) -> list[int] | None:
    if isinstance(value, (list, tuple)) and value and all(type(v) is int for v in value):
        return list(value)
    return None


def aux_capture(
    profile: FamilyProfile, config: Mapping[str, Any] | None, target: TargetInfo | None
) -> AuxCapture:
    """What `profile`'s engine version captures for a drafter with `config` on `target`."""
    config = config or {}
    arch = target.architectures[0] if target and target.architectures else None
    captures: bool | None = None
    if target is not None and target.architectures and profile.target_capture != "unchecked":
        entry = profile.capture
        if entry is not None:
            captures = any(a in entry.target_architectures for a in target.architectures)
    layers_n = target.num_hidden_layers if target is not None else None
    top = None
    if layers_n is not None:
        top = layers_n if profile.aux_capture_max == "N" else layers_n - 1
    if profile.aux_layer_ids_status != "verified":
        status = profile.aux_layer_ids_status
        ids = _int_list(engine_layer_ids(profile, config)) if status == "family-rules" else None
        how = "the family's own rules" if status == "family-rules" else "unconfirmed"
        return AuxCapture(profile.label, None, ids, profile.aux_default, how, None, top, captures)
    present = first_present(config, profile.aux_layer_ids)
    ids = _int_list(present[1]) if present else None
    convention = convention_for(profile, arch)
    return AuxCapture(
        engine=profile.label,
        read_from=present[0] if present and ids else None,
        ids=ids,
        default=profile.aux_default,
        convention=convention,
        layers=capture_indices(ids, convention) if ids else None,
        top=top,
        target_captures=captures,
    )


def aux_captures(
    engines: list[str],
    family: str,
    variant: str | None,
    config: Mapping[str, Any] | None,
    target: TargetInfo | None,
) -> list[AuxCapture]:
    """`aux_capture` for each engine version label (`sglang@0.5.11`) that serves `family`."""
    from eagle3_inspect.rules.en.loader import resolve_label

    out = []
    for label in engines:
        _, engine = resolve_label(label)
        profile = engine.family_profile(family, variant)
        if profile is not None:
            out.append(aux_capture(profile, config, target))
    return out
