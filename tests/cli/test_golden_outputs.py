"""Every command's output in every format on the demo checkpoints is what it was recorded as
(`golden_cases.py` says how the recordings were made and how to make them again)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.golden_cases import GOLDEN, case_names, demo_dir, run_case


@pytest.fixture(scope="module")
def demo() -> Iterator[Path]:
    with demo_dir() as root:
        yield root


def test_every_recording_is_a_case():
    assert {p.name for p in GOLDEN.glob("*.txt")} == {f"{c}.txt" for c in case_names()}


@pytest.mark.parametrize("case", case_names())
def test_output_is_the_recorded_one(case: str, demo: Path) -> None:
    expected = (GOLDEN / f"{case}.txt").read_text(encoding="utf-8")
    assert run_case(case, demo) == expected
