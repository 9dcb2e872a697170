"""Holding a drafter's config to the config contract of the engine version it is validated for:
EN018 when a field the served draft class (or the config adapter building its config) uses in a
way that raises is null, missing without a default, or of the wrong type; EN019 when a missing
field falls back to a default that differs from the value the drafter was trained with.

Only the draft classes of the families validate detects today are held to it (`CHECKED`: the
Llama-style EAGLE-3 classes and speculators' Eagle3DraftModel); the contract itself covers
every draft class each engine version registers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from eagle3_inspect.echo import json_text, kind_of
from eagle3_inspect.findings import Finding
from eagle3_inspect.reader.draft_config import (
    MODEL_FIELDS,
    TOP_FIELDS,
    DraftConfig,
    read_draft_config,
)
from eagle3_inspect.rules.en.configcheck import served_architecture
from eagle3_inspect.rules.en.contract.data import (
    ContractEntry,
    EngineContract,
    FieldRead,
    contract_version,
    load_contract,
)
from eagle3_inspect.rules.en.contract.uses import RAISING
from eagle3_inspect.rules.en.contract.view import (
    COMPUTED,
    DEFAULT,
    MISSING,
    PRESENT,
    UNREACHABLE,
    ConfigView,
    hf_view,
    literal,
    speculators_view,
    vllm_speculators_view,
)
from eagle3_inspect.rules.en.emit import finding
from eagle3_inspect.rules.en.profile import FamilyProfile

# The draft classes of the families validate detects today (Llama-style EAGLE-3).
CHECKED = ("/llama_eagle3.py", "speculators/models/eagle3/core.py")
# Fields whose trained value the drafter's config states (DraftConfig, any config style); the
# aux count is EN015's, and model_type / dtype are not values a default could get wrong.
TRAINED = tuple(
    f
    for f in MODEL_FIELDS + TOP_FIELDS
    if f not in ("model_type", "torch_dtype", "num_aux_hidden_states")
)
SPECULATORS_LAYER = "transformer_layer_config."
TYPES: dict[str, tuple[type, ...]] = {
    "number": (int, float),
    "int": (int,),
    "sized": (list, tuple, dict, str),
    "iterable": (list, tuple, dict, str),
    "indexable": (list, tuple, dict, str),
    "object": (dict,),
    "str": (str,),
}


@dataclass(frozen=True)
class Problem:
    """One contract violation: `kind` is missing / null / type (EN018) or default (EN019)."""

    kind: str
    read: FieldRead
    value: Any = None
    trained: Any = None


def served_entry(
    profile: FamilyProfile, contract: EngineContract, config: Mapping[str, Any]
) -> tuple[ContractEntry | None, ConfigView, list[tuple[ContractEntry, ConfigView]]]:
    """The draft class this engine builds for `config`, the config object it receives, and the
    adapters that build it (with the view each reads)."""
    algorithm = config.get("speculators_model_type")
    if profile.engine == "speculators":
        entry = contract.for_algorithm("model", str(algorithm))
        return entry, speculators_view(config, contract), []
    arch = served_architecture(profile, config)
    entry = contract.model(arch) if arch else None
    if profile.engine == "vllm" and algorithm is not None:
        raw = ConfigView(config)
        adapters = [
            (a, raw)
            for a in contract.adapters()
            if a.name.startswith("SpeculatorsConfig.") or a.algorithm == algorithm
        ]
        return entry, vllm_speculators_view(config, contract), adapters
    return entry, hf_view(config), []


def check_contract(profile: FamilyProfile, config: Mapping[str, Any] | None) -> list[Finding]:
    """EN018 / EN019 for `config` under `profile`'s engine version (none when no contract
    covers it, or the served class is not one validate's families use)."""
    if config is None or not profile.verified:
        return []
    version = contract_version(
        profile.engine, profile.version, profile.min_version, profile.max_version
    )
    if version is None:
        return []
    contract = load_contract(profile.engine, version)
    problems = contract_problems(profile, contract, config)
    return _findings(profile, contract, problems)


def contract_problems(
    profile: FamilyProfile, contract: EngineContract, config: Mapping[str, Any]
) -> list[Problem]:
    """Every violation, in read order (entry's own file first), one per field and kind."""
    entry, view, adapters = served_entry(profile, contract, config)
    if entry is None or not entry.file.endswith(CHECKED):
        return []
    draft = read_draft_config(dict(config))
    found: list[Problem] = []
    for read in entry.reads:
        found += _judge(read, view, draft)
    for adapter, adapter_view in adapters:
        for read in adapter.reads:
            found += _judge(read, adapter_view, draft)
    seen: set[tuple[str, str]] = set()
    out = []
    for problem in found:
        key = (problem.read.field, problem.kind)
        if key not in seen:
            seen.add(key)
            out.append(problem)
    return out


def _judge(read: FieldRead, view: ConfigView, draft: DraftConfig) -> list[Problem]:
    if read.engine_set or read.access in ("hasattr", "in") or read.conditional:
        return []
    if read.guard == "tested":
        return []  # the code tested it present and not None before this read
    if not all(_holds(term, view) for term in read.when):
        return []
    state, value = view.lookup(read.field)
    if state == UNREACHABLE:
        return []
    problems: list[Problem] = []
    if state == MISSING:
        if read.guard == "hasattr" or read.default is not None:
            value = _default(read, view)
            problems += _trained_differs(read, value, draft)
        elif read.access in ("attr", "subscript", "getattr") and not read.caught:
            if read.guard == "present":
                return []
            return [Problem("missing", read)]
        else:
            return []
    elif state == DEFAULT:
        problems += _trained_differs(read, value, draft)
    if value is COMPUTED or read.caught:
        return problems
    if value is None:
        if read.raises_on_none and read.none_default is None:
            problems.append(Problem("null", read))
        return problems
    if read.needs and read.use in RAISING and not _type_ok(value, read.needs):
        problems.append(Problem("type", read, value))
    return problems


def _holds(term: str, view: ConfigView) -> bool:
    """Whether the code path of a read runs for this config: `F == 'x'` / `F != 'x'`
    (equality tests), `set:F` / `unset:F` (truthiness / None tests), `has:F` / `hasnot:F`
    (hasattr). A field whose value is not known here counts as taking the path."""
    kind, _, path = term.partition(":")
    if kind in ("set", "unset", "has", "hasnot"):
        state, value = view.lookup(path)
        if state == UNREACHABLE or value is COMPUTED:
            return True
        if kind in ("has", "hasnot"):
            return (state in (PRESENT, DEFAULT)) == (kind == "has")
        if state == MISSING:
            return True
        return bool(value) == (kind == "set")
    for op in (" == ", " != "):
        if op in term:
            path, text = term.split(op, 1)
            state, value = view.lookup(path)
            equal = state in (PRESENT, DEFAULT) and value == literal(text)
            return equal if op == " == " else not equal
    return True


def _default(read: FieldRead, view: ConfigView) -> Any:
    if read.default_field is not None:
        state, value = view.lookup(read.default_field)
        return value if state in (PRESENT, DEFAULT) else COMPUTED
    return literal(read.default)


def trained_value(draft: DraftConfig, field: str) -> Any:
    """The value the drafter was trained with for `field`, as its config states it (any
    style), or COMPUTED when it does not say. A null / absent target_hidden_size means the
    target's hidden size is the drafter's own (speculators' Eagle3DraftModel sizes fc from
    transformer_layer_config.hidden_size and ignores the field)."""
    name = field.removeprefix(SPECULATORS_LAYER)
    if name not in TRAINED:
        return COMPUTED
    value = getattr(draft, name, None)
    if name == "target_hidden_size" and value is None:
        value = draft.hidden_size
    return COMPUTED if value is None else value


def _trained_differs(read: FieldRead, value: Any, draft: DraftConfig) -> list[Problem]:
    trained = trained_value(draft, read.field)
    if trained is COMPUTED or value is COMPUTED or value is None or value == trained:
        return []
    return [Problem("default", read, value, trained)]


def _type_ok(value: Any, needs: str) -> bool:
    if needs == "present":
        return True
    types = TYPES.get(needs)
    if types is None:
        return True
    return isinstance(value, types) and not (isinstance(value, bool) and needs in ("int", "number"))


def _findings(
    profile: FamilyProfile, contract: EngineContract, problems: Iterable[Problem]
) -> list[Finding]:
    out = []
    source = f"contract read from {contract.engine} {contract.version}"
    for p in problems:
        read = p.read
        what = f"{_function(read)} uses it as {read.use} ({read.where}; {source})"
        if p.kind == "missing":
            message = (
                f"{profile.label}: config field {read.field} is missing and {_function(read)} "
                f"reads it without a default ({read.where}; {source})"
            )
        elif p.kind == "null":
            message = f"{profile.label}: config field {read.field} is null; {what}"
        elif p.kind == "type":
            message = (
                f"{profile.label}: config field {read.field} is {json_text(p.value)} "
                f"({kind_of(p.value)}, needs {read.needs}); {what}"
            )
        else:
            message = (
                f"{profile.label} reads config field {read.field} as {json_text(p.value)} (its "
                f"default: the field is missing where {_function(read)} reads it, {read.where}; "
                f"{source}); the drafter was trained with {json_text(p.trained)}"
            )
        code = "EN019" if p.kind == "default" else "EN018"
        out.append(finding(profile, code, message, config_key=read.field))
    return out


def _function(read: FieldRead) -> str:
    return read.at.split(":", 1)[1]
