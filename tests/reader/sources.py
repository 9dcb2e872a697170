"""Listings for the byte-source tests built in memory: files given as bytes, readers that answer
wrongly on purpose, and synthetic files of zeros whose header is built here (no disk for data)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from eagle3_inspect.reader.source import SourceFile, SourceListing
from eagle3_inspect.synthetic.writer import header_bytes

ROOT = "/remote/ckpt"


def listing(files: list[SourceFile], root: str = ROOT) -> SourceListing:
    """A listing of `files` under `root` (also its path), with no index or config."""
    return SourceListing(path=root, root=root, files=files)


def slicer(data: bytes, answer: Callable[[bytes], object] = bytes) -> Callable[[int, int], object]:
    """A reader over `data` (short at its end, like `pread`) whose answer goes through `answer`."""

    def read(offset: int, length: int) -> object:
        return answer(data[offset : offset + length])

    return read


def directory_listing(directory: Path, answer: Callable[[bytes], object] = bytes) -> SourceListing:
    """The `.safetensors` files of a local directory as in-memory files, with its index and
    config, `root` = the directory (so findings name the same paths as the mapped open)."""
    files = []
    for path in sorted(directory.glob("*.safetensors")):
        data = path.read_bytes()
        files.append(SourceFile(path.name, len(data), slicer(data, answer)))
    texts = {}
    for name in ("model.safetensors.index.json", "config.json"):
        if (directory / name).exists():
            texts[name] = (name, (directory / name).read_text())
    return SourceListing(
        path=str(directory),
        root=str(directory),
        files=files,
        index=texts.get("model.safetensors.index.json"),
        config=texts.get("config.json"),
    )


class Zeros:
    """One file of `count` U8 tensors of `nbytes` each, all zeros, built from its header alone.

    Reads below `data_start` answer the header; reads of data answer fresh zeros and are
    counted: `live` reads at once, `peak` the most seen, `calls` in all. `hold` (optional) runs
    inside each data read while it counts as live."""

    def __init__(self, count: int, nbytes: int, hold: Callable[[], None] | None = None) -> None:
        self.names = [f"t{i:05d}" for i in range(count)]
        self.header = header_bytes((n, "U8", (nbytes,), nbytes) for n in self.names)
        self.data_start = len(self.header)
        self.size = self.data_start + count * nbytes
        self.hold = hold
        self.lock = threading.Lock()
        self.live = self.peak = self.calls = 0

    def read(self, offset: int, length: int) -> bytes:
        if offset < self.data_start:
            return self.header[offset : offset + length]
        with self.lock:
            self.live += 1
            self.calls += 1
            self.peak = max(self.peak, self.live)
        try:
            if self.hold is not None:
                self.hold()
            return bytes(length)
        finally:
            with self.lock:
                self.live -= 1

    def listing(self) -> SourceListing:
        return listing([SourceFile("model.safetensors", self.size, self.read)])
