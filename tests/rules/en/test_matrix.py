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


def test_matrix_shows_the_known_verdicts(matrix) -> None:
    table = matrix.current()
    row = next(line for line in table.splitlines() if "speculators 0.9.0 `default`" in line)
    # sglang x5 refuse (no speculators support), speculators loads, vLLM 0.11/0.15 KeyError on
    # input_norm, 0.20+ load: the column order is sglang, speculators, vllm versions.
    cells = [c.strip() for c in row.strip("|").split("|")][1:]
    assert cells[0].startswith("fails [") and cells[:5] == [cells[0]] * 5
    assert cells[5] == "loads"
    assert cells[6].startswith("fails") and cells[7].startswith("fails")
    assert cells[8:] == ["loads"] * 4
