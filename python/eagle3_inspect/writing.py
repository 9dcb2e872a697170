"""Files a command writes besides its outputs on stdout (`--html FILE`; `--resume` has its own
checks in `commands/resume.py`, `fix` its DST checks): only the file it was asked to write, and
only when what is there is of the format about to be written. Checked before any work and before
the first byte (a new file, or an HTML report from an earlier run; never a checkpoint's weights
given by a slip of the arguments, a directory, a FIFO or a device), then written whole to a
temporary file beside it and renamed into place, with the mode a new file gets under the umask."""

from __future__ import annotations

import os
import re
import stat
import tempfile

from eagle3_inspect.errors import InvalidArgumentError

# What an HTML report (this tool's or another's) starts with, after whitespace or a BOM.
HTML_START = re.compile(rb"^(?:\xef\xbb\xbf)?\s*(?:<!doctype\s+html|<html)", re.IGNORECASE)
SNIFF_BYTES = 512


def check_html_target(path: str, option: str = "--html") -> None:
    """Refuses `path` unless it is absent (its directory existing) or a regular file that is
    empty or an HTML document: InvalidArgumentError naming the option and the path."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise InvalidArgumentError(f"{option} {path}: no such directory {parent}") from None
        return
    except OSError as exc:
        raise InvalidArgumentError(f"{option} {path}: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InvalidArgumentError(f"{option} {path}: not a regular file; refusing to write it")
        head = os.read(fd, SNIFF_BYTES)
    finally:
        os.close(fd)
    if head and not HTML_START.match(head):
        raise InvalidArgumentError(
            f"{option} {path}: exists and is not an HTML report; refusing to overwrite it"
        )


def write_replacing(path: str, text: str) -> None:
    """Writes `text` to `path` atomically: a temporary file beside it, fsynced, renamed over it,
    with the permissions a file created under the current umask has."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", dir=directory)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
