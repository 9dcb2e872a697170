"""Shared checks for the fix tests: file digests (SRC untouched) and loading with the reference
`safetensors` package."""

from __future__ import annotations

import hashlib
from pathlib import Path

from safetensors import deserialize


def tree_digest(root: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under `root` (symlinks followed)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def load_all(root: Path) -> dict[str, tuple[str, tuple[int, ...], bytes]]:
    """name -> (dtype, shape, bytes) for every tensor of every shard under `root`, parsed by the
    reference `safetensors` package (which rejects any malformed file)."""
    out: dict[str, tuple[str, tuple[int, ...], bytes]] = {}
    for shard in sorted(root.glob("*.safetensors")):
        for name, tensor in deserialize(shard.read_bytes()):
            assert name not in out, f"{name} is in two shards"
            out[name] = (tensor["dtype"], tuple(tensor["shape"]), bytes(tensor["data"]))
    return out
