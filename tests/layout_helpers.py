"""Test helpers for the layout/E3 tests: write a drafter and read its TensorInfo back from disk."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np

import eagle3_inspect
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.synthetic.drafters import Drafter, float_tensor

_counter = itertools.count()


def infos_of(drafter: Drafter, tmp_path: Path, shards: int | None = None) -> dict[str, TensorInfo]:
    """Write `drafter` under a fresh subdirectory of `tmp_path` and read its headers back."""
    out = tmp_path / f"drafter-{next(_counter)}"
    drafter.write(out, shards=shards)
    return eagle3_inspect.open(out).tensors


def with_tensor(drafter: Drafter, name: str, shape: tuple[int, ...] | None, dtype="BF16"):
    """A copy of `drafter` with `name` replaced by a zero tensor of `shape` (None deletes it)."""
    out = drafter.copy()
    if shape is None:
        del out.tensors[name]
    else:
        out.tensors[name] = float_tensor(np.zeros(shape, dtype=np.float32), dtype)
    return out


def renamed(drafter: Drafter, old_prefix: str, new_prefix: str) -> Drafter:
    """A copy with every key starting with `old_prefix` renamed to start with `new_prefix`."""
    out = drafter.copy()
    out.tensors = {
        (new_prefix + k[len(old_prefix) :] if k.startswith(old_prefix) else k): v
        for k, v in drafter.tensors.items()
    }
    return out


def with_config(drafter: Drafter, path: str, value: Any = ..., delete: bool = False) -> Drafter:
    """A copy with the dotted config key `path` set to `value` (or deleted)."""
    out = drafter.copy()
    node = out.config
    *parents, leaf = path.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    if delete:
        node.pop(leaf, None)
    else:
        node[leaf] = value
    return out
