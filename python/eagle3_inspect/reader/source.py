"""Checkpoints whose files are not local files: each file is a size and a `read(offset, length)`
callable (an HTTP range reader, a task on the node that holds the file). `Checkpoint.from_source`
opens a `SourceListing` with the same checks and findings as a directory holding those files.

Opening reads each file's header (two reads per file, 8 files at once). Data passes read one
tensor per read, up to `threads` (default 8) at once, in batches holding at most 256 MiB of
tensor bytes in memory (a larger tensor alone). Ctrl-C stops further reads at once and the call
raises KeyboardInterrupt when the reads in flight return: a read that never returns cannot be
interrupted, so readers doing I/O should have timeouts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: `read(offset, length)` returns exactly `length` bytes of the file from `offset`, or raises.
#: Called concurrently from worker threads (up to `threads` at once, GIL not held by the caller).
#:
#: - The answer may be any bytes-like object (`bytes`, `bytearray`, `memoryview`, `array.array`,
#:   a C-contiguous numpy array): its raw bytes are copied at once, whatever its item type. Any
#:   other answer (`None`, `str`, a list, a strided view) or a wrong length is a failed read.
#: - A raised `Exception` is a failed read: its type and text go into the finding (IX001 at open)
#:   or the `TensorUnreadableError` naming file, tensor and byte offset.
#: - `KeyboardInterrupt`, `SystemExit` (anything not an `Exception`) and `MemoryError` are not
#:   failed reads: the first one stops every further read of the checkpoint and the call that
#:   started the reads (the open, `stats()`, `tensor()`, a diff) raises it.
#: - `read` may use the checkpoint itself (e.g. `ckpt.tensor(...)`) from inside.
RangeReader = Callable[[int, int], Any]

#: The largest size a file may state: offsets are unsigned 64-bit.
MAX_SIZE = 2**64 - 1


@dataclass(frozen=True)
class SourceFile:
    """One file of a listing: its name relative to the root, its size and its reader."""

    name: str
    size: int
    read: RangeReader

    def __post_init__(self) -> None:
        if not isinstance(self.size, int) or isinstance(self.size, bool):
            raise TypeError(f"{self.name}: size must be an int, got {type(self.size).__name__}")
        if not 0 <= self.size <= MAX_SIZE:
            raise ValueError(f"{self.name}: size must be in 0..2**64-1, got {self.size}")
        if not callable(self.read):
            raise TypeError(f"{self.name}: read must be callable")


@dataclass(frozen=True)
class SourceListing:
    """The files of a checkpoint that lives elsewhere.

    `path` is what the user gave (`Checkpoint.path`); `root` is shown as the directory, so a file's
    path in findings is `f"{root}/{name}"`. `files` holds every `.safetensors` file the listing has;
    `index` and `config` are `(name, text)` of `model.safetensors.index.json` and `config.json`."""

    path: str
    root: str
    files: list[SourceFile]
    index: tuple[str, str] | None = None
    config: tuple[str, str] | None = None
