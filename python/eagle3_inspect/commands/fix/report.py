"""FixReport: the result of `fix`, with its versioned JSON form (`eagle3-inspect/fix/1`).

`status` is `fixed` (DST written and verified), `planned` (--dry-run), `nothing-to-do` (SRC
already loads as trained; nothing written), `refused` (a finding no conversion can fix without
guessing; nothing written) or `unverified` (the written copy failed its own checks and was
discarded). A `fixed`, `planned` or `nothing-to-do` report whose `expected` findings are not
empty (errors no conversion can fix, EN006) is *blocked*: whatever is written, this engine
version still fails on it, so `ok` is false and the exit code 1."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from eagle3_inspect.commands.report import ClusterSections
from eagle3_inspect.version import PRODUCER

SCHEMA = "eagle3-inspect/fix/1"


@dataclass
class FixReport:
    source: str
    destination: str
    engine: str
    status: str
    target: str | None = None
    changes: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    expected: list[dict[str, Any]] = field(default_factory=list)
    suggestion: str | None = None
    refusal: dict[str, str] | None = None
    verification: dict[str, Any] | None = None
    side_files: list[str] = field(default_factory=list)

    @property
    def blocked(self) -> bool:
        """The conversion ran (or would), but errors no conversion can fix remain."""
        return self.status in ("fixed", "planned", "nothing-to-do") and bool(self.expected)

    @property
    def ok(self) -> bool:
        """DST is (or, for a dry run, would be) a drafter this engine loads as trained."""
        return self.status in ("fixed", "planned", "nothing-to-do") and not self.expected

    @property
    def exit_code(self) -> int:
        """0 fixed / planned / nothing to do, 1 blocked or the written copy failed verification,
        2 refused."""
        if self.blocked:
            return 1
        return {"refused": 2, "unverified": 1}.get(self.status, 0)

    def remote(self) -> dict[str, Any]:
        """{}: fix reads local checkpoints only."""
        return {}

    def cluster_sections(self) -> ClusterSections:
        return []

    def to_dict(self, *, stream: bool = False) -> dict[str, Any]:
        """The `--json` document (`stream` changes nothing)."""
        return {
            "schema": SCHEMA,
            "producer": PRODUCER,
            "source": self.source,
            "destination": self.destination,
            "engine": self.engine,
            "target": self.target,
            "status": self.status,
            "ok": self.ok,
            "changes": self.changes,
            "notes": self.notes,
            "expected_findings": self.expected,
            "suggestion": self.suggestion,
            "refusal": self.refusal,
            "verification": self.verification,
            "side_files": self.side_files,
        }
