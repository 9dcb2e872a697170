"""A stats pass over more tensors than one part of the native pass (`STATS_PART`, 32768) gives
each tensor its own statistics, in order, across the part boundaries."""

from __future__ import annotations

import numpy as np

import eagle3_inspect
from tests.conftest import raw_file

TENSORS = 70_001  # two whole parts and a bit


def test_every_tensor_gets_its_own_stats_across_parts(tmp_path) -> None:
    header = {
        f"t{i:06d}": {"dtype": "F32", "shape": [1], "data_offsets": [4 * i, 4 * i + 4]}
        for i in range(TENSORS)
    }
    data = np.arange(TENSORS, dtype=np.float32).tobytes()
    ckpt = eagle3_inspect.open(raw_file(tmp_path / "parts.safetensors", header, data))
    every = ckpt.stats()
    assert len(every) == TENSORS
    assert [s.mean for s in every.values()] == [float(i) for i in range(TENSORS)]
    names = [f"t{i:06d}" for i in range(TENSORS - 1, -1, -3)]
    some = ckpt.stats(names)
    assert list(some) == names
    assert [some[n].max for n in names] == [float(n[1:]) for n in names]
