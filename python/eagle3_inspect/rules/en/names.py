"""Tensor-name evaluation: which checkpoint tensors an engine drops, which parameters stay random.

Mirrors each engine's `load_weights`: renames first, then skipped names, then names that land on a
parameter (maybe replaced by the target's later), then conditional drops, then the engine's policy
for every other name. Required parameters are checked on the renamed, prefix-stripped names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from eagle3_inspect.findings import Finding
from eagle3_inspect.rules.en.conditions import draft_num_layers, holds, num_aux
from eagle3_inspect.rules.en.emit import finding
from eagle3_inspect.rules.en.profile import FamilyProfile, Required, Rule


def engine_name(profile: FamilyProfile, config: Mapping[str, Any] | None, name: str) -> str:
    """`name` after the profile's renames (the name the engine looks up)."""
    for rule in profile.renames:
        if holds(config, rule.when):
            name = re.sub(rule.pattern, rule.replace, name)
    return name


def _canonical(profile: FamilyProfile, name: str) -> str:
    for pattern in profile.strip_for_required:
        name = re.sub(pattern, "", name, count=1)
    return name


def _lands(rule: Rule, name: str, layers: int, aux: int) -> bool:
    match = re.search(rule.pattern, name)
    if match is None:
        return False
    groups = match.groupdict()
    if groups.get("layer") is not None and int(groups["layer"]) >= layers:
        return False
    return not (groups.get("aux") is not None and int(groups["aux"]) >= aux)


def _first(rules: Iterable[Rule], config: Mapping[str, Any] | None, name: str) -> Rule | None:
    return next((r for r in rules if holds(config, r.when) and re.search(r.pattern, name)), None)


def _shown(original: str, renamed: str) -> str:
    return original if original == renamed else f"{original} (looked up as {renamed})"


def _unmapped(profile: FamilyProfile, original: str, renamed: str) -> Finding:
    shown = _shown(original, renamed)
    if profile.unknown == "error":
        return finding(
            profile,
            "EN008",
            f"{profile.label} refuses to load: no parameter for tensor {shown}",
            tensor=original,
        )
    if profile.unknown == "warn":
        return finding(
            profile,
            "EN013",
            f"{profile.label} ignores unexpected tensor {shown} (logged only)",
            tensor=original,
        )
    return finding(
        profile,
        "EN001",
        f"{profile.label} silently drops tensor {shown}: no parameter has that name",
        tensor=original,
    )


def _expand(entry: Required, layers: int, aux: int) -> list[str]:
    names = []
    for template in entry.names:
        if "{i}" in template:
            names += [template.replace("{i}", str(i)) for i in range(layers)]
        elif "{k}" in template:
            names += [template.replace("{k}", str(k)) for k in range(aux)]
        else:
            names.append(template)
    return names


def _missing(profile: FamilyProfile, entry: Required, name: str) -> Finding:
    why = f": {entry.reason}" if entry.reason else ""
    if profile.missing == "error" and entry.severity == "error":
        return finding(
            profile,
            "EN008",
            f"{profile.label} fails to load: parameter {name} has no tensor{why}",
            tensor=name,
        )
    if entry.severity == "warning":
        return finding(
            profile, "EN014", f"{profile.label} may leave {name} uninitialised{why}", tensor=name
        )
    return finding(
        profile,
        "EN002",
        f"{profile.label} leaves parameter {name} at its initial value{why}",
        tensor=name,
    )


def check_names(
    profile: FamilyProfile, names: Iterable[str], config: Mapping[str, Any] | None
) -> list[Finding]:
    """Dropped / rejected / overridden tensors, then parameters no tensor reaches."""
    layers, aux = draft_num_layers(config), num_aux(config)
    active_params = [r for r in profile.params if holds(config, r.when)]
    findings: list[Finding] = []
    landed: set[str] = set()
    for original in sorted(names):
        renamed = engine_name(profile, config, original)
        if any(re.search(p, renamed) for p in profile.skipped):
            continue
        if any(_lands(rule, renamed, layers, aux) for rule in active_params):
            landed.add(_canonical(profile, renamed))
            override = _first(profile.overridden, config, renamed)
            if override is not None:
                findings.append(
                    finding(
                        profile,
                        "EN009",
                        f"{profile.label} replaces tensor {original} at runtime: {override.reason}",
                        tensor=original,
                    )
                )
            continue
        drop = _first(profile.dropped_when, config, renamed)
        if drop is not None:
            findings.append(
                finding(
                    profile,
                    "EN001",
                    f"{profile.label} drops tensor {_shown(original, renamed)}: {drop.reason}",
                    tensor=original,
                )
            )
            continue
        findings.append(_unmapped(profile, original, renamed))
    for entry in profile.required:
        if holds(config, entry.when):
            findings += [
                _missing(profile, entry, name)
                for name in _expand(entry, layers, aux)
                if name not in landed
            ]
    return findings
