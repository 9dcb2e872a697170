"""What one node holds of a checkpoint: runs on the node (inside a Ray task), plain Python.

Resolves the node's view of the path the way the local reader does for a file, a directory or
an index (Hugging Face cache folders are not offered over Ray) and reports every readable
weights file (name, size, identity; which files are weights: `_native.choose_weight_files`, the
local reader's rule), and the index and config texts when it has them. Every file but the one
named is held to the local reader's containment rule: one whose link leads outside the
directory is not read, only named (`escaped`; the driver makes it IX010).
"""

from __future__ import annotations

import os
import stat
from typing import Any

from eagle3_inspect.reader.untrusted import resolves_inside
from eagle3_inspect.reader.weight_files import choose_weight_files, weight_files_for_index

CONFIG_NAME = "config.json"
# A file's first bytes up to the end of its header are sent with the listing when they fit in
# this many bytes: opening the checkpoint then needs no round trip to the node for them.
HEAD_CAP = 1 << 20
# A file this small travels whole with the listing: its data pass then costs no task (a round
# trip to a node costs more than sending a few hundred KB).
WHOLE_CAP = 1 << 20
# The reader's caps: one byte more is read so that the reader still sees "over the limit".
INDEX_CAP = 64 << 20
CONFIG_CAP = 16 << 20


def _regular(path: str) -> os.stat_result | None:
    """The stat of a regular file this process can open for reading, else None."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return None
        with open(path, "rb"):
            pass
        return st
    except OSError:
        return None


class NotText(ValueError):
    """An index or config that is not UTF-8 (a local run cannot open such a checkpoint)."""


def _text(path: str, cap: int) -> str | None:
    if _regular(path) is None:
        return None
    with open(path, "rb") as f:
        data = f.read(cap + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotText(path) from exc


def _head(path: str, size: int, whole_cap: int) -> bytes:
    """The 8-byte length prefix and the header it announces, when they fit in HEAD_CAP (else
    just what there is of the prefix): the reads that opening the file starts with. A file of at
    most `whole_cap` bytes is sent whole."""
    try:
        with open(path, "rb") as f:
            if size <= whole_cap:
                return f.read(size + 1)[:size]
            prefix = f.read(8)
            if len(prefix) < 8:
                return prefix
            end = 8 + int.from_bytes(prefix, "little")
            if end > min(size, HEAD_CAP):
                return prefix
            return prefix + f.read(end - 8)
    except OSError:
        return b""


def _file_entry(root: str, name: str, whole_cap: int) -> dict[str, Any] | None:
    path = os.path.join(root, name)
    st = _regular(path)
    if st is None:
        return None
    return {
        "name": name,
        "size": st.st_size,
        "identity": (st.st_dev, st.st_ino, st.st_mtime_ns),
        "head": _head(path, st.st_size, whole_cap),
    }


def discover(local_path: str, whole_cap: int = WHOLE_CAP) -> dict[str, Any]:
    """The node's holdings under `local_path`: `kind` ("dir", "file", "index", "hf-cache" or
    "none"), the local root, `files`, and `index` / `config` as (name, text) or None; `not_text`
    names an index or config that is not UTF-8."""
    try:
        return _discover(local_path, whole_cap)
    except NotText as exc:
        return {**_empty(local_path), "not_text": os.path.basename(str(exc))}


def _empty(local_path: str) -> dict[str, Any]:
    return {
        "kind": "none",
        "local_root": local_path,
        "files": [],
        "index": None,
        "config": None,
        "escaped": [],
    }


def _discover(local_path: str, whole_cap: int) -> dict[str, Any]:
    result = _empty(local_path)
    base = os.path.basename(local_path.rstrip("/"))
    if os.path.isfile(local_path) and base != CONFIG_NAME:
        root = os.path.dirname(local_path) or "."
        result["local_root"] = root
        if base.endswith(".index.json"):
            result["kind"] = "index"
            names = sorted(os.listdir(root))
            chosen = weight_files_for_index(base, names)
            text = _text(local_path, INDEX_CAP)
            result["index"] = None if text is None else (base, text)
        else:
            result["kind"] = "file"
            chosen = [base]
    else:
        root = os.path.dirname(local_path) if base == CONFIG_NAME else local_path
        if not os.path.isdir(root):
            return result
        if os.path.isdir(os.path.join(root, "snapshots")):
            result["kind"] = "hf-cache"
            return result
        result["kind"] = "dir"
        result["local_root"] = root
        names = sorted(os.listdir(root))
        chosen, index, _ = choose_weight_files(names)
        if index is not None and _inside(root, index, result):
            text = _text(os.path.join(root, index), INDEX_CAP)
            result["index"] = None if text is None else (index, text)
    if result["kind"] != "file":  # the file named is read wherever it leads
        chosen = [n for n in chosen if _inside(root, n, result)]
    result["files"] = [e for n in chosen if (e := _file_entry(root, n, whole_cap)) is not None]
    config = None
    if os.path.lexists(os.path.join(root, CONFIG_NAME)) and _inside(root, CONFIG_NAME, result):
        config = _text(os.path.join(root, CONFIG_NAME), CONFIG_CAP)
    result["config"] = None if config is None else (CONFIG_NAME, config)
    return result


def _inside(root: str, name: str, result: dict[str, Any]) -> bool:
    """The containment rule for `root/name`; a name that fails it is added to `escaped`."""
    if resolves_inside(os.path.join(root, name), os.path.realpath(root)):
        return True
    result["escaped"].append(name)
    return False


def shown_root(path: str, kind: str) -> str:
    """The root a local run shows for `path` (a file's folder, or the directory itself)."""
    base = os.path.basename(path.rstrip("/"))
    if kind in ("file", "index") or base == CONFIG_NAME:
        return os.path.dirname(path) or "."
    return path
