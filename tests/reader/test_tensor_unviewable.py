"""Checkpoint.tensor() on shapes the format allows but numpy cannot view raises
TensorUnreadableError naming the tensor and file, not a bare numpy ValueError (issue 10)."""

from __future__ import annotations

import json
import struct

import pytest

import eagle3_inspect
from eagle3_inspect.errors import TensorUnreadableError


def write(path, shape: list[int], nbytes: int) -> None:
    header = json.dumps({"t": {"dtype": "U8", "shape": shape, "data_offsets": [0, nbytes]}})
    header += " " * (-(8 + len(header)) % 8)
    path.write_bytes(struct.pack("<Q", len(header)) + header.encode() + b"\0" * nbytes)


@pytest.mark.parametrize(
    ("shape", "nbytes"), [([0, 2**63], 0), ([2**64 - 1, 0], 0), ([1] * 65, 1)], ids=str
)
def test_unviewable_shape_raises_tensor_unreadable(tmp_path, shape, nbytes) -> None:
    path = tmp_path / "odd.safetensors"
    write(path, shape, nbytes)
    ckpt = eagle3_inspect.open(path)
    assert not [f for f in ckpt.findings if f.severity.value == "error"], ckpt.findings
    with pytest.raises(TensorUnreadableError) as caught:
        ckpt.tensor("t")
    assert not isinstance(caught.value, ValueError)
    assert "'t'" in str(caught.value) and "odd.safetensors" in str(caught.value)


def test_viewable_shape_still_reads(tmp_path) -> None:
    path = tmp_path / "ok.safetensors"
    write(path, [1] * 64, 1)
    assert eagle3_inspect.open(path).tensor("t").shape == (1,) * 64
