"""The documentation names only what exists: every module `eagle3_inspect.X` and every file path
in backticks in the README, `docs/`, the benchmarks' README and the package's own READMEs is
there (a moved or deleted file, or a results file never committed, fails here)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "eagle3_inspect"
PAGES = sorted(
    [
        ROOT / "README.md",
        *(ROOT / "docs").glob("*.md"),
        ROOT / "benchmarks" / "README.md",
        ROOT / "benchmarks" / "results" / "README.md",
        *PACKAGE.rglob("README.md"),
    ]
)
MODULE = re.compile(r"\beagle3_inspect(?:\.[a-z_][a-z0-9_]*)+")
# A path in backticks: a folder and a name after it, ending in a file type this repository has,
# or in `/` (a bare file name like `config.json` is the name of a kind of file, not a citation).
PATH = re.compile(
    r"`([A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-/]+(?:\.(?:py|rs|pyi|md|toml|json|jsonl|txt|sh|yml|yaml)|/))`"
)
# Where a page's relative path may start: the page's folder, the root, the package, the crates.
BASES = (ROOT, PACKAGE, ROOT / "rust" / "core", ROOT / "rust" / "python", ROOT / "rust")


def _module_exists(name: str) -> bool:
    while name:
        try:
            if importlib.util.find_spec(name) is not None:
                return True
        except ModuleNotFoundError:
            pass
        # `eagle3_inspect.open` names an attribute, not a module: check its parent has it.
        parent, _, attribute = name.rpartition(".")
        if parent and _module_exists_exactly(parent):
            module = importlib.import_module(parent)
            return hasattr(module, attribute)
        name = parent
    return False


def _module_exists_exactly(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def _path_exists(page: Path, cited: str) -> bool:
    if any(mark in cited for mark in ("<", "*", "NAME", "...")):
        return True  # a pattern, not a path
    cited = cited.removeprefix("./")
    return any((base / cited).exists() for base in (page.parent, *BASES))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_pages_name_existing_modules_and_files(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing_modules = sorted({m for m in MODULE.findall(text) if not _module_exists(m)})
    missing_files = sorted({p for p in PATH.findall(text) if not _path_exists(page, p)})
    assert not missing_modules, f"{page.name} names modules that do not exist: {missing_modules}"
    assert not missing_files, f"{page.name} cites files that do not exist: {missing_files}"


def test_the_check_can_fail(tmp_path: Path) -> None:
    page = tmp_path / "README.md"
    assert not _module_exists("eagle3_inspect.engines")
    assert _module_exists("eagle3_inspect.open") and _module_exists("eagle3_inspect.reader.opening")
    assert not _path_exists(page, "benchmarks/results/no-such-run.txt")
    assert _path_exists(page, "rules/en/profiles/README.md")
