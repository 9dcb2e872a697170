"""ST022 / ST023 raised in this process (the fuzz campaign judges its cases in child processes,
where the suite's every-code-fires check cannot see them): two committed fuzz seeds, opened."""

from __future__ import annotations

import shutil
from pathlib import Path

from eagle3_inspect.reader.checkpoint import Checkpoint
from tests.fuzz import campaign


def _codes(seed: str, tmp_path: Path) -> set[str]:
    path = tmp_path / "model.safetensors"
    shutil.copyfile(campaign.CORPUS / f"{seed}.safetensors", path)
    return {f.code for f in Checkpoint(path).findings}


def test_a_header_the_reference_json_parser_refuses_is_st022(tmp_path: Path) -> None:
    assert "ST022" in _codes("seed-meta-1e999", tmp_path)


def test_a_repeated_entry_field_is_st023(tmp_path: Path) -> None:
    assert "ST023" in _codes("seed-repeated-dtype", tmp_path)
