"""`open`: the one entry from a PATH the user gave to a `Checkpoint`, local or remote. Local paths
(file, sharded directory, HF cache snapshot) are memory-mapped; `hf://ORG/NAME[@REV][/SUB]` and
`http(s)://` URLs go through the remote resolver and are read by range requests."""

from __future__ import annotations

import os

from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.remote import is_remote


def open_checkpoint(path: str | os.PathLike[str] | Checkpoint) -> Checkpoint:
    """`path` opened (headers and config only); an open Checkpoint is returned as is."""
    if isinstance(path, Checkpoint):
        return path
    if is_remote(path):
        from eagle3_inspect.reader.remote import open_remote

        return open_remote(str(path))
    return Checkpoint(path)


def open(path: str | os.PathLike[str]) -> Checkpoint:
    """Opens the checkpoint at `path`: a local file or directory, an `hf://` model or an
    `http(s)://` URL of a safetensors file or index (reads headers and config only)."""
    return open_checkpoint(path)
