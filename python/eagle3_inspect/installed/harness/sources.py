"""Where an engine's source text comes from: a downloaded wheel (read with zipfile, never
installed) or the engine installed in this environment (read from its package directory, never
imported). Both give the same read-only view: the text of a file by its path inside the
distribution (`sglang/srt/models/llama_eagle3.py`), and the engine's version. Also the wheel
cache and its download step (`pip download --no-deps`), and cutting one top-level function or
class out of a source file with `ast` (the text unchanged). Both harnesses (the load drivers of
this package, run by tools/engine_truth/run.py and the installed-engine worker, and the forward
runs in tools/engine_truth/forward/) read engines through this module."""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Protocol

# Outside the repo; the wheels are read in place and never committed.
DEFAULT_CACHE = Path(
    os.environ.get("E3_ENGINE_WHEELS", Path.home() / ".cache/eagle3-inspect/engine_wheels")
)


class EngineSource(Protocol):
    """Read-only access to one engine version's Python sources."""

    engine: str
    version: str
    origin: str

    def __hash__(self) -> int:  # sources key the per-wheel caches (functools.cache)
        ...

    def has(self, member: str) -> bool:
        """Whether the distribution holds the file `member` (a path like `vllm/config.py`)."""
        ...

    def read(self, member: str) -> str:
        """The text of `member`."""
        ...

    def members(self, prefix: str) -> list[str]:
        """Every `.py` file under `prefix`, sorted."""
        ...


class WheelSource:
    """A wheel file, read in place."""

    def __init__(self, engine: str, version: str, path: Path) -> None:
        self.engine, self.version, self.origin = engine, version, path.name
        self._zip = zipfile.ZipFile(path)
        self._names = frozenset(self._zip.namelist())

    def has(self, member: str) -> bool:
        return member in self._names

    def read(self, member: str) -> str:
        return self._zip.read(member).decode("utf-8-sig")

    def members(self, prefix: str) -> list[str]:
        return sorted(n for n in self._names if n.startswith(prefix) and n.endswith(".py"))


class InstalledSource:
    """The engine installed in this environment: its package directory as found by
    `importlib.util.find_spec` (which locates without executing), its version from the
    distribution metadata."""

    def __init__(self, engine: str) -> None:
        spec = importlib.util.find_spec(engine)
        if spec is None or not spec.submodule_search_locations:
            raise LookupError(f"{engine} is not installed in this environment")
        self.engine = engine
        self.version = importlib.metadata.version(engine)
        self._root = Path(next(iter(spec.submodule_search_locations))).parent
        self.origin = f"{engine} {self.version} installed at {self._root / engine}"

    def has(self, member: str) -> bool:
        return (self._root / member).is_file()

    def read(self, member: str) -> str:
        return (self._root / member).read_text(encoding="utf-8-sig")

    def members(self, prefix: str) -> list[str]:
        base = self._root / prefix
        folder = base if base.is_dir() else base.parent
        found = (p.relative_to(self._root).as_posix() for p in folder.rglob("*.py"))
        return sorted(m for m in found if m.startswith(prefix))


def wheel_path(engine: str, version: str, cache: Path) -> Path | None:
    """The cached wheel for exactly engine==version, if present."""
    return next(iter(sorted(cache.glob(f"{engine.replace('-', '_')}-{version}-*.whl"))), None)


def download(engine: str, version: str, cache: Path) -> Path:
    """The cached wheel for engine==version, downloading it (no dependencies) if absent."""
    found = wheel_path(engine, version, cache)
    if found is not None:
        return found
    cache.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(cache)]
    subprocess.run([*cmd, f"{engine}=={version}"], check=True)
    found = wheel_path(engine, version, cache)
    if found is None:
        raise FileNotFoundError(f"pip download gave no wheel for {engine}=={version} in {cache}")
    return found


def open_wheel(engine: str, version: str, cache: Path = DEFAULT_CACHE) -> WheelSource:
    """The wheel of engine==version from `cache` (downloaded first if absent)."""
    return WheelSource(engine, version, download(engine, version, cache))


def cut(source: str, name: str) -> str | None:
    """The unchanged source text of the top-level function or class `name` in `source`."""
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            lines = source.splitlines(keepends=True)
            return "".join(lines[start - 1 : node.end_lineno])
    return None


def line_of(source: str, needle: str) -> int | None:
    """1-based line of the first occurrence of `needle` (evidence pointers)."""
    for number, line in enumerate(source.splitlines(), 1):
        if needle in line:
            return number
    return None
