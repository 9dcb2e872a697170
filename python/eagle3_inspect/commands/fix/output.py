"""Writing a planned `fix`: shard by shard into a temp directory beside DST (same file names, so
the shard layout is kept; a torch file as its safetensors twin: `output_name`), a fresh index,
the rewritten config.json, side files copied byte for byte; every file and the directory fsynced.
Each shard's tensors are verified as they are written (read back and compared with their source
bytes, statistics taken from the same read: see `reader/writer.py`), which `verify` then uses
instead of reading the data again. What fix writes gets the modes any new file gets under the
user's umask (755 / 644 under umask 022), not the temp directory's private 700 / 600: a serving
process running as another user must be able to load it. A failure or an interrupt removes the
directory (a kill leaves it, and the next run removes it: see `destination`)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np

from eagle3_inspect.commands.fix.destination import TMP_TAG, discard
from eagle3_inspect.commands.fix.plan import Plan
from eagle3_inspect.commands.fix.side_files import Step, copy_planned, fsync_file, plan_copy
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.untrusted import parse_object, read_regular
from eagle3_inspect.writer import WrittenFile, owned_tensor, sync_dir, write_safetensors

INDEX = "model.safetensors.index.json"
INDEX_CAP = 64 << 20  # the reader's cap on an index


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


def _umask() -> int:
    """The process's umask, read without changing it where Linux shows it (`os.umask` can only
    be read by setting it, which races with other threads creating files)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _as_user_creates(tmp: Path, written: set[str]) -> None:
    """Gives `tmp` and the files fix wrote in it (names in `written`) the modes a new directory
    and file get under the umask; copied side files keep their source's mode, as `cp -p` does."""
    mask = _umask()
    os.chmod(tmp, 0o777 & ~mask)
    for name in written:
        os.chmod(tmp / name, 0o666 & ~mask)


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


def _write_shards(
    src: Checkpoint, plan: Plan, tmp: Path, threads: int | None
) -> tuple[dict[str, str], list[WrittenFile]]:
    """Writes every shard into `tmp`; returns the weight map (DST name -> file name) and what
    each write verified."""
    files = _shards(src, plan)
    home, owned = _owned(src, plan)
    if owned:
        home = home or (sorted(files)[0] if files else "model.safetensors")
        files.setdefault(home, [])
    metadata = {output_name(Path(f.path).name): f.metadata for f in src.files}
    weight_map: dict[str, str] = {}
    written = []
    for name, copied in sorted(files.items()):
        extra = owned if name == home else []
        written.append(write_safetensors(tmp / name, copied, extra, metadata.get(name), threads))
        weight_map |= {c[0]: name for c in copied} | {o[0]: name for o in extra}
    return weight_map, written


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    fsync_file(path)


def _write_index(src: Checkpoint, tmp: Path, weight_map: dict[str, str]) -> None:
    total = sum(os.path.getsize(tmp / f) for f in set(weight_map.values()))
    index: dict[str, Any] = {
        "metadata": {"total_size": total},
        "weight_map": dict(sorted(weight_map.items())),
    }
    if src.index_path:
        try:
            old = parse_object(read_regular(src.index_path, INDEX_CAP), src.index_path, INDEX_CAP)
        except (OSError, ValueError):
            old = {}
        metadata = old.get("metadata")
        if isinstance(metadata, dict):
            index["metadata"] = {**metadata, **index["metadata"]}
    _write_json(tmp / INDEX, index)


def side_file_steps(src: Checkpoint, written: Collection[str] = ()) -> list[Step]:
    """What copying SRC's other entries takes, checked whole under the containment rule
    (`side_files.py`): raises for a link leaving SRC before any work (call it early), and
    again, on what is there then, when the copy is made."""
    root = Path(src.root)
    # A lone .safetensors file's directory may hold anything; an index's is the checkpoint.
    if not root.is_dir() or (Path(src.path).is_file() and src.index_path is None):
        return []
    skip = set(written) | {INDEX, "config.json"} | {Path(f.path).name for f in src.files}
    if src.index_path:
        skip.add(Path(src.index_path).name)  # a torch source's pytorch_model.bin.index.json
    names = sorted(n for n in os.listdir(root) if n not in skip and not n.startswith("."))
    return plan_copy(str(root), names, src.boundary)


def _copy_side_files(src: Checkpoint, tmp: Path, written: set[str]) -> list[str]:
    """Copies every other entry of SRC's folder into `tmp`; returns the names copied."""
    steps = side_file_steps(src, written)
    copy_planned(steps, tmp)
    return sorted({step.relative.split(os.sep, 1)[0] for step in steps})


def stage(
    src: Checkpoint, plan: Plan, dst: Path, threads: int | None = None
) -> tuple[Path, list[str], list[WrittenFile]]:
    """Writes the fixed drafter into a fresh temp directory beside `dst` (every file fsynced);
    returns it, the side files copied and what each shard's write verified. On failure nothing
    is left behind."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{dst.name}{TMP_TAG}", dir=dst.parent))
    try:
        weight_map, written = _write_shards(src, plan, tmp, threads)
        mine = set(weight_map.values())
        if src.index_path or len(set(weight_map.values())) > 1:
            _write_index(src, tmp, weight_map)
            mine.add(INDEX)
        if plan.config is not None:
            mine.add("config.json")
            if any(plan.config_changes.values()) or not src.config_path:
                _write_json(tmp / "config.json", plan.config)
            else:
                shutil.copy2(src.config_path, tmp / "config.json")
                fsync_file(tmp / "config.json")
        side = _copy_side_files(src, tmp, set(weight_map.values()))
        _as_user_creates(tmp, mine)
        sync_dir(tmp)
    except BaseException:
        discard(tmp)
        raise
    return tmp, side, written
