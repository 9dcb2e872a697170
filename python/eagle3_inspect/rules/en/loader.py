"""Loading the shipped profile files and resolving `--engine NAME[@VERSION]` specs to profiles.

Profiles live in `rules/en/profiles/<engine>-<range>.toml`; generated aux-capture lists live
beside them in `rules/en/profiles/<engine>.capture.toml`. Adding an engine version is a data
change: drop in a new file (and re-run `tools/gen_capture_lists.py`), no code edits.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import sys
from importlib import resources
from typing import Any

from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.rules.en.profile import CaptureEntry, EngineProfile, ProfileError
from eagle3_inspect.rules.en.schema import parse_profile
from eagle3_inspect.rules.en.versions import Version, in_range, parse_version, try_parse_version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

PROFILE_PACKAGE = "eagle3_inspect.rules.en.profiles"
CAPTURE_SUFFIX = ".capture.toml"


def _read_toml(name: str) -> dict[str, Any]:
    node = resources.files(PROFILE_PACKAGE).joinpath(name)
    try:
        return tomllib.loads(node.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{name}: {exc}") from exc


def _profile_files() -> list[str]:
    root = resources.files(PROFILE_PACKAGE)
    return sorted(
        p.name
        for p in root.iterdir()
        if p.name.endswith(".toml") and not p.name.endswith(CAPTURE_SUFFIX)
    )


def _capture_table(engine: str) -> tuple[CaptureEntry, ...]:
    name = f"{engine}{CAPTURE_SUFFIX}"
    if not resources.files(PROFILE_PACKAGE).joinpath(name).is_file():
        return ()
    data = _read_toml(name)
    entries = []
    for version, item in data.get("versions", {}).items():
        entries.append(
            CaptureEntry(
                version=version,
                source=str(item.get("source", "")),
                target_architectures=frozenset(item.get("target_architectures", [])),
                conventions=dict(item.get("aux_layer_conventions", {})),
            )
        )
    return tuple(sorted(entries, key=lambda e: parse_version(e.version)))


@functools.lru_cache(maxsize=1)
def load_profiles() -> tuple[EngineProfile, ...]:
    """Every shipped profile, validated, ordered by engine then version range."""
    profiles = []
    for name in _profile_files():
        profile = parse_profile(_read_toml(name), name)
        profiles.append(
            dataclasses.replace(profile, capture_history=_capture_table(profile.engine))
        )
    profiles.sort(key=lambda p: (p.engine, p.min_version))
    _check_no_overlap(profiles)
    return tuple(profiles)


def _check_no_overlap(profiles: list[EngineProfile]) -> None:
    for before, after in itertools.pairwise(profiles):
        if before.engine == after.engine and (
            before.max_version is None or before.max_version > after.min_version
        ):
            raise ProfileError(f"{before.path} and {after.path} overlap")


def engines() -> list[str]:
    """Names of the engines with at least one profile."""
    return sorted({p.engine for p in load_profiles()})


def _capture_for(profile: EngineProfile, version: Version | None) -> CaptureEntry | None:
    """The newest generated capture list inside the profile's range and not after `version`."""
    best = None
    for entry in profile.capture_history:
        entry_version = parse_version(entry.version)
        if not in_range(entry_version, profile.min_version, profile.max_version):
            continue
        if version is not None and entry_version > version:
            continue
        best = entry
    return best


def known_versions(name: str) -> list[str]:
    """The versions of engine `name` whose code was read (the capture scan's, else each
    profile's own), oldest first: what a partial version picks from and a full one must not
    pass."""
    candidates = [p for p in load_profiles() if p.engine == name]
    found = {e.version for p in candidates for e in p.capture_history}
    found |= {p.version for p in candidates if try_parse_version(p.version) is not None}
    return sorted(found, key=parse_version)


def _complete(name: str, spec: str, version_text: str) -> str:
    """`version_text` as a known version: a partial one (`0.5`, `0`) is the newest known with
    that prefix; a full one newer than every known version is an error (not a guess)."""
    try:
        asked = parse_version(version_text)
    except ValueError as exc:
        raise InvalidArgumentError(f"bad engine version in {spec!r}: {exc}") from exc
    known = known_versions(name)
    if not known:
        return version_text
    parts = version_text.strip().split(".")
    if len(parts) < 3 and all(p.isdigit() for p in parts):
        prefix = tuple(int(p) for p in parts)
        matching = [v for v in known if parse_version(v)[: len(prefix)] == prefix]
        if matching:
            return matching[-1]
    elif asked <= parse_version(known[-1]):
        return version_text
    raise InvalidArgumentError(
        f"{name} {version_text.strip()} is not a version eagle3-inspect knows (newest read: "
        f"{known[-1]}); known {name} versions: {', '.join(known)}"
    )


def _resolve_one(spec: str) -> EngineProfile:
    """One `NAME[@VERSION]`. A bare NAME is its newest known version; a partial VERSION
    (`sglang@0.5`) the newest known with that prefix; an unknown name gets a "did you mean"."""
    name, at, version_text = spec.strip().partition("@")
    name = name.strip().lower()
    if at and not version_text.strip():
        raise InvalidArgumentError(f"engine spec {spec.strip()!r} has '@' but no version")
    if version_text.strip().lower() == "installed":
        raise InvalidArgumentError(
            f"{spec.strip()!r} names the engine installed in this Python, which only "
            f"`validate --engine` runs; give a profile version here ({name}@VERSION)"
        )
    candidates = [p for p in load_profiles() if p.engine == name]
    if not candidates:
        import difflib

        close = difflib.get_close_matches(name, [*engines(), "all"], n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InvalidArgumentError(
            f"unknown engine {name!r}; {hint}known engines: {', '.join(engines())}, all"
        )
    if not version_text:
        newest = candidates[-1]
        version = try_parse_version(newest.version)
        return dataclasses.replace(newest, capture=_capture_for(newest, version))
    version_text = _complete(name, spec, version_text)
    version = parse_version(version_text)
    for profile in candidates:
        if in_range(version, profile.min_version, profile.max_version):
            return dataclasses.replace(
                profile, version=version_text.strip(), capture=_capture_for(profile, version)
            )
    ranges = ", ".join(f"{p.range_text()} ({p.path})" for p in candidates)
    raise InvalidArgumentError(
        f"no {name} profile covers version {version_text}; profiles: {ranges}"
    )


def resolve_engines(spec: str) -> list[EngineProfile]:
    """Profiles for `"sglang"`, `"sglang@0.5.9"`, `"sglang,vllm@0.33.0"` or `"all"`.

    No version means the newest profile (its newest known version), a partial version such as
    `0.5` the newest known version with that prefix; an empty spec, `NAME@` with no version,
    unknown engines, versions newer than every known one or uncovered versions raise
    InvalidArgumentError (a ValueError) with the list of what exists.
    """
    parts = [part for part in spec.split(",") if part.strip()]
    if not parts:
        raise InvalidArgumentError(f"empty engine spec; known engines: {', '.join(engines())}, all")
    resolved: list[EngineProfile] = []
    for part in parts:
        if part.strip().lower() == "all":
            resolved += [_resolve_one(name) for name in engines()]
        else:
            resolved.append(_resolve_one(part))
    return resolved


def resolve_label(label: str) -> tuple[str, EngineProfile]:
    """The `--engine` spec that selects the profile a report names by its `label`
    (`sglang@0.5.11`), and that profile: the label itself, or the bare engine name when the
    label's version is not a release number (`trtllm@main-00679c66`, its newest profile)."""
    try:
        return label, _resolve_one(label)
    except ValueError:  # InvalidArgumentError, or a version that does not parse
        name = label.partition("@")[0]
        newest = _resolve_one(name)
        if newest.label != label:
            raise
        return name, newest
