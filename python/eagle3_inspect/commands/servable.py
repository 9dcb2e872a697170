"""The export guard: `require_servable` validates a drafter for one engine and raises
`DrafterNotServable` when that engine would mis-load it (for a training script's export step)."""

from __future__ import annotations

import os

from eagle3_inspect.commands.validate import ValidateReport, validate
from eagle3_inspect.errors import DrafterNotServable
from eagle3_inspect.findings import Severity

# A bare name: the newest known version, as everywhere an engine is named (`rules.en.loader`).
DEFAULT_ENGINE = "sglang"


def require_servable(
    path: str | os.PathLike[str],
    engine: str | None = DEFAULT_ENGINE,
    target: str | os.PathLike[str] | None = None,
    *,
    fail_on: str | Severity = Severity.ERROR,
    stats: bool = True,
    threads: int | None = None,
) -> ValidateReport:
    """Returns the validate report of the drafter at `path` against `engine` (and `target` when
    given), or raises `DrafterNotServable` listing each failing finding and its fix. Bad
    arguments and unreadable paths raise the usual `InspectError`s."""
    report = validate(
        path, engine=engine, target=target, stats=stats, fail_on=fail_on, threads=threads
    )
    if not report.ok:
        raise DrafterNotServable(report.path, engine, report.findings, report.fail_on)
    return report
