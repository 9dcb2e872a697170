"""Checkpoints whose files are not local files: each file is a size and a `read(offset, length)`
callable (an HTTP range reader, a task on the node that holds the file). `Checkpoint.from_source`
opens a `SourceListing` with the same checks and findings as a directory holding those files."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: `read(offset, length)` returns exactly `length` bytes of the file from `offset`, or raises (the
#: exception's text goes into the finding or error). Called concurrently from worker threads.
RangeReader = Callable[[int, int], bytes]


@dataclass(frozen=True)
class SourceFile:
    """One file of a listing: its name relative to the root, its size and its reader."""

    name: str
    size: int
    read: RangeReader


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
