"""Checkpoints that are not on local disk: `hf://ORG/NAME[@REVISION][/SUBFOLDER]` models on the
Hugging Face Hub and `http(s)://` URLs of a safetensors file or index. `resolve` turns such a path
into the seam's `SourceListing` (files read by HTTP range requests, or from the local HF cache);
`open_remote` opens it as a `Checkpoint` and keeps the request and byte counts (`traffic_of`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from eagle3_inspect.reader.remote.location import HubLocation, is_remote, parse
from eagle3_inspect.reader.remote.traffic import Traffic, remote_section

if TYPE_CHECKING:
    from eagle3_inspect.reader.checkpoint import Checkpoint
    from eagle3_inspect.reader.source import SourceListing

TRAFFIC_ATTRIBUTE = "remote_traffic"


def resolve(path: str, traffic: Traffic | None = None) -> SourceListing:
    """The listing of the remote checkpoint at `path`; every request is counted on `traffic`."""
    location = parse(path)
    traffic = traffic if traffic is not None else Traffic(path)
    if isinstance(location, HubLocation):
        from eagle3_inspect.reader.remote.hub import hub_listing

        return hub_listing(location, traffic)
    from eagle3_inspect.reader.remote.url import url_listing

    return url_listing(location, traffic)


def open_remote(path: str) -> Checkpoint:
    """The remote checkpoint at `path`, opened through the seam (headers only)."""
    from eagle3_inspect.reader.checkpoint import Checkpoint

    traffic = Traffic(path)
    ckpt = Checkpoint.from_source(resolve(path, traffic))
    setattr(ckpt, TRAFFIC_ATTRIBUTE, traffic)  # later tensor reads keep adding to it
    return ckpt


def traffic_of(ckpt: object) -> Traffic | None:
    """The request and byte counts of a checkpoint opened by `open_remote` (None: local)."""
    return getattr(ckpt, TRAFFIC_ATTRIBUTE, None)


__all__ = ["Traffic", "is_remote", "open_remote", "remote_section", "resolve", "traffic_of"]
