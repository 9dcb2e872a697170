"""`ray=` for the commands: open a checkpoint locally or on a Ray cluster, and the report's
`"cluster"` section. `cluster/` (and Ray) is imported only when a cluster is asked for."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.opening import open_checkpoint

if TYPE_CHECKING:
    from eagle3_inspect.cluster.session import ClusterSession
    from eagle3_inspect.reader.target import TargetInfo

RayOption: TypeAlias = "str | ClusterSession"
PathMap = Mapping[str, str] | Iterable[str] | None


def open_any(
    path: str | os.PathLike[str] | Checkpoint, ray: RayOption | None, path_map: PathMap
) -> Checkpoint:
    """`path` itself when it is open, else opened here (a local or remote path, see
    `reader/opening.py`), or on the cluster `ray`."""
    if isinstance(path, Checkpoint):
        return path
    if ray is None:
        if path_map:
            raise ValueError("ray_path_map needs ray=")
        return open_checkpoint(path)
    from eagle3_inspect.cluster.api import open_checkpoint as open_on_cluster

    return open_on_cluster(path, ray, path_map)


def session_for(ray: RayOption | None, path_map: PathMap) -> RayOption | None:
    """One session for several checkpoints (diff's two sides), or None without `ray`."""
    if ray is None:
        return None
    from eagle3_inspect.cluster.api import connect

    return connect(ray, path_map)


def load_target_on_ray(target: str | os.PathLike[str], session: RayOption) -> TargetInfo:
    """`validate --target` on a cluster: the target read where the nodes see it."""
    from eagle3_inspect.cluster.api import connect
    from eagle3_inspect.cluster.target import load_target_on_cluster

    return load_target_on_cluster(target, connect(session))


def cluster_section(ckpt: Checkpoint) -> dict[str, Any] | None:
    """What the cluster did for `ckpt` (None for a local checkpoint)."""
    summary = getattr(ckpt, "cluster_summary", None)
    return None if summary is None else summary()
