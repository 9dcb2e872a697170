"""The one write path of the package: a safetensors file through the native writer (tensors
streamed from the source shards' memory maps, a few small owned tensors, each read back and
compared with its source as it is written, with the statistics of what was read back), and
directory fsync. Used only by `fix`, which never writes into its source."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from eagle3_inspect import _native
from eagle3_inspect.reader.stats import TensorStats, stats_of_columns

# The owned tensors fix writes are index mappings: integer ids and t2d masks.
OWNED_DTYPES = {"int64": "I64", "int32": "I32", "int16": "I16", "uint8": "U8", "bool": "BOOL"}
Copied = tuple[str, str, str]  # (name in DST, source file, name in the source file)


def owned_tensor(name: str, array: np.ndarray) -> tuple[str, str, list[int], bytes]:
    """`array` as the (name, dtype, shape, little-endian bytes) the native writer takes."""
    data = np.ascontiguousarray(array)
    if data.dtype.byteorder == ">":
        data = data.astype(data.dtype.newbyteorder("<"))
    return name, OWNED_DTYPES[data.dtype.name], list(data.shape), data.tobytes()


@dataclass(frozen=True)
class WrittenTensor:
    """One tensor of a written file: its name, where its bytes came from (`source_file` and
    `source_name`, None for an owned tensor), and `problem`: None when the file, read back right
    after the write, holds exactly those bytes under this name with the source's dtype and shape
    (at the range the package's own reader finds for the name), else what is wrong."""

    name: str
    source_file: str | None
    source_name: str | None
    problem: str | None


@dataclass(frozen=True)
class WrittenFile:
    """What `write_safetensors` wrote: the file, its size, each tensor's verification, and the
    statistics of the bytes read back (what `Checkpoint.stats()` of the file would give)."""

    path: str
    size: int
    tensors: tuple[WrittenTensor, ...]
    stats: Mapping[str, TensorStats]


def write_safetensors(
    dest: str | os.PathLike[str],
    copied: list[Copied],
    owned: list[tuple[str, str, list[int], bytes]],
    metadata: dict[str, str] | None,
    threads: int | None = None,
) -> WrittenFile:
    """Writes, verifies and fsyncs `dest` (which must not exist); see `WrittenFile`."""
    done = _native.write_safetensors(os.fspath(dest), copied, owned, metadata, threads=threads)
    stats = dict(done["stats"])
    names = stats.pop("name") or []
    return WrittenFile(
        path=os.fspath(dest),
        size=done["size"],
        tensors=tuple(
            WrittenTensor(
                name=t["name"],
                source_file=None if t["source_file"] is None else os.fspath(t["source_file"]),
                source_name=t["source_name"],
                problem=t["problem"],
            )
            for t in done["tensors"]
        ),
        stats=stats_of_columns(list(names), stats),
    )


def sync_dir(path: str | os.PathLike[str]) -> None:
    """fsyncs a directory so the names created in it survive a crash."""
    _native.sync_dir(os.fspath(path))
