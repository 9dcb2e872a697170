"""The compatibility matrix in docs/engines.md is exactly what tools/engine_truth/matrix.py
generates from the committed ground truth (regenerate with
`python tools/engine_truth/matrix.py --write`)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def matrix(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(ROOT / "tools/engine_truth"))
    return importlib.import_module("matrix")


def test_the_page_s_table_equals_the_generated_one(matrix) -> None:
    generated = matrix.current()
    assert matrix.PAGE == ROOT / "docs" / "engines.md"
    assert matrix.in_page(matrix.PAGE.read_text()) == generated


def _table(text: str, engine: str) -> dict[str, dict[str, str]]:
    """One engine's table: row label -> version -> cell."""
    block = text.split(f"**{engine}**", 1)[1].split("\n\n", 2)[1]
    lines = [line for line in block.splitlines() if line.startswith("|")]
    versions = [c.strip() for c in lines[0].strip("|").split("|")][2:]
    rows = {}
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[1]] = dict(zip(versions, cells[2:], strict=True))
    return rows


def test_matrix_shows_the_known_verdicts(matrix) -> None:
    table = matrix.current()
    label = "speculators 0.9.0 `default`"
    # No SGLang version reads speculators-format configs; speculators itself loads it; vLLM
    # 0.11/0.15 raise KeyError on input_norm, 0.20 and later load it.
    assert all(c.startswith("fails [") for c in _table(table, "sglang")[label].values())
    assert set(_table(table, "speculators")[label].values()) == {"loads"}
    vllm = _table(table, "vllm")[label]
    assert vllm["0.11.0"].startswith("fails") and vllm["0.15.0"].startswith("fails")
    newer = [v for v in vllm if tuple(map(int, v.split("."))) >= (0, 20, 0)]
    assert newer and all(vllm[v] == "loads" for v in newer)


def test_matrix_groups_rows_by_family(matrix) -> None:
    """Within each engine's table the rows run family by family (EAGLE-3, P-EAGLE, DFlash,
    DFlash2), so a reader finds a family's rows together."""
    text = matrix.current()
    for engine in ("sglang", "speculators", "vllm"):
        families = [label.split(" ")[0] for label in _family_column(text, engine)]
        order = [matrix.FAMILY_ORDER.index(f) for f in families]
        assert order == sorted(order), engine
        assert set(families) == set(matrix.FAMILY_ORDER)


def _family_column(text: str, engine: str) -> list[str]:
    block = text.split(f"**{engine}**", 1)[1].split("\n\n", 2)[1]
    lines = [line for line in block.splitlines() if line.startswith("|")][2:]
    return [line.strip("|").split("|")[0].strip() for line in lines]
