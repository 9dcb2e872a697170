"""Parsing one profile file (a TOML table) into an `EngineProfile`.

The parser is the schema in `profile.py`, walked by `fields.parse_table`: unknown keys, bad
regexes, unknown condition terms and out-of-vocabulary choices fail loudly in the tests instead
of silently disabling a check. Only the checks that span fields are written here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from eagle3_inspect.rules.en.fields import SchemaError, parse_table
from eagle3_inspect.rules.en.profile import EngineProfile, ProfileError
from eagle3_inspect.rules.en.versions import try_parse_version
from eagle3_inspect.rules.family.names import DRAFTER_FAMILIES

# The drafter families a profile may have a section for, and the variants that may have their
# own.
FAMILIES = DRAFTER_FAMILIES
VARIANTS = ("llama", "qwen3", "mla", "laguna")


def parse_profile(data: dict[str, Any], path: str) -> EngineProfile:
    """Validate one profile table (as loaded by tomllib) and build the EngineProfile."""
    try:
        profile = parse_table(EngineProfile, data, path)
    except SchemaError as exc:
        raise ProfileError(str(exc)) from exc
    for key in ("engine", "source"):
        if not getattr(profile, key).strip():
            raise ProfileError(f"{path}: `{key}` must be a non-empty string")
    if profile.max_version is not None and profile.max_version <= profile.min_version:
        raise ProfileError(f"{path}: max_version must exceed min_version")
    if not profile.checked_versions:
        raise ProfileError(f"{path}: checked_versions must name the versions read")
    for key in profile.families:
        name, _, variant = key.partition(":")
        if name not in FAMILIES or (variant and variant not in VARIANTS):
            raise ProfileError(
                f"{path}: unknown drafter families [{key!r}]; known: {FAMILIES}, each "
                f"optionally :<variant> of {VARIANTS}"
            )
    checked = profile.checked_versions
    version = next((v for v in reversed(checked) if try_parse_version(v)), checked[-1])
    return replace(profile, path=path, version=version)
