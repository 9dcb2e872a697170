"""Config-level EN checks: served architecture, refused configs, ignored fields, norm flags
(measured by the forward runs where they cover the case, EN023; guessed elsewhere, EN007)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from eagle3_inspect.findings import Finding
from eagle3_inspect.reader.draft_config import NORM_FLAGS
from eagle3_inspect.rules.en.conditions import first_present, holds, shape_fact
from eagle3_inspect.rules.en.emit import finding
from eagle3_inspect.rules.en.forward_runs import PRODUCER_NORM_FLAGS, flag_run, flag_value
from eagle3_inspect.rules.en.profile import FamilyProfile, NormFlag
from eagle3_inspect.rules.family.names import family_title

CANONICAL_NORM = {
    "norm_before_residual": False,
    "norm_before_fc": False,
    "fc_norm": False,
    "norm_output": False,
}
_FC_NORM_TENSOR = re.compile(r"(^|\.)(fc_norm\.\d+|aux_norm_(low|mid|high))\.weight$")


def served_architecture(profile: FamilyProfile, config: Mapping[str, Any]) -> str | None:
    """The class name the engine would look up for this config (None when it has none, or the
    engine only serves speculators-format configs and this is not one)."""
    # vLLM's speculators config adapter and speculators' from_pretrained both dispatch on
    # speculators_model_type and never read `architectures` for such a config.
    kind = config.get("speculators_model_type")
    if kind is not None and kind == profile.speculators_model_type:
        model_type = shape_fact(config, "model_type") or "llama"
        mapping = profile.speculators_architectures
        return mapping.get(str(model_type), mapping.get("*"))
    if profile.speculators_only:
        return None
    archs = config.get("architectures")
    if not isinstance(archs, list) or not archs or not isinstance(archs[0], str):
        return None
    arch = archs[0]
    prefix = profile.architecture_prefix
    if prefix and not (arch.startswith(prefix) or arch.endswith(prefix)):
        arch = prefix + arch
    return arch


def check_architecture(profile: FamilyProfile, config: Mapping[str, Any]) -> list[Finding]:
    declared = config.get("architectures")
    arch = served_architecture(profile, config)
    if (
        not profile.draft_architectures
        or arch in profile.draft_architectures
        or arch in profile.unprofiled_draft_architectures
    ):
        return []
    served = ", ".join(sorted(profile.draft_architectures | profile.unprofiled_draft_architectures))
    if profile.speculators_only and arch is None:
        served = (
            "only speculators-format configs, speculators_model_type = "
            f"{profile.speculators_model_type!r}"
        )
    named = declared[0] if isinstance(declared, list) and declared else None
    shown = repr(named) if isinstance(named, str) else "(no architectures)"
    # The engine's lookup name, when its prefix rule made it another one.
    looked = f"looked up as {arch!r}; " if arch is not None and arch != named else ""
    return [
        finding(
            profile,
            "EN004",
            f"{profile.label} does not serve architecture {shown} for "
            f"{family_title(profile.family)} drafters ({looked}served: {served})",
            config_key="architectures",
        )
    ]


def check_rejects(profile: FamilyProfile, config: Mapping[str, Any]) -> list[Finding]:
    return [
        finding(profile, "EN008", f"{profile.label} refuses this config: {r.reason}")
        for r in profile.rejects
        if holds(config, r.when)
    ]


def check_ignored(profile: FamilyProfile, config: Mapping[str, Any]) -> list[Finding]:
    return [
        finding(
            profile,
            "EN003",
            f"{profile.label} ignores config field {rule.pattern}: {rule.reason}",
            config_key=rule.pattern,
        )
        for rule in profile.ignored
        if holds(config, rule.when) and first_present(config, [rule.pattern]) is not None
    ]


def _intent(flag: str, config: Mapping[str, Any], names: set[str]) -> tuple[bool, str] | None:
    """What the checkpoint says about `flag`: explicit config value, else tensor evidence."""
    found = first_present(config, [flag, f"eagle_config.{flag}"])
    if found is not None:
        return bool(found[1]), f"config {found[0]}={found[1]!r}"
    if flag == "norm_before_fc" and any(n.endswith("input_norm.weight") for n in names):
        return True, "tensor input_norm.weight is present"
    if flag == "fc_norm" and any(_FC_NORM_TENSOR.search(n) for n in names):
        return True, "fc_norm.* tensors are present"
    return None


def _effective(rule: NormFlag, config: Mapping[str, Any]) -> tuple[bool, str]:
    found = first_present(config, rule.read)
    if found is not None:
        return bool(found[1]), f"reads {found[0]}"
    where = f"reads only {', '.join(rule.read)}" if rule.read else "does not read this flag"
    return rule.default, f"{where}; assumes {rule.default}"


GUESS = " (a guess: no forward run covers {label} for this flag value and config format)"


def _measured_flags(
    profile: FamilyProfile, config: Mapping[str, Any], names: set[str]
) -> tuple[list[Finding], set[str]]:
    """EN023 for each norm flag value a forward run shows changes what the draft computes, and
    the flags a run covers (EN007 does not guess about those). A flag the config leaves unset
    but the tensors imply (fc_norm.*, input_norm) is not the unset case the runs measured."""
    findings: list[Finding] = []
    covered: set[str] = set()
    for flag in (*NORM_FLAGS, *PRODUCER_NORM_FLAGS):
        if flag_value(config, flag) == "unset" and _intent(flag, config, names) is not None:
            continue
        run = flag_run(profile.label, profile.family, config, flag)
        if run is None:
            continue
        covered.add(flag)
        if run.verdict == "differs":
            findings.append(
                finding(
                    profile,
                    "EN023",
                    f"{profile.label}'s draft forward computes otherwise than the drafter was "
                    f"trained to with {flag}={flag_value(config, flag)}: "
                    f"{run.evidence(profile.label)}",
                    config_key=flag,
                )
            )
    return findings, covered


def check_norm_flags(
    profile: FamilyProfile, config: Mapping[str, Any], names: Iterable[str]
) -> list[Finding]:
    """EN023 where a forward run measured a norm flag value changing the draft's output,
    nothing where a run measured it harmless, else EN007 (a guess) where the engine's effective
    value differs from the checkpoint's intent."""
    names = set(names)
    findings, covered = _measured_flags(profile, config, names)
    seen: set[str] = set(covered)
    for rule in profile.norm_flags:
        if rule.name in seen or not holds(config, rule.when):
            continue
        seen.add(rule.name)
        value, how = _effective(rule, config)
        intent = _intent(rule.name, config, names)
        if intent is not None and intent[0] != value:
            message = (
                f"{profile.label} runs with {rule.name}={value} ({how}) but the checkpoint "
                f"says {rule.name}={intent[0]} ({intent[1]})"
            )
        elif intent is None and value != CANONICAL_NORM.get(rule.name, False):
            message = (
                f"{profile.label} assumes {rule.name}={value} when the config does not set "
                f"it ({how}); EAGLE-3 trainers differ on this flag"
            )
        else:
            continue
        findings.append(
            finding(
                profile,
                "EN007",
                message + GUESS.format(label=profile.label),
                config_key=rule.name,
            )
        )
    return findings
