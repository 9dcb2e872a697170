"""The optional `ray` dependency: imported on first use only, with one clear error without it."""

from __future__ import annotations

import importlib
from types import ModuleType

from eagle3_inspect.errors import MissingDependencyError

RAY_MISSING = "--ray needs Ray: pip install 'eagle3-inspect[ray]'"


def require_ray() -> ModuleType:
    """The `ray` module, or MissingDependencyError naming the extra to install."""
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise MissingDependencyError(RAY_MISSING) from exc
