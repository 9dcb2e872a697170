"""A tiny dependency-free (numpy only) safetensors writer, single-file and sharded.

The project's one safetensors writer: the demo, the tests and the benchmarks build every
checkpoint through it (`raw_header` also writes the deliberately broken headers of the format
tests). bfloat16 and FP8 tensors need no
ml_dtypes: pass a `RawTensor` carrying the header dtype string and the raw little-endian bytes
(for example bf16 bit patterns as a `uint16` array). ml_dtypes arrays are mapped when given.
Files are written to `<path>.tmp-<pid>` and moved into place with `os.replace`.
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from eagle3_inspect.reader.dtypes import DTYPES

# numpy dtype name -> safetensors header dtype (ml_dtypes names included, so their arrays map
# without importing ml_dtypes here; packed F4/F6 only as RawTensor bytes).
_NUMPY_TO_ST = {
    (d.numpy or d.ml_dtypes): name
    for name, d in DTYPES.items()
    if not d.packed and (d.numpy or d.ml_dtypes)
}

# Bits per element of every header dtype (packed F4/F6 included, for RawTensor inputs).
DTYPE_BITS = {name: d.bits for name, d in DTYPES.items()}


@dataclass(frozen=True)
class RawTensor:
    """A tensor given as header dtype + shape + raw little-endian bytes (e.g. bf16 bit patterns)."""

    dtype: str
    shape: tuple[int, ...]
    data: bytes

    def __post_init__(self) -> None:
        if self.dtype not in DTYPE_BITS:
            raise ValueError(f"unknown safetensors dtype {self.dtype!r}")
        numel = 1
        for dim in self.shape:
            numel *= int(dim)
        bits = numel * DTYPE_BITS[self.dtype]
        if bits % 8 or bits // 8 != len(self.data):
            raise ValueError(
                f"{self.dtype} tensor of shape {list(self.shape)} needs {bits / 8:g} bytes, "
                f"got {len(self.data)}"
            )

    @classmethod
    def from_array(cls, array: np.ndarray, dtype: str | None = None) -> RawTensor:
        """Wrap a numpy array; `dtype` overrides the header dtype (e.g. uint16 bits as "BF16")."""
        header_dtype = dtype or numpy_dtype_to_st(array.dtype)
        if array.dtype.byteorder == ">":
            array = array.byteswap().view(array.dtype.newbyteorder("<"))
        data = np.ascontiguousarray(array).tobytes()
        return cls(header_dtype, tuple(int(d) for d in array.shape), data)

    @property
    def nbytes(self) -> int:
        return len(self.data)


TensorLike = RawTensor | np.ndarray


def numpy_dtype_to_st(dtype: np.dtype) -> str:
    """The header dtype for a numpy (or ml_dtypes) dtype; ValueError when unsupported."""
    name = np.dtype(dtype).name
    try:
        return _NUMPY_TO_ST[name]
    except KeyError:
        raise ValueError(f"numpy dtype {name!r} has no safetensors equivalent") from None


def as_raw(tensor: TensorLike) -> RawTensor:
    """Normalise an array or RawTensor to a RawTensor."""
    if isinstance(tensor, RawTensor):
        return tensor
    return RawTensor.from_array(np.asarray(tensor))


def header_bytes(
    entries: Iterable[tuple[str, str, Sequence[int], int]],
    metadata: Mapping[str, str] | None = None,
) -> bytes:
    """The 8-byte length prefix and the JSON header (padded to 8 bytes) for `(name, dtype, shape,
    nbytes)` entries whose data follows contiguously in the given order. Also used by the
    benchmarks, which stream multi-GB data after it."""
    header: dict[str, object] = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    offset = 0
    for name, dtype, shape, nbytes in entries:
        header[name] = {
            "dtype": dtype,
            "shape": list(shape),
            "data_offsets": [offset, offset + nbytes],
        }
        offset += nbytes
    return raw_header(header)


def raw_header(header: dict[str, Any] | str, pad: bool = True) -> bytes:
    """The length prefix and a header given as a dict or as exact JSON text (which may be
    malformed on purpose: the format tests write broken files through this)."""
    text = header if isinstance(header, str) else json.dumps(header, separators=(",", ":"))
    if pad:
        text += " " * (-len(text) % 8)  # counts characters: exact for the ASCII JSON we write
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def _header_bytes(raws: Mapping[str, RawTensor], metadata: Mapping[str, str] | None) -> bytes:
    entries = (
        (name, raws[name].dtype, raws[name].shape, raws[name].nbytes) for name in sorted(raws)
    )
    return header_bytes(entries, metadata)


def _memmap_sources(tensors: Mapping[str, TensorLike]) -> set[Path]:
    sources: set[Path] = set()
    for tensor in tensors.values():
        base: Any = tensor
        while isinstance(base, np.ndarray):
            filename = getattr(base, "filename", None)
            if filename:
                sources.add(Path(filename).resolve())
            base = base.base
    return sources


def write_safetensors(
    path: str | os.PathLike[str],
    tensors: Mapping[str, TensorLike],
    metadata: Mapping[str, str] | None = None,
    *,
    inputs: tuple[str | os.PathLike[str], ...] = (),
) -> int:
    """Write `tensors` (name order, contiguous) to `path` atomically; returns the file size.

    Refuses to replace a file that one of the tensors is memory-mapped from, or any of `inputs`.
    """
    target = Path(path)
    protected = _memmap_sources(tensors) | {Path(p).resolve() for p in inputs}
    if target.resolve() in protected:
        raise ValueError(f"refusing to overwrite {target}: it is an input being read")
    raws = {name: as_raw(t) for name, t in tensors.items()}
    header = _header_bytes(raws, metadata)
    tmp = target.with_name(f"{target.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as out:
            out.write(header)
            for name in sorted(raws):
                out.write(raws[name].data)
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    return len(header) + sum(r.nbytes for r in raws.values())


def write_sharded(
    directory: str | os.PathLike[str],
    tensors: Mapping[str, TensorLike],
    shard_of: Callable[[str], int] | int,
    metadata: Mapping[str, str] | None = None,
) -> list[Path]:
    """Write `model-0000i-of-0000N.safetensors` shards plus `model.safetensors.index.json`.

    `shard_of` maps a tensor name to a 0-based shard index, or is an int N: split the names (in
    order) into N contiguous groups of near-equal count. Returns the shard paths.
    """
    out_dir = Path(directory)
    out_dir.mkdir(parents=True, exist_ok=True)
    names = sorted(tensors)
    if isinstance(shard_of, int):
        count = max(1, shard_of)
        per = -(-len(names) // count) if names else 1
        assign = {name: i // per for i, name in enumerate(names)}
    else:
        assign = {name: int(shard_of(name)) for name in names}
    n_shards = max(assign.values(), default=0) + 1
    if min(assign.values(), default=0) < 0:
        raise ValueError("shard indices must be >= 0")
    raws = {name: as_raw(tensors[name]) for name in names}
    paths: list[Path] = []
    weight_map: dict[str, str] = {}
    for shard in range(n_shards):
        file_name = f"model-{shard + 1:05d}-of-{n_shards:05d}.safetensors"
        members = {n: raws[n] for n in names if assign[n] == shard}
        write_safetensors(out_dir / file_name, members, metadata)
        paths.append(out_dir / file_name)
        weight_map.update(dict.fromkeys(members, file_name))
    index = {
        "metadata": {"total_size": sum(r.nbytes for r in raws.values())},
        "weight_map": weight_map,
    }
    index_path = out_dir / "model.safetensors.index.json"
    tmp = index_path.with_name(f"{index_path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(index, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, index_path)
    return paths
