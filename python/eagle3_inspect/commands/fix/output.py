"""Writing a planned `fix`: shard by shard into a temp directory beside DST (same file names, so
the shard layout is kept; a torch file as its safetensors twin: `output_name`), a fresh index,
the rewritten config.json, side files copied byte for byte; every file and the directory
fsynced. A failure or an interrupt removes the directory (a kill leaves it, and the next run
removes it: see `destination`)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from eagle3_inspect.commands.fix.destination import TMP_TAG, discard, hf_repo
from eagle3_inspect.commands.fix.plan import Plan
from eagle3_inspect.errors import InvalidCheckpointError
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.writer import owned_tensor, sync_dir, write_safetensors

INDEX = "model.safetensors.index.json"


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def output_name(source: str) -> str:
    """The safetensors file written for the source file named `source` (a torch file's name as
    transformers names its safetensors twin: `pytorch_model-00001-of-00002.bin` ->
    `model-00001-of-00002.safetensors`)."""
    if source.endswith(".safetensors"):
        return source
    stem = source.rsplit(".", 1)[0] if "." in source else source
    if stem.startswith("pytorch_model"):
        stem = "model" + stem.removeprefix("pytorch_model")
    return stem + ".safetensors"


def _shards(src: Checkpoint, plan: Plan) -> dict[str, list[tuple[str, str, str]]]:
    files: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for old, new in sorted(plan.names.items()):
        info = src.tensors[old]
        if old == "d2t" and plan.d2t is not None:
            continue
        files[output_name(Path(info.file).name)].append((new, info.file, old))
    return files


def _owned(src: Checkpoint, plan: Plan) -> tuple[str | None, list[Any]]:
    owned = []
    if plan.d2t is not None:
        dtype = {"I32": np.int32}.get(src.tensors["d2t"].dtype, np.int64)
        owned.append(owned_tensor(plan.names["d2t"], plan.d2t.astype(dtype)))
    if plan.t2d is not None:
        owned.append(owned_tensor("t2d", plan.t2d))
    home = src.tensors["d2t"].file if "d2t" in src.tensors else None
    return (output_name(Path(home).name) if home else None), owned


def _write_shards(src: Checkpoint, plan: Plan, tmp: Path) -> dict[str, str]:
    """Writes every shard into `tmp`; returns the weight map (DST name -> file name)."""
    files = _shards(src, plan)
    home, owned = _owned(src, plan)
    if owned:
        home = home or (sorted(files)[0] if files else "model.safetensors")
        files.setdefault(home, [])
    metadata = {output_name(Path(f.path).name): f.metadata for f in src.files}
    weight_map: dict[str, str] = {}
    for name, copied in sorted(files.items()):
        extra = owned if name == home else []
        write_safetensors(tmp / name, copied, extra, metadata.get(name))
        weight_map |= {c[0]: name for c in copied} | {o[0]: name for o in extra}
    return weight_map


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    _fsync_file(path)


def _write_index(src: Checkpoint, tmp: Path, weight_map: dict[str, str]) -> None:
    total = sum(os.path.getsize(tmp / f) for f in set(weight_map.values()))
    index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    if src.index_path:
        try:
            old = json.loads(Path(src.index_path).read_text(encoding="utf-8"))
            index["metadata"] = {**(old.get("metadata") or {}), **index["metadata"]}
        except (OSError, ValueError, AttributeError):
            pass
    _write_json(tmp / INDEX, index)


def _copy_synced(source: str, dest: str) -> str:
    shutil.copy2(source, dest)
    _fsync_file(Path(dest))
    return dest


def _outside(entry: Path, repo: Path) -> Path | None:
    """The first path at or under `entry` whose real location is outside `repo`: a Hugging Face
    snapshot's links must stay in their repository (the reader's IX010 rule); nothing outside
    is read."""
    paths = [entry]
    if entry.is_dir() and not entry.is_symlink():
        for top, dirs, files in os.walk(entry):
            paths += [Path(top, name) for name in sorted(dirs) + sorted(files)]
    return next((p for p in paths if repo not in p.resolve().parents), None)


def _copy_side_files(src: Checkpoint, tmp: Path, written: set[str]) -> list[str]:
    root = Path(src.root)
    # A lone .safetensors file's directory may hold anything; an index's is the checkpoint.
    if not root.is_dir() or (Path(src.path).is_file() and src.index_path is None):
        return []
    repo = hf_repo(root.resolve())
    skip = written | {INDEX, "config.json"} | {Path(f.path).name for f in src.files}
    if src.index_path:
        skip.add(Path(src.index_path).name)
    copied = []
    for entry in sorted(root.iterdir()):
        if entry.name in skip or entry.name.startswith("."):
            continue
        escaped = _outside(entry, repo) if repo is not None else None
        if escaped is not None:
            raise InvalidCheckpointError(
                f"{escaped}: links outside the Hugging Face repository {repo} (IX010); "
                "fix copies nothing from outside it"
            )
        if entry.is_file():
            _copy_synced(str(entry), str(tmp / entry.name))
        elif entry.is_dir():
            shutil.copytree(entry, tmp / entry.name, copy_function=_copy_synced)
        else:
            continue
        copied.append(entry.name)
    return copied


def stage(src: Checkpoint, plan: Plan, dst: Path) -> tuple[Path, list[str]]:
    """Writes the fixed drafter into a fresh temp directory beside `dst` (every file fsynced);
    returns it and the side files copied. On failure nothing is left behind."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{dst.name}{TMP_TAG}", dir=dst.parent))
    try:
        weight_map = _write_shards(src, plan, tmp)
        if src.index_path or len(set(weight_map.values())) > 1:
            _write_index(src, tmp, weight_map)
        if plan.config is not None:
            if any(plan.config_changes.values()) or not src.config_path:
                _write_json(tmp / "config.json", plan.config)
            else:
                shutil.copy2(src.config_path, tmp / "config.json")
                _fsync_file(tmp / "config.json")
        side = _copy_side_files(src, tmp, set(weight_map.values()))
        sync_dir(tmp)
    except BaseException:
        discard(tmp)
        raise
    return tmp, side
