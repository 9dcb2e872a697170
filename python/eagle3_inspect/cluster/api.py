"""The entry points the commands use: a session from `ray=` (an address or an open session) and
a checkpoint opened on it."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from eagle3_inspect.cluster.checkpoint import ClusterCheckpoint, open_on_cluster
from eagle3_inspect.cluster.pathmap import parse_path_map
from eagle3_inspect.cluster.session import ClusterSession

RayOption = str | ClusterSession
PathMap = Mapping[str, str] | Iterable[str] | None


def connect(ray: RayOption, path_map: PathMap = None) -> ClusterSession:
    """`ray` itself when it is a session, else a session on the cluster at address `ray` ("auto":
    the running cluster). `path_map` is `{NODE: ROOT}` or `["NODE=ROOT", ...]`."""
    if isinstance(ray, ClusterSession):
        return ray
    if path_map is None:
        mapping: dict[str, str] = {}
    elif isinstance(path_map, Mapping):
        mapping = dict(path_map)
    else:
        mapping = parse_path_map(path_map)
    return ClusterSession(ray, mapping)


def open_checkpoint(
    path: str | os.PathLike[str], ray: RayOption, path_map: PathMap = None
) -> ClusterCheckpoint:
    """Opens `path` from the nodes of the cluster `ray` that hold its files."""
    return open_on_cluster(path, connect(ray, path_map))
