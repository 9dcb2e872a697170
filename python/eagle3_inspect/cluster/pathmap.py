"""`--ray-path-map NODE=ROOT`: where a node sees the paths the user gave.

Without an entry a node sees a path as it is (a shared mount, the same layout on every node).
With one, the node sees it under ROOT: a relative path is joined onto ROOT, an absolute path is
prefixed with it (ROOT acts as the node's mount point of the shared namespace). NODE is matched
against the node's `eagle3-inspect-node` label (`ray start --labels eagle3-inspect-node=disk1`),
then its node id, then its IP address.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from eagle3_inspect.errors import InvalidArgumentError

# The node label a path-map entry is matched against first.
NODE_LABEL = "eagle3-inspect-node"


@dataclass(frozen=True)
class NodeInfo:
    """An alive Ray node: its id, IP address and `eagle3-inspect-node` label (when set)."""

    node_id: str
    address: str
    label: str | None

    @property
    def shown(self) -> str:
        """How the node is named in reports: its label, else the first 12 hex digits of its id."""
        return self.label or self.node_id[:12]


def parse_path_map(entries: Iterable[str]) -> dict[str, str]:
    """`["n1=/mnt/n1", ...]` as `{"n1": "/mnt/n1"}`; a malformed or repeated entry is an
    InvalidArgumentError."""
    found: dict[str, str] = {}
    for entry in entries:
        node, sep, root = entry.partition("=")
        if not sep or not node or not root:
            raise InvalidArgumentError(f"--ray-path-map {entry!r}: expected NODE=ROOT")
        if node in found:
            raise InvalidArgumentError(f"--ray-path-map names node {node!r} twice")
        found[node] = root
    return found


def root_for(node: NodeInfo, path_map: Mapping[str, str]) -> str | None:
    """The ROOT the map gives `node`, or None when no entry names it."""
    for key in (node.label, node.node_id, node.address):
        if key is not None and key in path_map:
            return path_map[key]
    return None


def node_path(path: str, root: str | None) -> str:
    """`path` as a node with map root `root` sees it."""
    if root is None:
        return path
    if os.path.isabs(path):
        return root.rstrip("/") + path
    return os.path.join(root, path)


def check_keys(path_map: Mapping[str, str], nodes: Iterable[NodeInfo]) -> None:
    """Every entry must name a node of the cluster: a typo would silently read nothing there."""
    keys = {k for n in nodes for k in (n.label, n.node_id, n.address) if k is not None}
    unknown = sorted(set(path_map) - keys)
    if unknown:
        raise InvalidArgumentError(
            f"--ray-path-map names no node of the cluster: {', '.join(unknown)} (match a node's "
            f"{NODE_LABEL} label, node id or IP address)"
        )
