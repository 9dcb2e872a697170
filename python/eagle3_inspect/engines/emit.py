"""Building EN findings: every one carries the engine label; severity and default hint come from
the rule catalogue (`catalog/en.py`), so a code always means one severity."""

from __future__ import annotations

from eagle3_inspect.catalog import rule
from eagle3_inspect.engines.profile import EngineProfile
from eagle3_inspect.findings import Finding


def finding(
    profile: EngineProfile,
    code: str,
    message: str,
    *,
    tensor: str | None = None,
    config_key: str | None = None,
    hint: str | None = None,
) -> Finding:
    """An EN finding for `profile`; severity and (unless given) hint come from the catalogue."""
    return Finding(
        code=code,
        severity=rule(code).severity,
        message=message,
        tensor=tensor,
        config_key=config_key,
        hint=hint or rule(code).hint,
        engine=profile.label,
    )
