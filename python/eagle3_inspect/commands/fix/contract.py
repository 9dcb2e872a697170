"""The config half of a plan held to the engine's config contract (`rules/en/contract`): every
field the engine's draft model code would trip on is set to the value the drafter was trained
with, or removed where the engine's own default for a missing field is that value; a field no
value can be found for is a refusal (EN018). The verifier speculators loads
(`speculators_config.verifier.name_or_path`) comes from `--verifier`, else `--target`."""

from __future__ import annotations

import os
from typing import Any

from eagle3_inspect.commands.fix.config import Refusal, pop_path, set_path
from eagle3_inspect.echo import json_text
from eagle3_inspect.reader.draft_config import DraftConfig, read_draft_config
from eagle3_inspect.reader.remote import is_remote
from eagle3_inspect.rules.en.contract import (
    Problem,
    contract_problems,
    contract_version,
    load_contract,
)
from eagle3_inspect.rules.en.contract.check import trained_value
from eagle3_inspect.rules.en.contract.view import COMPUTED
from eagle3_inspect.rules.en.profile import FamilyProfile

VERIFIER = "speculators_config.verifier.name_or_path"
ROUNDS = 4  # a repair can expose a later read of another field; each round fixes what is left


def verifier_name(target: str | os.PathLike[str] | None) -> str | None:
    """What speculators should load as the verifier, from a `--target`: a Hub repository id
    for `hf://ORG/NAME`, the absolute directory of a local target (its config.json's
    directory for a file), None for a URL (no name speculators can load)."""
    if target is None:
        return None
    text = os.fspath(target)
    if text.startswith("hf://"):
        from eagle3_inspect.reader.remote.location import parse

        return parse(text).repo_id  # type: ignore[union-attr]
    if is_remote(text):
        return None
    from pathlib import Path

    path = Path(text)
    return str((path.parent if path.is_file() else path).resolve())


def place_verifier(config: dict[str, Any], name: str | None, explicit: bool) -> None:
    """Writes the verifier's name into a speculators-format config: always when given with
    `--verifier`, else (from `--target`) only where the config names none."""
    spec = config.get("speculators_config")
    if name is None or not isinstance(spec, dict):
        return
    verifier = spec.setdefault("verifier", {})
    if isinstance(verifier, dict) and (explicit or verifier.get("name_or_path") is None):
        verifier["name_or_path"] = name


def satisfy_contract(
    profile: FamilyProfile, config: dict[str, Any], source: dict[str, Any]
) -> list[str]:
    """Repairs `config` (in place) against the contract of `profile`'s engine version; returns
    a note per repair. Raises Refusal for a field that cannot be given a trained value."""
    version = contract_version(
        profile.engine, profile.version, profile.min_version, profile.max_version
    )
    if version is None or not profile.verified:
        return []
    contract = load_contract(profile.engine, version)
    draft = read_draft_config(source)
    notes: list[str] = []
    direct = not (profile.engine == "vllm" and "speculators_model_type" in config)
    for _ in range(ROUNDS):
        problems = contract_problems(profile, contract, config)
        if not problems:
            break
        before = len(notes)
        for problem in problems:
            note = _repair(problem, config, draft, direct, profile.label)
            if note:
                notes.append(note)
        if len(notes) == before:
            break
    return notes


def _repair(
    problem: Problem, config: dict[str, Any], draft: DraftConfig, direct: bool, label: str
) -> str | None:
    read = problem.read
    field = read.field
    where = f"{read.where}"
    if problem.kind == "default" and not direct:
        return None
    if field == VERIFIER and problem.kind in ("null", "missing"):
        raise Refusal(
            "EN018",
            f"{label} loads the verifier named in {VERIFIER} ({where}) and this config names "
            "none: pass --verifier NAME_OR_PATH (a Hub id or a local directory with the "
            "verifier's config.json and weights) or --target",
        )
    trained = trained_value(draft, field)
    if problem.kind == "type" or not direct:
        raise Refusal(
            "EN018",
            f"{label}: config field {field} is {json_text(problem.value)}; {read.at} uses it as "
            f"{read.use} ({where}) and the drafter's config states no value to use instead",
        )
    if trained is not COMPUTED:
        set_path(config, field, trained)
        return (
            f"{field}: {json_text(problem.value)} -> {json_text(trained)}, the value the drafter "
            f"was trained with ({label} reads it at {where})"
        )
    if problem.kind == "null" and (read.guard == "hasattr" or read.default is not None):
        pop_path(config, field)
        return (
            f"{field}: null removed ({label} uses its default where the field is absent, {where})"
        )
    if problem.kind == "default":
        return None
    raise Refusal(
        "EN018",
        f"{label}: config field {field} is {'null' if problem.kind == 'null' else 'missing'}; "
        f"{read.at} uses it as {read.use} ({where}) and the drafter's config states no value "
        "for it",
    )
