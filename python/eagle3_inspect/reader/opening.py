"""`open_checkpoint`: the one way from a PATH the user gave to a `Checkpoint`. Local paths (file,
sharded directory, HF cache snapshot) are memory-mapped; `hf://ORG/NAME[@REV][/SUB]` and
`http(s)://` URLs go through the remote resolver and are read by range requests; with `ray=`
the files are read on the Ray nodes that hold them (`cluster/`, imported only then)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, TypeAlias

from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.remote import is_remote

if TYPE_CHECKING:
    from eagle3_inspect.cluster.session import ClusterSession

# `ray=`: a cluster address ("auto": the running cluster), or a session already connected.
RayOption: TypeAlias = "str | ClusterSession"
# `ray_path_map=`: `{NODE: ROOT}` or `["NODE=ROOT", ...]` (see `cluster/pathmap.py`).
PathMap: TypeAlias = Mapping[str, str] | Iterable[str] | None


def open_checkpoint(
    path: str | os.PathLike[str] | Checkpoint,
    *,
    ray: RayOption | None = None,
    ray_path_map: PathMap = None,
) -> Checkpoint:
    """Opens the checkpoint at `path` (`eagle3_inspect.open`): a local file or directory, an
    `hf://` model or an `http(s)://` URL of a safetensors file or index; reads headers and config
    only. With `ray` (an address, "auto", or a ClusterSession) it is opened from the nodes of
    that cluster that hold its files. An open Checkpoint is returned as it is."""
    if isinstance(path, Checkpoint):
        return path
    if ray is None:
        if ray_path_map:
            raise ValueError("ray_path_map needs ray=")
        if is_remote(path):
            from eagle3_inspect.reader.remote import open_remote

            return open_remote(str(path))
        return Checkpoint(path)
    from eagle3_inspect.cluster.checkpoint import open_on_cluster

    return open_on_cluster(path, connect(ray, ray_path_map))


def connect(ray: RayOption, path_map: PathMap = None) -> ClusterSession:
    """`ray` itself when it is a session, else a session on the cluster at address `ray` ("auto":
    the running cluster): several checkpoints opened on one session share its connection."""
    from eagle3_inspect.cluster.pathmap import parse_path_map
    from eagle3_inspect.cluster.session import ClusterSession

    if isinstance(ray, ClusterSession):
        return ray
    if path_map is None:
        mapping: dict[str, str] = {}
    elif isinstance(path_map, Mapping):
        mapping = dict(path_map)
    else:
        mapping = parse_path_map(path_map)
    return ClusterSession(ray, mapping)
