"""Building EN findings: every one carries the engine label and the code's standard hint."""

from __future__ import annotations

from eagle3_inspect.engines.profile import EngineProfile
from eagle3_inspect.findings import Finding, Severity

HINTS = {
    "EN001": "rename the tensor to a name this engine maps (see the profile's params), or pick "
    "an engine version that renames it",
    "EN002": "ship the tensor in the checkpoint under a name this engine maps",
    "EN003": "put the field where this engine reads it (see `reads` in the profile)",
    "EN004": "set config.architectures[0] to a class this engine serves as EAGLE-3",
    "EN005": "ids must address layers that exist in the target under this engine's convention",
    "EN006": "use an engine version whose target class implements aux-hidden-state capture",
    "EN007": "set the norm flag explicitly where this engine reads it, or use an engine that "
    "supports the value the drafter was trained with",
    "EN008": "fix the tensor names / config so the engine can load the drafter",
    "EN009": "expected when the drafter shares the target's tensor; otherwise make the engine "
    "keep the drafter's own copy",
    "EN010": "pin eagle_aux_hidden_state_layer_ids where this engine reads them",
    "EN011": "check which convention the drafter was trained with and convert ids (+/-1)",
    "EN012": "verify this aspect by hand for this engine version",
    "EN013": "remove or rename the tensor; the engine only logs it as unexpected",
    "EN014": "verify this tensor by hand; the engine's behaviour when it is missing is not pinned",
}


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
    """An EN finding for `profile` with the code's default hint unless `hint` is given."""
    return Finding(
        code=code,
        severity=severity,
        message=message,
        tensor=tensor,
        config_key=config_key,
        hint=hint or HINTS[code],
        engine=profile.label,
    )
