"""Engine version strings: parsing and ordering (release numbers only, suffixes ignored)."""

from __future__ import annotations

import re

Version = tuple[int, int, int]

_RELEASE = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?")


def parse_version(text: str) -> Version:
    """`"0.5.10.post1"` -> `(0, 5, 10)`; ValueError when `text` has no leading release number."""
    match = _RELEASE.match(text.strip())
    if match is None:
        raise ValueError(f"not a version: {text!r}")
    major, minor, patch = (int(part) if part else 0 for part in match.groups())
    return (major, minor, patch)


def try_parse_version(text: str) -> Version | None:
    """Like `parse_version`, but None for labels such as `"main-00679c66"`."""
    try:
        return parse_version(text)
    except ValueError:
        return None


def in_range(version: Version, low: Version, high: Version | None) -> bool:
    """`low <= version < high` (no upper bound when `high` is None)."""
    return low <= version and (high is None or version < high)
