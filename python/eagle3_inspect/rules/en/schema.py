"""Parsing and validating profile TOML tables into EngineProfile.

`parse_profile` rejects unknown keys, bad regexes, unknown condition terms and out-of-vocabulary
choices, so a typo in a data file fails loudly in the tests instead of silently disabling a check.
"""

from __future__ import annotations

import re
from typing import Any

from eagle3_inspect.rules.en.conditions import validate_term
from eagle3_inspect.rules.en.profile import EngineProfile, NormFlag, ProfileError, Required, Rule
from eagle3_inspect.rules.en.versions import parse_version, try_parse_version

UNKNOWN_POLICIES = ("silent-drop", "error", "warn")
MISSING_POLICIES = ("random", "error")
CONVENTIONS = ("output-of", "input-of", "output-of-if-first-is-1")
CAPTURE_MAX = ("N", "N-1")

_TOP = {
    "engine",
    "min_version",
    "max_version",
    "checked_versions",
    "source",
    "draft_architectures",
    "unprofiled_draft_architectures",
    "architecture_prefix",
    "speculators_architectures",
    "speculators_only",
    "unconfirmed",
    "verified",
    "names",
    "config",
}
_NAMES = {
    "unknown",
    "missing",
    "strip_for_required",
    "renames",
    "skipped",
    "params",
    "dropped_when",
    "overridden",
    "required",
}
_CONFIG = {
    "aux_layer_ids",
    "aux_layer_ids_status",
    "aux_layer_runners",
    "aux_layer_convention",
    "aux_capture_max",
    "aux_default",
    "reads",
    "ignored",
    "rejects",
    "norm_flags",
    "fc_aux_count",
}


def _check_keys(table: dict[str, Any], allowed: set[str], where: str) -> None:
    extra = set(table) - allowed
    if extra:
        raise ProfileError(f"{where}: unknown keys {sorted(extra)}")


def _strs(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ProfileError(f"{where}: expected a list of strings")
    return tuple(value)


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ProfileError(f"{where}: expected true or false")
    return value


def _regex(pattern: Any, where: str) -> str:
    if not isinstance(pattern, str):
        raise ProfileError(f"{where}: pattern must be a string")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ProfileError(f"{where}: bad regex {pattern!r}: {exc}") from exc
    return pattern


def _when(value: Any, where: str) -> tuple[str, ...]:
    terms = _strs(value if value is not None else [], where)
    for term in terms:
        try:
            validate_term(term)
        except ValueError as exc:
            raise ProfileError(f"{where}: {exc}") from exc
    return terms


def _rules(items: Any, where: str, keys: set[str], need_pattern: bool = True) -> tuple[Rule, ...]:
    if not isinstance(items, list):
        raise ProfileError(f"{where}: expected an array of tables")
    rules = []
    for n, item in enumerate(items):
        at = f"{where}[{n}]"
        if not isinstance(item, dict):
            raise ProfileError(f"{at}: expected a table")
        _check_keys(item, keys, at)
        if need_pattern or "pattern" in item:
            pattern = _regex(item.get("pattern", item.get("key")), at)
        else:
            pattern = ""
        if not need_pattern and "when" not in item:
            raise ProfileError(f"{at}: needs `when`")
        rules.append(
            Rule(
                pattern=pattern,
                when=_when(item.get("when"), at),
                reason=str(item.get("reason", item.get("message", ""))),
                replace=str(item.get("replace", "")),
            )
        )
    return tuple(rules)


def _required(items: Any, where: str) -> tuple[Required, ...]:
    out = []
    for n, item in enumerate(items or []):
        at = f"{where}[{n}]"
        _check_keys(item, {"names", "when", "reason", "severity"}, at)
        if "names" not in item:
            raise ProfileError(f"{at}: needs `names`")
        severity = item.get("severity", "error")
        if severity not in ("error", "warning"):
            raise ProfileError(f"{at}: severity must be error or warning")
        out.append(
            Required(
                _strs(item["names"], at),
                _when(item.get("when"), at),
                str(item.get("reason", "")),
                severity,
            )
        )
    return tuple(out)


def _norm_flags(items: Any, where: str) -> tuple[NormFlag, ...]:
    out = []
    for n, item in enumerate(items or []):
        at = f"{where}[{n}]"
        _check_keys(item, {"name", "read", "default", "when"}, at)
        if not isinstance(item.get("name"), str):
            raise ProfileError(f"{at}: needs a string `name`")
        if not isinstance(item.get("default"), bool):
            raise ProfileError(f"{at}: default must be a boolean")
        out.append(
            NormFlag(
                str(item["name"]),
                _strs(item.get("read", []), at),
                item["default"],
                _when(item.get("when"), at),
            )
        )
    return tuple(out)


def _str_map(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ProfileError(f"{where}: speculators_architectures must map strings to strings")
    return dict(value)


def _choice(value: Any, allowed: tuple[str, ...], where: str) -> str:
    if value not in allowed:
        raise ProfileError(f"{where}: {value!r} is not one of {allowed}")
    return str(value)


def parse_profile(data: dict[str, Any], path: str) -> EngineProfile:
    """Validate one profile table (as loaded by tomllib) and build the EngineProfile."""
    _check_keys(data, _TOP, path)
    names = data.get("names", {})
    config = data.get("config", {})
    _check_keys(names, _NAMES, f"{path} [names]")
    _check_keys(config, _CONFIG, f"{path} [config]")
    for key in ("engine", "min_version", "source"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise ProfileError(f"{path}: `{key}` must be a non-empty string")
    try:
        low = parse_version(data["min_version"])
        high = parse_version(data["max_version"]) if "max_version" in data else None
    except ValueError as exc:
        raise ProfileError(f"{path}: {exc}") from exc
    if high is not None and high <= low:
        raise ProfileError(f"{path}: max_version must exceed min_version")
    checked = _strs(data.get("checked_versions", []), f"{path} checked_versions")
    if not checked:
        raise ProfileError(f"{path}: checked_versions must name the versions read")
    runners = []
    for n, runner in enumerate(config.get("aux_layer_runners", [])):
        _check_keys(runner, {"name", "read"}, f"{path} aux_layer_runners[{n}]")
        runners.append((str(runner["name"]), _strs(runner["read"], f"{path} runner {n}")))
    rule_keys = {"pattern", "when", "reason"}
    return EngineProfile(
        engine=data["engine"],
        min_version=low,
        max_version=high,
        checked_versions=checked,
        source=data["source"],
        path=path,
        draft_architectures=frozenset(_strs(data.get("draft_architectures", []), path)),
        unprofiled_draft_architectures=frozenset(
            _strs(data.get("unprofiled_draft_architectures", []), path)
        ),
        architecture_prefix=str(data.get("architecture_prefix", "")),
        speculators_architectures=_str_map(data.get("speculators_architectures", {}), path),
        speculators_only=_bool(data.get("speculators_only", False), f"{path} speculators_only"),
        unconfirmed=_strs(data.get("unconfirmed", []), f"{path} unconfirmed"),
        unknown=_choice(names.get("unknown", "silent-drop"), UNKNOWN_POLICIES, f"{path} unknown"),
        missing=_choice(names.get("missing", "random"), MISSING_POLICIES, f"{path} missing"),
        strip_for_required=tuple(
            _regex(p, path) for p in _strs(names.get("strip_for_required", []), path)
        ),
        renames=_rules(names.get("renames", []), f"{path} renames", rule_keys | {"replace"}),
        skipped=tuple(_regex(p, path) for p in _strs(names.get("skipped", []), path)),
        params=_rules(names.get("params", []), f"{path} params", rule_keys),
        dropped_when=_rules(names.get("dropped_when", []), f"{path} dropped_when", rule_keys),
        overridden=_rules(names.get("overridden", []), f"{path} overridden", rule_keys),
        required=_required(names.get("required", []), f"{path} required"),
        aux_layer_ids=_strs(config.get("aux_layer_ids", []), f"{path} aux_layer_ids"),
        aux_layer_ids_status=_choice(
            config.get("aux_layer_ids_status", "verified"), ("verified", "unconfirmed"), path
        ),
        aux_layer_runners=tuple(runners),
        aux_layer_convention=_choice(
            config.get("aux_layer_convention", "input-of"), CONVENTIONS, f"{path} convention"
        ),
        aux_capture_max=_choice(config.get("aux_capture_max", "N"), CAPTURE_MAX, path),
        aux_default=str(config.get("aux_default", "")),
        reads=_strs(config.get("reads", []), f"{path} reads"),
        ignored=_rules(config.get("ignored", []), f"{path} ignored", {"key", "when", "reason"}),
        rejects=_rules(config.get("rejects", []), f"{path} rejects", {"when", "message"}, False),
        norm_flags=_norm_flags(config.get("norm_flags", []), f"{path} norm_flags"),
        verified=_bool(data.get("verified", True), f"{path} verified"),
        fc_aux_count=(
            _strs(config["fc_aux_count"], f"{path} fc_aux_count")
            if "fc_aux_count" in config
            else None
        ),
        version=next((v for v in reversed(checked) if try_parse_version(v)), checked[-1]),
    )
