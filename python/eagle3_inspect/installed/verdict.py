"""What the installed engine's own code did with a drafter (`InstalledVerdict`): the load
harness's record, read back from the worker at the drafter's own scale, with the engine it ran."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from eagle3_inspect.installed.probe import InstalledEngine

# The harness's verdicts, plus NOT-RUN: the harness itself could not run this engine version
# (its code moved, the worker failed or timed out): no verdict either way.
OUTCOMES = ("LOADED", "REFUSED", "LOAD-ERROR", "NOT-MODELLED", "NOT-RUN")
REFUSALS = ("REFUSED", "LOAD-ERROR")
# Exceptions that mean the harness, not the engine, is missing something.
HARNESS_GAPS = ("NameError",)


@dataclass(frozen=True)
class InstalledVerdict:
    """One installed engine's verdict on one drafter.

    `record` is the harness's record as it ran (stand-in scale: shapes in its messages are the
    drafter's divided by `scale`); `fc_in_features` is back at the drafter's scale. `profile` is
    the label of the profile judged beside it (the installed version's, or the newest one older
    than it)."""

    installed: InstalledEngine
    outcome: str
    scale: int
    profile: str | None = None
    reason: str | None = None
    raised_at: str | None = None
    decided_by: str | None = None
    dropped: tuple[str, ...] = ()
    never_loaded: tuple[str, ...] = ()
    aux_layer_ids: tuple[int, ...] | None = None
    fc_in_features: int | None = None
    evidence: Mapping[str, str] = field(default_factory=dict)
    record: Mapping[str, Any] = field(default_factory=dict)
    # The draft chain through the engine's forward, after a load (harness/forward.py's result:
    # verdict RAN / FORWARD-ERROR / NOT-RUN); None when it did not load.
    forward: Mapping[str, Any] | None = None

    @property
    def tag(self) -> str:
        """`sglang@installed (0.5.25)`, how messages name it (the finding's engine label first,
        so the line formats do not repeat it)."""
        return f"{self.installed.label} ({self.installed.version})"

    def to_dict(self) -> dict[str, Any]:
        """The `installed` entry of validate's `--json` document."""
        return {
            **self.installed.to_dict(),
            "label": self.installed.label,
            "outcome": self.outcome,
            "profile": self.profile,
            "reason": self.reason,
            "raised_at": self.raised_at,
            "decided_by": self.decided_by,
            "dropped": list(self.dropped),
            "never_loaded": list(self.never_loaded),
            "aux_layer_ids": None if self.aux_layer_ids is None else list(self.aux_layer_ids),
            "fc_in_features": self.fc_in_features,
            "stand_in_scale": self.scale,
            "evidence": dict(self.evidence),
            "forward": None if self.forward is None else dict(self.forward),
        }


def not_run(
    installed: InstalledEngine, scale: int, reason: str, profile: str | None = None
) -> InstalledVerdict:
    """No verdict: the harness could not run the installed engine on this drafter."""
    return InstalledVerdict(installed, "NOT-RUN", scale, profile, reason=reason)


def from_record(
    installed: InstalledEngine, scale: int, record: Mapping[str, Any], profile: str | None
) -> InstalledVerdict:
    """The verdict the harness's `record` states (its fields as tools/engine_truth writes them)."""
    why = record.get("why") or {}
    ids = record.get("aux_layer_ids")
    fc_in = record.get("fc_in_features")
    outcome = str(record.get("verdict", "NOT-RUN"))
    if outcome in REFUSALS and str(why.get("exception", "")).startswith(HARNESS_GAPS):
        # A released engine's own code does not raise NameError: the name is one the harness
        # does not give this version yet (vLLM 0.34's copy_weight_ was one). No verdict.
        reason = f"the harness lacks a name this version's code uses: {why['exception']}"
        return not_run(installed, scale, reason, profile)
    return InstalledVerdict(
        installed,
        outcome if outcome in OUTCOMES else "NOT-RUN",
        scale,
        profile,
        reason=why.get("exception"),
        raised_at=why.get("raised_at"),
        decided_by=why.get("decided_by"),
        dropped=tuple(record.get("dropped") or ()),
        never_loaded=tuple(record.get("never_loaded") or ()),
        aux_layer_ids=None if ids is None else tuple(int(i) for i in ids),
        fc_in_features=fc_in * scale if isinstance(fc_in, int) else None,
        evidence={str(k): str(v) for k, v in (record.get("evidence") or {}).items()},
        record=dict(record),
    )
