"""Building a Hugging Face cache repository for tests: content in `blobs/<sha256>`, each file of
`snapshots/<rev>/` a relative link to its blob, and `refs/main` naming the revision."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path


def hf_cache_repo(
    root: Path, files: dict[str, Path], name: str = "models--org--drafter", rev: str = "abc123"
) -> Path:
    """`root/name` holding a copy of each `files` value under its key; returns the repository."""
    repo = root / name
    blobs, snap = repo / "blobs", repo / "snapshots" / rev
    blobs.mkdir(parents=True)
    snap.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(rev)
    for file_name, source in sorted(files.items()):
        blob = hashlib.sha256(source.read_bytes()).hexdigest()
        shutil.copyfile(source, blobs / blob)
        os.symlink(f"../../blobs/{blob}", snap / file_name)
    return repo
