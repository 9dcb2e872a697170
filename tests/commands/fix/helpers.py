"""Shared pieces of the fix tests: the mislabelled source drafter, file digests (SRC untouched)
and loading with the reference `safetensors` package."""

from __future__ import annotations

import hashlib
from pathlib import Path

from safetensors import deserialize

from eagle3_inspect.synthetic.drafters import (
    build_drafter,
    mutate_d2t_absolute,
    mutate_layer_keys,
)

ENGINE = "sglang@0.5.11"


def mislabelled(root: Path, shards: int | None = None) -> Path:
    """`root/src`: a drafter with `layers.0.*` keys and an absolute d2t (what fix repairs for
    ENGINE), in one file or `shards` shards with an index."""
    drafter = mutate_d2t_absolute(mutate_layer_keys(build_drafter(H=64, Vd=256, Vt=1024), "layers"))
    return drafter.write(root / "src", shards=shards)


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
