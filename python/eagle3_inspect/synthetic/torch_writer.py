"""Writes what `torch.save` writes, without torch (numpy only): the zip format (records stored and
aligned to 64 bytes, zip64 past 4 GiB, CRC-32 filled in) and the legacy format, around a protocol-2
pickle of an `OrderedDict` of `_rebuild_tensor_v2` calls, byte for byte the layout torch uses.
Held to torch itself: `tests/torch/generate.py` loads files written here with
`torch.load(weights_only=True)` and records that they hold what was written (`truth.json`).

Tensors stream: each is given as its dtype, shape and an iterator of byte chunks, so a
multi-GB benchmark drafter is written in bounded memory. The benchmarks and the tests write
their torch files through here.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

# safetensors dtype -> (torch legacy storage class, element size)
STORAGE_CLASSES = {
    "BOOL": ("BoolStorage", 1),
    "U8": ("ByteStorage", 1),
    "I8": ("CharStorage", 1),
    "I16": ("ShortStorage", 2),
    "I32": ("IntStorage", 4),
    "I64": ("LongStorage", 8),
    "F16": ("HalfStorage", 2),
    "BF16": ("BFloat16Storage", 2),
    "F32": ("FloatStorage", 4),
    "F64": ("DoubleStorage", 8),
}
MAGIC = bytes([0x8A, 10, 0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50, 0x19])
ALIGN = 64


@dataclass(frozen=True)
class TorchTensor:
    """One tensor: safetensors dtype, shape, and its little-endian bytes as chunks."""

    dtype: str
    shape: tuple[int, ...]
    chunks: Iterable[bytes]

    @property
    def nbytes(self) -> int:
        numel = 1
        for d in self.shape:
            numel *= d
        return numel * STORAGE_CLASSES[self.dtype][1]


class _Pickle:
    """A protocol-2 pickle as torch writes its state dicts (memo puts omitted: not needed)."""

    def __init__(self) -> None:
        self.out = bytearray(b"\x80\x02")

    def op(self, *codes: bytes) -> _Pickle:
        for code in codes:
            self.out += code
        return self

    def global_(self, module: str, name: str) -> _Pickle:
        self.out += b"c" + f"{module}\n{name}\n".encode()
        return self

    def str_(self, text: str) -> _Pickle:
        data = text.encode("utf-8")
        self.out += b"X" + struct.pack("<I", len(data)) + data
        return self

    def int_(self, value: int) -> _Pickle:
        if 0 <= value < 256:
            self.out += b"K" + bytes([value])
        elif 0 <= value < 65536:
            self.out += b"M" + struct.pack("<H", value)
        elif -(2**31) <= value < 2**31:
            self.out += b"J" + struct.pack("<i", value)
        else:
            self.out += b"\x8a\x08" + struct.pack("<q", value)
        return self

    def ints(self, values: Iterable[int]) -> _Pickle:
        self.op(b"(")
        for v in values:
            self.int_(v)
        return self.op(b"t")

    def stop(self) -> bytes:
        return bytes(self.out + b".")


def _strides(shape: tuple[int, ...]) -> list[int]:
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return strides[::-1]


def state_dict_pickle(tensors: Mapping[str, TorchTensor], legacy: bool) -> bytes:
    """The pickle of an OrderedDict of the tensors, storage i holding tensor i."""
    p = _Pickle().global_("collections", "OrderedDict").op(b")", b"R", b"(")
    for key, (name, t) in enumerate(tensors.items()):
        storage_class, elsize = STORAGE_CLASSES[t.dtype]
        p.str_(name).global_("torch._utils", "_rebuild_tensor_v2").op(b"(", b"(")
        p.str_("storage").global_("torch", storage_class).str_(str(key)).str_("cpu")
        p.int_(t.nbytes // elsize)
        if legacy:
            p.op(b"N")
        p.op(b"t", b"Q").int_(0).ints(t.shape).ints(_strides(t.shape)).op(b"\x89")
        p.global_("collections", "OrderedDict").op(b")", b"R", b"t", b"R")
    return p.op(b"u").stop()


class _Zip:
    """A streaming writer of stored records, each aligned to ALIGN bytes, zip64 when needed."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.central = bytearray()
        self.count = 0

    def record(self, name: str, size: int, chunks: Iterable[bytes]) -> None:
        encoded = name.encode()
        local = self.out.tell()
        zip64 = size >= 0xFFFFFFFF or local >= 0xFFFFFFFF
        fixed = 30 + len(encoded) + (20 if zip64 else 0)
        pad = (ALIGN - (local + fixed + 4) % ALIGN) % ALIGN
        extra = b""
        if zip64:
            extra += struct.pack("<HHQQ", 1, 16, size, size)
        extra += struct.pack("<HH", 0x4246, pad) + b"Z" * pad
        small = 0xFFFFFFFF if zip64 else size
        head = struct.pack(
            "<IHHHHHIIIHH",
            0x04034B50,
            45 if zip64 else 20,
            0,
            0,
            0,
            0,
            0,
            small,
            small,
            len(encoded),
            len(extra),
        )
        self.out.write(head + encoded + extra)
        crc, written = 0, 0
        for chunk in chunks:
            crc = zlib.crc32(chunk, crc)
            written += len(chunk)
            self.out.write(chunk)
        if written != size:
            raise ValueError(f"{name}: wrote {written} bytes, declared {size}")
        end = self.out.tell()
        self.out.seek(local + 14)
        self.out.write(struct.pack("<I", crc))
        self.out.seek(end)
        big = zip64 or local >= 0xFFFFFFFF
        cextra = struct.pack("<HHQQQ", 1, 24, size, size, local) if big else b""
        c_small = 0xFFFFFFFF if big else size
        c_local = 0xFFFFFFFF if big else local
        self.central += struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            45,
            45 if big else 20,
            0,
            0,
            0,
            0,
            crc,
            c_small,
            c_small,
            len(encoded),
            len(cextra),
            0,
            0,
            0,
            0,
            c_local,
        )
        self.central += encoded + cextra
        self.count += 1

    def close(self) -> None:
        at = self.out.tell()
        self.out.write(self.central)
        size = len(self.central)
        if at + size >= 0xFFFFFFFF or self.count >= 0xFFFF:
            eocd64 = self.out.tell()
            self.out.write(
                struct.pack(
                    "<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, self.count, self.count, size, at
                )
            )
            self.out.write(struct.pack("<IIQI", 0x07064B50, 0, eocd64, 1))
            self.out.write(
                struct.pack(
                    "<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0
                )
            )
        else:
            self.out.write(
                struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, self.count, self.count, size, at, 0)
            )


def write_torch_zip(path: Path, tensors: Mapping[str, TorchTensor]) -> None:
    """`torch.save(state_dict, path)`: records `archive/data.pkl`, `byteorder`, `data/<i>`,
    `version`, written to `<path>.tmp-<pid>` and moved into place."""
    tmp = Path(f"{path}.tmp-{os.getpid()}")
    with open(tmp, "wb") as out:
        z = _Zip(out)
        pickle = state_dict_pickle(tensors, legacy=False)
        z.record("archive/data.pkl", len(pickle), [pickle])
        z.record("archive/byteorder", 6, [b"little"])
        for key, t in enumerate(tensors.values()):
            z.record(f"archive/data/{key}", t.nbytes, t.chunks)
        z.record("archive/version", 2, [b"3\n"])
        z.close()
    os.replace(tmp, path)


def write_torch_legacy(path: Path, tensors: Mapping[str, TorchTensor]) -> None:
    """`torch.save(state_dict, path, _use_new_zipfile_serialization=False)`."""
    tmp = Path(f"{path}.tmp-{os.getpid()}")
    with open(tmp, "wb") as out:
        out.write(_Pickle().op(MAGIC).stop())
        out.write(_Pickle().int_(1001).stop())
        info = _Pickle().op(b"}", b"(").str_("protocol_version").int_(1001)
        info.str_("little_endian").op(b"\x88").op(b"u")
        out.write(info.stop())
        out.write(state_dict_pickle(tensors, legacy=True))
        keys = _Pickle().op(b"]", b"(")
        for key in range(len(tensors)):
            keys.str_(str(key))
        out.write(keys.op(b"e").stop())
        for t in tensors.values():
            out.write(struct.pack("<q", t.nbytes // STORAGE_CLASSES[t.dtype][1]))
            for chunk in t.chunks:
                out.write(chunk)
    os.replace(tmp, path)
