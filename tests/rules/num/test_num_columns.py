"""The NUM rules read the stats pass's columns when they can (`StatsByName`): the same findings,
in the same order, as from the TensorStats objects, whatever tensors the pass covered."""

from __future__ import annotations

import numpy as np
import pytest

import eagle3_inspect
from eagle3_inspect.reader.stats_map import stats_columns
from eagle3_inspect.rules.num.check import check_numbers
from tests.conftest import raw_tensors


def _f32(*values: float) -> bytes:
    return np.array(values, dtype=np.float32).tobytes()


@pytest.fixture
def mixed(tmp_path):
    return raw_tensors(
        tmp_path / "mixed.safetensors",
        {
            "a.weight": ("F32", (2,), _f32(0.0, 0.0)),
            "b.weight": ("F32", (2,), _f32(np.nan, np.nan)),
            "c.weight": ("F32", (3,), _f32(np.nan, np.inf, 0.0)),
            "d.norm.weight": ("F32", (2,), _f32(1.0, 1.0)),
            "e.ids": ("I64", (2,), np.array([0, 0], dtype=np.int64).tobytes()),
            "f.weight": ("F32", (0,), b""),
            "g.weight": ("BF16", (2,), b"\x00\x00\x00\x80"),
            "h.weight": ("F32", (2,), _f32(0.5, -1.5)),
        },
    )


@pytest.mark.parametrize(
    "names",
    [
        None,
        ["a.weight", "b.weight", "c.weight", "d.norm.weight", "f.weight", "g.weight", "h.weight"],
        ["h.weight", "a.weight", "d.norm.weight"],
        ["a.weight", "c.weight", "a.weight"],
    ],
)
def test_findings_from_columns_are_the_findings_from_objects(mixed, names) -> None:
    ckpt = eagle3_inspect.open(mixed)
    stats = ckpt.stats(names)
    assert stats_columns(stats) is not None
    from_columns = check_numbers(ckpt.tensors, stats)
    from_objects = check_numbers(ckpt.tensors, dict(stats))
    assert from_columns == from_objects
    codes = {f.code for f in from_objects}
    assert "NUM004" in codes
    if names is None:
        assert {"NUM001", "NUM002", "NUM003", "NUM005"} <= codes
