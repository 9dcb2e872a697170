"""Building EN findings: every one carries the engine label and, by default, the hint that
the rule catalogue (`catalog/en.py`) documents for its code."""

from __future__ import annotations

from eagle3_inspect.catalog import rule
from eagle3_inspect.engines.profile import EngineProfile
from eagle3_inspect.findings import Finding, Severity



def finding(
    profile: EngineProfile,
    code: str,
    severity: Severity,
    message: str,
    *,
    tensor: str | None = None,
    config_key: str | None = None,
    hint: str | None = None,
) -> Finding:
    """An EN finding for `profile` with the catalogue hint unless `hint` is given."""
    return Finding(
        code=code,
        severity=severity,
        message=message,
        tensor=tensor,
        config_key=config_key,
        hint=hint or rule(code).hint,
        engine=profile.label,
    )
