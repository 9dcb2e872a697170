"""Building EN findings: every one carries the engine label; severity and default hint come from
the rule registry (`rules/en/codes.toml`), so a code always means one severity."""

from __future__ import annotations

from eagle3_inspect.findings import Finding
from eagle3_inspect.registry import finding as registered
from eagle3_inspect.rules.en.profile import EngineProfile


def finding(
    profile: EngineProfile,
    code: str,
    message: str,
    *,
    tensor: str | None = None,
    config_key: str | None = None,
    hint: str | None = None,
) -> Finding:
    """An EN finding for `profile`; severity and (unless given) hint come from the registry."""
    return registered(
        code, message, hint=hint, tensor=tensor, config_key=config_key, engine=profile.label
    )
