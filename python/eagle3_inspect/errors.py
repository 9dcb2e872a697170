"""The exception tree. Every error eagle3-inspect raises is an `InspectError`.

- `CheckpointNotFoundError` (also `FileNotFoundError`): the path does not exist.
- `InvalidCheckpointError`: the path holds nothing inspectable.
- `TensorNotFoundError` (also `KeyError`): no tensor of that name.
- `TensorUnreadableError`: a tensor's entry is invalid or its data lies outside the file.
- `InvalidArgumentError` (also `ValueError`): a bad argument.
- `MissingDependencyError`: an optional package (ml_dtypes, huggingface_hub) is needed for this.
- `RemoteSourceError`: a remote checkpoint (hf://, https://) could not be listed or read: the
  message is one line naming the URL and the HTTP status or network failure.
- `DrafterNotServable`: `require_servable` found errors an engine would mis-load.

The first five are defined in the native module so Rust raises them directly; all are picklable.
"""

from __future__ import annotations

from typing import Any

from eagle3_inspect._native import (
    CheckpointNotFoundError,
    InspectError,
    InvalidArgumentError,
    InvalidCheckpointError,
    TensorNotFoundError,
    TensorUnreadableError,
)
from eagle3_inspect.findings import Finding, Severity


class MissingDependencyError(InspectError, ImportError):
    """An optional dependency is required for this operation."""


class RemoteSourceError(InspectError):
    """A remote request failed for good (after bounded retries): `url`, `status` (None for a
    network failure or a protocol violation such as an ignored `Range`)."""

    def __init__(self, url: str, reason: str, status: int | None = None) -> None:
        self.url = url
        self.reason = reason
        self.status = status
        super().__init__(f"{url}: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.url, self.reason, self.status))


class DrafterNotServable(InspectError):
    """The drafter at `path` has findings at or above the failure level for `engine`.

    `findings` holds every finding of the validate run, `errors` the failing ones; the message
    lists each failing finding with its fix. Picklable (it keeps findings, not the report)."""

    def __init__(
        self,
        path: str,
        engine: str | None,
        findings: list[Finding],
        fail_on: Severity = Severity.ERROR,
    ) -> None:
        self.path = path
        self.engine = engine
        self.findings = list(findings)
        self.fail_on = Severity(fail_on)
        super().__init__(self._message())

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity.rank >= self.fail_on.rank]

    def _message(self) -> str:
        failing = self.errors
        engine = f" with {self.engine}" if self.engine else ""
        lines = [f"{self.path} is not servable{engine}: {len(failing)} finding(s)"]
        for f in failing:
            where = f.tensor or (f"config:{f.config_key}" if f.config_key else "")
            lines.append(f"- {f.code} {where + ': ' if where else ''}{f.message}")
            if f.hint:
                lines.append(f"  fix: {f.hint}")
        return "\n".join(lines)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self.engine, self.findings, self.fail_on))


__all__ = [
    "CheckpointNotFoundError",
    "DrafterNotServable",
    "InspectError",
    "InvalidArgumentError",
    "InvalidCheckpointError",
    "MissingDependencyError",
    "RemoteSourceError",
    "TensorNotFoundError",
    "TensorUnreadableError",
]
