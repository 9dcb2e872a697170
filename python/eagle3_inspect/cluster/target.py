"""`validate --target` with `--ray`: the target read where the nodes see it, as a local run reads
it from this machine (its config.json and the headers of the shards holding the embedding and
the head; never a weight). A target that lives only on the storage nodes is then usable."""

from __future__ import annotations

import os

from eagle3_inspect.cluster.checkpoint import open_placed, placement_of
from eagle3_inspect.cluster.discover import CONFIG_NAME, shown_root
from eagle3_inspect.cluster.session import ClusterSession
from eagle3_inspect.errors import InspectError, InvalidArgumentError
from eagle3_inspect.reader.remote import is_remote
from eagle3_inspect.reader.target import (
    TargetInfo,
    config_fields,
    load_target,
    require_target,
    weight_shapes,
)


def load_target_on_cluster(path: str | os.PathLike[str], session: ClusterSession) -> TargetInfo:
    """`load_target` over the cluster's holdings of `path` (a directory, its config.json, an
    index or a shard); `hf://` and `http(s)://` targets are read from this machine as without
    `--ray`."""
    path = os.fspath(path)
    if is_remote(path):
        return load_target(path)
    base = os.path.basename(path.rstrip("/"))
    if base.endswith(".json") and base != CONFIG_NAME and not base.endswith(".index.json"):
        raise InvalidArgumentError(
            f"{path}: with --ray a target's config is read as {CONFIG_NAME}; give its directory"
        )
    placement = placement_of(path, session.discover(path))
    if placement.kind == "none" and placement.config is None:
        nodes = ", ".join(n.shown for n in session.nodes)
        raise FileNotFoundError(f"target not found on any node: {path} (nodes: {nodes})")
    info = TargetInfo(path=path)
    if placement.config is not None:
        where = os.path.join(shown_root(path, placement.kind), placement.config[0])
        config_fields(info, where, placement.config[1])
    if base == CONFIG_NAME or (not placement.files and placement.index is None):
        return require_target(info)  # a config file, or a config-only directory: no headers
    try:
        ckpt = open_placed(path, session, placement)
    except InspectError:  # as locally: a target whose shards cannot be opened adds no shapes
        return require_target(info)
    weight_shapes(info, ckpt)
    return require_target(info)
