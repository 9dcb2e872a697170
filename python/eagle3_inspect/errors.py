"""The exception tree. Every error eagle3-inspect raises is an `InspectError`.

- `CheckpointNotFoundError` (also `FileNotFoundError`): the path does not exist.
- `InvalidCheckpointError`: the path holds nothing inspectable.
- `TensorNotFoundError` (also `KeyError`): no tensor of that name.
- `TensorUnreadableError`: a tensor's entry is invalid or its data lies outside the file.
- `InvalidArgumentError` (also `ValueError`): a bad argument.
- `MissingDependencyError`: an optional package (ml_dtypes) is needed for this.

Defined in the native module so Rust raises them directly; all are picklable.
"""

from __future__ import annotations

from eagle3_inspect._native import (
    CheckpointNotFoundError,
    InspectError,
    InvalidArgumentError,
    InvalidCheckpointError,
    TensorNotFoundError,
    TensorUnreadableError,
)


class MissingDependencyError(InspectError, ImportError):
    """An optional dependency is required for this operation."""


__all__ = [
    "CheckpointNotFoundError",
    "InspectError",
    "InvalidArgumentError",
    "InvalidCheckpointError",
    "MissingDependencyError",
    "TensorNotFoundError",
    "TensorUnreadableError",
]
