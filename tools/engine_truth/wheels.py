"""Engine wheels: the download step (`pip download --no-deps`, into a cache outside the repo) and
reading source files straight out of a wheel (zipfile), plus cutting one top-level function or
class out of a source file with `ast` (the text is returned unchanged)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import zipfile
from pathlib import Path

# Outside the repo; the wheels are read in place and never committed.
DEFAULT_CACHE = Path(
    os.environ.get("E3_ENGINE_WHEELS", Path.home() / ".cache/eagle3-inspect/engine_wheels")
)


def download(engine: str, version: str, cache: Path) -> Path:
    """The cached wheel for engine==version, downloading it (no dependencies) if absent."""
    found = find_wheel(engine, version, cache)
    if found is not None:
        return found
    cache.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "-q",
        "--no-deps",
        "-d",
        str(cache),
        f"{engine}=={version}",
    ]
    subprocess.run(cmd, check=True)
    found = find_wheel(engine, version, cache)
    if found is None:
        raise FileNotFoundError(f"pip download gave no wheel for {engine}=={version} in {cache}")
    return found


def find_wheel(engine: str, version: str, cache: Path) -> Path | None:
    """The wheel file for exactly engine==version in `cache`, if present."""
    name = engine.replace("-", "_")
    for path in sorted(cache.glob(f"{name}-{version}-*.whl")):
        return path
    return None


class Wheel:
    """Read-only view of one wheel's Python sources."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._zip = zipfile.ZipFile(path)
        self.names = set(self._zip.namelist())

    def has(self, member: str) -> bool:
        """Whether the wheel contains `member`."""
        return member in self.names

    def read(self, member: str) -> str:
        """The text of `member`."""
        return self._zip.read(member).decode("utf-8-sig")

    def glob(self, prefix: str, contains: str) -> list[str]:
        """Members under `prefix` whose file name contains `contains`."""
        return sorted(
            n
            for n in self.names
            if n.startswith(prefix) and contains in n.rsplit("/", 1)[-1] and n.endswith(".py")
        )


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
