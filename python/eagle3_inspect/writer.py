"""The one write path of the package: a safetensors file through the native writer (tensors
streamed from the source shards' memory maps, a few small owned tensors), and directory fsync.
Used only by `fix`, which never writes into its source."""

from __future__ import annotations

import os

import numpy as np

from eagle3_inspect import _native

# The owned tensors fix writes are index mappings: integer ids and t2d masks.
OWNED_DTYPES = {"int64": "I64", "int32": "I32", "int16": "I16", "uint8": "U8", "bool": "BOOL"}
Copied = tuple[str, str, str]  # (name in DST, source file, name in the source file)


def owned_tensor(name: str, array: np.ndarray) -> tuple[str, str, list[int], bytes]:
    """`array` as the (name, dtype, shape, little-endian bytes) the native writer takes."""
    data = np.ascontiguousarray(array)
    if data.dtype.byteorder == ">":
        data = data.astype(data.dtype.newbyteorder("<"))
    return name, OWNED_DTYPES[data.dtype.name], list(data.shape), data.tobytes()


def write_safetensors(
    dest: str | os.PathLike[str],
    copied: list[Copied],
    owned: list[tuple[str, str, list[int], bytes]],
    metadata: dict[str, str] | None,
) -> int:
    """Writes and fsyncs `dest` (which must not exist); returns its size in bytes."""
    return _native.write_safetensors(os.fspath(dest), copied, owned, metadata)


def sync_dir(path: str | os.PathLike[str]) -> None:
    """fsyncs a directory so the names created in it survive a crash."""
    _native.sync_dir(os.fspath(path))
