"""Pure-Python safetensors header reader: the 8-byte length, the JSON header, TensorInfo records.

A stop-gap used by the target cross-checks and the tests; reads headers only, never tensor data.
The native reader replaces it where available.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path
from typing import Any

from eagle3_inspect.tensorinfo import TensorInfo

# A header larger than this is not a header we are willing to parse (the reference caps at 100 MB).
MAX_HEADER_BYTES = 100_000_000


class HeaderError(ValueError):
    """The file does not start with a readable safetensors header."""


def read_header(path: str | os.PathLike[str]) -> tuple[dict[str, Any], int]:
    """The parsed JSON header of `path` and the absolute offset where its data section begins."""
    with open(path, "rb") as handle:
        prefix = handle.read(8)
        if len(prefix) != 8:
            raise HeaderError(f"{path}: shorter than the 8-byte header length")
        (length,) = struct.unpack("<Q", prefix)
        if length > MAX_HEADER_BYTES:
            raise HeaderError(f"{path}: header length {length} exceeds {MAX_HEADER_BYTES}")
        raw = handle.read(length)
    if len(raw) != length:
        raise HeaderError(f"{path}: header truncated ({len(raw)} of {length} bytes)")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HeaderError(f"{path}: header is not UTF-8 JSON: {exc}") from None
    if not isinstance(header, dict):
        raise HeaderError(f"{path}: header is not a JSON object")
    return header, 8 + length


def tensor_infos(path: str | os.PathLike[str]) -> dict[str, TensorInfo]:
    """TensorInfo for every tensor in one safetensors file (`__metadata__` excluded)."""
    header, data_start = read_header(path)
    infos: dict[str, TensorInfo] = {}
    for name, entry in header.items():
        if name == "__metadata__" or not isinstance(entry, dict):
            continue
        begin, end = entry.get("data_offsets", (0, 0))
        infos[name] = TensorInfo(
            name=name,
            dtype=str(entry.get("dtype", "")),
            shape=tuple(int(d) for d in entry.get("shape", ())),
            nbytes=int(end) - int(begin),
            file=str(path),
            offset=data_start + int(begin),
        )
    return infos


def checkpoint_files(directory: str | os.PathLike[str]) -> list[Path]:
    """The safetensors files of a checkpoint directory: the index's shards, else every file."""
    root = Path(directory)
    index = root / "model.safetensors.index.json"
    if index.is_file():
        weight_map = json.loads(index.read_text()).get("weight_map", {})
        return [root / name for name in sorted(set(weight_map.values()))]
    return sorted(root.glob("*.safetensors"))


def directory_tensor_infos(directory: str | os.PathLike[str]) -> dict[str, TensorInfo]:
    """TensorInfo of every tensor across a checkpoint directory's safetensors files."""
    infos: dict[str, TensorInfo] = {}
    for file in checkpoint_files(directory):
        infos.update(tensor_infos(file))
    return infos
