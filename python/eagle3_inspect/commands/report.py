"""`CommandReport`: what every command's report (`ScanReport`, `ValidateReport`, `DiffReport`,
`FixReport`) offers the faces that print it (`cli/render/faces.py`, `html/report.py`): its
verdict and exit code, its versioned JSON document, and where its bytes were read."""

from __future__ import annotations

from typing import Any, Protocol

from eagle3_inspect.findings import Finding, Severity

# One `"cluster"` section of a report, with the side it is about in a diff ("a" / "b"; else None).
ClusterSections = list[tuple[str | None, dict[str, Any]]]


class CommandReport(Protocol):
    """The report protocol."""

    @property
    def ok(self) -> bool:
        """The verdict: nothing at or above the command's failure level."""
        ...

    @property
    def exit_code(self) -> int:
        """0 clean, 1 findings or differences (fix: 1 unverified, 2 refused)."""
        ...

    def to_dict(self, *, stream: bool = False) -> dict[str, Any]:
        """The JSON document; with `stream`, its per-tensor lists may be one-pass iterators of
        records already encoded (`records.EncodedRecords`), for the CLI's streaming writer."""
        ...

    def remote(self) -> dict[str, Any]:
        """`{"remote": {...}}` when a checkpoint was read remotely, else {}."""
        ...

    def cluster_sections(self) -> ClusterSections:
        """What a Ray cluster's nodes did for each checkpoint read on one (none for a local run)."""
        ...


class FindingsVerdict:
    """`ok` and `exit_code` for a report whose verdict is its findings against `fail_on`
    (`ScanReport`, `ValidateReport`; the dataclass declares both fields)."""

    findings: list[Finding]
    fail_on: Severity

    @property
    def ok(self) -> bool:
        """No finding at or above `fail_on`."""
        return all(f.severity.rank < self.fail_on.rank for f in self.findings)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1
