"""The `SourceFile`s of a remote listing: a file read by HTTP range requests, or a file already
in the local HF cache read with `pread` (no network)."""

from __future__ import annotations

import os

from eagle3_inspect.reader.remote.http import Transport
from eagle3_inspect.reader.source import SourceFile


def remote_file(
    name: str, size: int, url: str, transport: Transport, prefix: bytes = b""
) -> SourceFile:
    """`name` at `url`. `prefix`: the file's first bytes if already fetched (the size probe of a
    plain URL), served again without a request."""

    def read(offset: int, length: int) -> bytes:
        if offset + length <= len(prefix):
            return prefix[offset : offset + length]
        return transport.read_range(url, offset, length)

    return SourceFile(name, size, read)


def local_file(name: str, path: str) -> SourceFile:
    """A cached copy on local disk; a short read (the file changed) raises, as a short reply."""
    size = os.stat(path).st_size

    def read(offset: int, length: int) -> bytes:
        fd = os.open(path, os.O_RDONLY)
        try:
            data = os.pread(fd, length, offset)
        finally:
            os.close(fd)
        if len(data) != length:
            raise OSError(f"{path}: short read, {len(data)} of {length} bytes at {offset}")
        return data

    return SourceFile(name, size, read)
