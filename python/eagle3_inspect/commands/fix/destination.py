"""DST for one `fix` run: the checks before any work (no overlap with SRC, no existing DST
without --force), the lock that keeps two runs off the same DST, the removal of staging
directories that killed runs left, and the final rename that never replaces a DST it was not
allowed to.

The lock is `flock` on `.<name>.fix-lock` beside DST: held from the last existence check to the
rename, released by the kernel when a run dies, removed by the run that held it. Every staging
directory (`.<name>.fix-tmp-*`) is created, removed and renamed only under that lock, so one
run can never remove or merge with another's. The rename is `renameat2(RENAME_NOREPLACE)`
where the kernel offers it: a DST that appears while the copy is verified is never replaced
(without --force) and never merged into."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.writer import sync_dir

TMP_TAG = ".fix-tmp-"
LOCK_TAG = ".fix-lock"
# renameat2(2): relative to the working directory; fail with EEXIST if the new name exists.
AT_FDCWD, RENAME_NOREPLACE = -100, 1


def _source_dirs(src: Checkpoint) -> set[Path]:
    """Every directory SRC is made of: the path given, its root, the directories the shards,
    index and config really live in, and the boundary every file of it resolves inside (the
    reader's containment rule: for a Hugging Face snapshot, its `models--org--name` repo)."""
    dirs = {Path(src.path).resolve(), Path(src.root).resolve(), Path(src.boundary)}
    files = [f.path for f in src.files] + [p for p in (src.index_path, src.config_path) if p]
    return dirs | {Path(f).resolve().parent for f in files}


def check_destination(src: Checkpoint, dst: Path, force: bool) -> None:
    """Refuses a DST that exists (without `force`), whose directory is missing, or that
    overlaps SRC in either direction."""
    target = dst.resolve()
    for d in sorted(_source_dirs(src)):
        if target == d or d in target.parents or target in d.parents:
            raise InvalidArgumentError(f"{dst} overlaps the source checkpoint {src.path} ({d})")
    if (dst.exists() or dst.is_symlink()) and not force:
        raise FileExistsError(f"{dst} already exists (pass --force to replace it)")
    if not dst.parent.is_dir():
        raise FileNotFoundError(f"{dst.parent}: no such directory")


def _busy(dst: Path) -> BlockingIOError:
    return BlockingIOError(f"{dst}: another fix run is writing it; try again when it has finished")


def _lock_fd(lock: Path, dst: Path) -> int | None:
    """An fd holding the lock on the file now at `lock`, or None when the holder removed it
    between our open and our flock (then the caller opens the new one)."""
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        # The lock file is ours, not the user's: name the DST they gave (`--out /proc/x`).
        raise InvalidArgumentError(
            f"{dst}: cannot write in {dst.parent} ({exc.strerror or exc})"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held = os.fstat(fd)
        now = os.stat(lock)
    except BlockingIOError:
        os.close(fd)
        raise _busy(dst) from None
    except FileNotFoundError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    if (held.st_dev, held.st_ino) != (now.st_dev, now.st_ino):
        os.close(fd)
        return None
    return fd


@contextlib.contextmanager
def claimed(dst: Path) -> Iterator[None]:
    """Holds DST's lock for the block; raises BlockingIOError (one line) when another run
    holds it."""
    lock = dst.parent / f".{dst.name}{LOCK_TAG}"
    for _ in range(8):
        fd = _lock_fd(lock, dst)
        if fd is not None:
            break
    else:  # eight holders finished between our open and flock: the DST is very busy
        raise _busy(dst)
    try:
        yield
    finally:
        # Unlinked while still held: a run waiting on this file sees it gone and retries.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock)
        os.close(fd)


def remove_stale(dst: Path) -> None:
    """Removes staging directories of runs that were killed (call only under `claimed`)."""
    for old in dst.parent.glob(f".{dst.name}{TMP_TAG}*"):
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)


def discard(tmp: Path) -> None:
    shutil.rmtree(tmp, ignore_errors=True)


def _load_renameat2() -> Any:
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not glibc >= 2.28 / not Linux
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


_RENAMEAT2 = _load_renameat2()


def rename_noreplace(old: Path, new: Path) -> None:
    """Renames `old` to `new`, raising FileExistsError if `new` exists: atomically where the
    kernel and filesystem offer RENAME_NOREPLACE, else checked just before a plain rename."""
    if _RENAMEAT2 is not None:
        if _RENAMEAT2(AT_FDCWD, os.fsencode(old), AT_FDCWD, os.fsencode(new), RENAME_NOREPLACE):
            err = ctypes.get_errno()
            if err not in (errno.EINVAL, errno.ENOSYS):  # EINVAL: this filesystem has no flag
                raise OSError(err, os.strerror(err), os.fspath(old), None, os.fspath(new))
        else:
            return
    if os.path.lexists(new):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), os.fspath(new))
    os.rename(old, new)


def commit(tmp: Path, dst: Path, force: bool) -> None:
    """Renames the verified `tmp` to `dst`. With `force` an existing `dst` is moved aside first
    and removed only after the rename succeeded; without it, a `dst` that appeared since the
    check is left as it is and FileExistsError is raised. `tmp` is removed on any failure."""
    trash = None
    try:
        if force and (dst.exists() or dst.is_symlink()):
            trash = dst.parent / f".{dst.name}{TMP_TAG}old-{os.getpid()}"
            os.rename(dst, trash)
        try:
            rename_noreplace(tmp, dst)
        except FileExistsError:
            raise FileExistsError(
                f"{dst} appeared while fix was writing it; it was left as it is and nothing "
                "was written (pass --force to replace it)"
            ) from None
        sync_dir(dst.parent)
    except BaseException:
        discard(tmp)
        if trash is not None and not os.path.lexists(dst):
            os.rename(trash, dst)
        raise
    if trash is not None:
        if trash.is_dir() and not trash.is_symlink():
            shutil.rmtree(trash, ignore_errors=True)
        else:
            trash.unlink()
