"""TEMPORARY stand-in for the seam's reader/source.py (h/seam): the two dataclasses of seam.md,
so h/remote's resolver can be written before the seam lands. Replaced by main's on merge."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class SourceFile:
    """One file of a checkpoint that is not a local memory map."""

    name: str
    size: int
    read: Callable[[int, int], bytes]


@dataclass(frozen=True)
class SourceListing:
    """A checkpoint's files as sources, plus its index and config texts."""

    path: str
    root: str
    files: list[SourceFile]
    index: tuple[str, str] | None
    config: tuple[str, str] | None
