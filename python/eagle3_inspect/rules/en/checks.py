"""The per-engine entry points: `check_engine` (tensors + config) and `check_all` (everything)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eagle3_inspect.findings import Finding
from eagle3_inspect.reader.target import TargetInfo, read_target_config
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.rules.en.aux import check_aux_layer_ids
from eagle3_inspect.rules.en.capture import check_target_capture
from eagle3_inspect.rules.en.configcheck import (
    check_architecture,
    check_ignored,
    check_norm_flags,
    check_rejects,
    served_architecture,
)
from eagle3_inspect.rules.en.contract import check_contract
from eagle3_inspect.rules.en.emit import finding
from eagle3_inspect.rules.en.fcwidth import check_capture_count, check_fc_width
from eagle3_inspect.rules.en.fold import fold_renames, fold_under_refusal
from eagle3_inspect.rules.en.names import check_names
from eagle3_inspect.rules.en.positions import check_positions
from eagle3_inspect.rules.en.profile import EngineProfile, FamilyProfile
from eagle3_inspect.rules.en.served import not_served
from eagle3_inspect.rules.family.names import EAGLE3


def check_engine(
    profile: FamilyProfile, tensors: Mapping[str, TensorInfo], config: dict[str, Any] | None
) -> list[Finding]:
    """Dropped tensors, random parameters, refused configs, unserved architecture, ignored fields,
    norm-flag mismatches, the fc width and the config contract for one engine profile. Aux ids
    and target capture are separate."""
    served = served_architecture(profile, config) if config is not None else None
    if served is not None and served in profile.unprofiled_draft_architectures:
        return [
            finding(
                profile,
                "EN012",
                f"{profile.label} serves {served} with a loader this profile does not model "
                "(see `unconfirmed` in its profile); tensor names and norm flags were not checked",
                config_key="architectures",
            )
        ]
    findings = check_names(profile, tensors.keys(), config)
    if config is not None:
        findings += check_architecture(profile, config)
        findings += check_rejects(profile, config)
        findings += check_ignored(profile, config)
        findings += check_norm_flags(profile, config, tensors.keys())
        findings += check_fc_width(profile, tensors, config)
        findings += check_capture_count(profile, tensors, config)
        findings += check_contract(profile, config)
    return findings


def check_all(
    engine: EngineProfile | FamilyProfile,
    tensors: Mapping[str, TensorInfo],
    config: dict[str, Any] | None,
    target: TargetInfo | dict[str, Any] | None = None,
    family: str = EAGLE3,
    variant: str | None = None,
    fold: bool = True,
) -> list[Finding]:
    """`check_engine` plus aux-id and capture checks against an optional target (its typed
    `TargetInfo`, or a parsed target config.json, read the same way) for the drafter `family`
    and `variant` (or the family of the `FamilyProfile` given), folded under a refusal when
    the engine refuses the drafter and a key-dialect rename's EN001 / EN002 pairs folded into
    one (`fold.py`; `fold=False`: every finding). A family the
    engine version has no section for is not served (EN004)."""
    if isinstance(engine, FamilyProfile):
        profile: FamilyProfile | None = engine
    else:
        profile = engine.family_profile(family, variant)
        if profile is None:
            return [not_served(engine, family)]
    assert profile is not None
    findings = check_engine(profile, tensors, config)
    if isinstance(target, dict):
        target = read_target_config(target)
    archs = target.architectures if target is not None else []
    layers = target.num_hidden_layers if target is not None else None
    findings += check_aux_layer_ids(profile, config, layers, archs[0] if archs else None)
    if target is not None:
        findings += check_target_capture(profile, archs)
        findings += check_positions(profile, config, target)
    return fold_under_refusal(fold_renames(findings)) if fold else findings
