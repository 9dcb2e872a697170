"""Finding the engine installed in this Python, and torch and transformers beside it, without
importing any of them (`importlib.util.find_spec` locates a top-level package without executing
it): when one is missing, `--engine NAME@installed` is one line saying what to install."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from eagle3_inspect.errors import InvalidArgumentError, MissingDependencyError

# Engines whose load code the harness runs.
ENGINES = ("sglang", "vllm")
# What the worker imports besides the engine's source files: torch builds the engine's modules,
# transformers' AutoConfig reads the draft config as the engines do.
RUNTIME = ("torch", "transformers")


@dataclass(frozen=True)
class InstalledEngine:
    """An engine found in this Python: its distribution version and package directory."""

    engine: str
    version: str
    location: str
    python: str

    @property
    def label(self) -> str:
        """The `--engine` spec that selects it, as findings name their engine."""
        return f"{self.engine}@installed"

    def to_dict(self) -> dict[str, str]:
        return {
            "engine": self.engine,
            "version": self.version,
            "location": self.location,
            "python": self.python,
        }


def find_installed(engine: str) -> InstalledEngine:
    """The installed `engine` (sglang or vllm). Raises InvalidArgumentError for another name and
    MissingDependencyError, one line naming what to install, when the engine, torch or
    transformers cannot be found by this Python."""
    if engine not in ENGINES:
        raise InvalidArgumentError(
            f"{engine}@installed: the installed-engine harness runs {' and '.join(ENGINES)} only"
        )
    specs = {name: importlib.util.find_spec(name) for name in (*RUNTIME, engine)}
    missing = [name for name, found in specs.items() if found is None]
    spec = specs[engine]
    if missing or spec is None:
        raise MissingDependencyError(
            f"{engine}@installed needs {', '.join(missing)} importable by {sys.executable}: "
            f"pip install {' '.join(missing)} (CPU torch is enough; no GPU is used)"
        )
    folders = list(spec.submodule_search_locations or [])
    location = folders[0] if folders else str(Path(spec.origin or engine).parent)
    try:
        version = importlib.metadata.version(engine)
    except importlib.metadata.PackageNotFoundError:
        raise MissingDependencyError(
            f"{engine}@installed: {location} has no {engine} distribution metadata, so its "
            f"version is unknown; install {engine} with pip"
        ) from None
    return InstalledEngine(engine, version, location, sys.executable)
