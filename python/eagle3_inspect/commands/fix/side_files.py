"""The side files `fix` copies beside the weights (tokenizer, generation config, any folder),
under the reader's containment rule (`reader.untrusted.resolves_inside`: every file must resolve
inside SRC's boundary, its directory or, for a Hugging Face snapshot, its `models--org--name`).

The tree is walked without following links (an explicit stack: no recursion, any depth), and all
of it is checked before the first byte is copied:
- a link that leads outside SRC is refused, the run with it (IX010, one line naming the link);
- a link to a file inside is copied as the file (a snapshot's links into `blobs/`);
- a link to a directory is never entered: it is recreated as a link to the same place in DST
  (`ln -s . SRC/self` stays a link, not an endless copy); one leading inside the boundary but
  outside SRC's folder is refused as leaving it;
- FIFOs, sockets and devices are never opened, and not copied;
- a directory met twice (a loop of bind mounts) is refused."""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from eagle3_inspect.errors import InvalidCheckpointError
from eagle3_inspect.reader.untrusted import resolves_inside
from eagle3_inspect.writer import sync_dir


@dataclass(frozen=True)
class Step:
    """One thing to make in DST: `kind` "file" (copy `source`), "dir", or "link" (to `target`)."""

    kind: str
    relative: str
    source: str = ""
    target: str = ""


def _outside(path: str, boundary: str) -> InvalidCheckpointError:
    return InvalidCheckpointError(
        f"{path}: a link leading outside the checkpoint {boundary} (IX010); fix copies "
        "nothing from outside it"
    )


def plan_copy(root: str, names: list[str], boundary: str) -> list[Step]:
    """What copying `names` (entries of `root`) into DST takes, checked whole: raises
    InvalidCheckpointError for a link leaving SRC or a directory loop, before anything is made."""
    real_root = os.path.realpath(root)
    steps: list[Step] = []
    seen: set[tuple[int, int]] = set()
    stack = [(os.path.join(root, n), n) for n in reversed(names)]
    while stack:
        path, relative = stack.pop()
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            if not resolves_inside(path, boundary):
                raise _outside(path, boundary)
            try:
                target = os.stat(path)
            except OSError as exc:
                raise InvalidCheckpointError(
                    f"{path}: a link to nothing ({exc.strerror})"
                ) from None
            if stat.S_ISREG(target.st_mode):
                steps.append(Step("file", relative, source=path))
            elif stat.S_ISDIR(target.st_mode):
                if not resolves_inside(path, real_root):
                    raise _outside(path, real_root)
                real = os.path.realpath(path)
                where = os.path.realpath(os.path.dirname(path))
                steps.append(Step("link", relative, target=os.path.relpath(real, where)))
        elif stat.S_ISDIR(st.st_mode):
            if (st.st_dev, st.st_ino) in seen:
                raise InvalidCheckpointError(
                    f"{path}: a directory met twice (a loop of mounts); fix copies none twice"
                )
            seen.add((st.st_dev, st.st_ino))
            steps.append(Step("dir", relative))
            children = sorted(os.listdir(path), reverse=True)
            stack.extend((os.path.join(path, c), os.path.join(relative, c)) for c in children)
        elif stat.S_ISREG(st.st_mode):
            steps.append(Step("file", relative, source=path))
    return steps


def fsync_file(path: str | os.PathLike[str]) -> None:
    """Flushes the file at `path` to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def copy_planned(steps: list[Step], dest: Path) -> None:
    """Makes every step under `dest`: files copied byte for byte (mode and times kept) and
    fsynced, directories created (and fsynced once filled), links recreated."""
    made_dirs = []
    for step in steps:
        out = os.path.join(dest, step.relative)
        if step.kind == "dir":
            os.mkdir(out)
            made_dirs.append(out)
        elif step.kind == "link":
            os.symlink(step.target, out)
        else:
            shutil.copy2(step.source, out)
            fsync_file(out)
    for directory in reversed(made_dirs):
        sync_dir(Path(directory))
