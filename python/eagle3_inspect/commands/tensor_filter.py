"""A `filter=` glob that selects no tensor: an error, not an empty pass. A typo in a CI
filter (`'nomatch*'`) used to compare or list nothing and exit 0 ("identical: 0 matched")."""

from __future__ import annotations

from eagle3_inspect.errors import InvalidArgumentError


def require_match(pattern: str | None, matched: int, *paths: str) -> None:
    """Raises InvalidArgumentError when `pattern` was given and selected nothing in `paths`."""
    if pattern is not None and matched == 0:
        where = " or ".join(paths)
        raise InvalidArgumentError(f"--filter {pattern!r} matches no tensor of {where}")
