"""Building EN findings: every one carries the engine label; severity and default hint come from
the rule registry (`rules/en/codes.toml`), so a code always means one severity, except that a
profile no engine code backs (`verified = false`) cannot raise an error: its errors become
warnings saying so."""

from __future__ import annotations

from dataclasses import replace

from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.registry import finding as registered
from eagle3_inspect.rules.en.profile import EngineProfile, FamilyProfile


def finding(
    profile: EngineProfile | FamilyProfile,
    code: str,
    message: str,
    *,
    tensor: str | None = None,
    config_key: str | None = None,
    hint: str | None = None,
) -> Finding:
    """An EN finding for `profile`; severity and (unless given) hint come from the registry."""
    made = registered(
        code, message, hint=hint, tensor=tensor, config_key=config_key, engine=profile.label
    )
    if not profile.verified and made.severity is Severity.ERROR:
        note = " (UNVERIFIED profile: no engine code was run or read from a wheel; not an error)"
        return replace(made, severity=Severity.WARNING, message=made.message + note)
    return made
