"""Untrusted input, bounded. Every JSON document read from a file or a server (config.json, an
index, the Hub's model-info answer) is parsed by `parse_json` / `parse_object`: under a size cap,
refused before parsing when it nests deeper than `MAX_DEPTH` (measured natively, so no recursive
parser or walker of the result ever meets 100,000 levels), with a one-line error naming where it
came from. `read_regular` reads a small file the same careful way as the native reader (regular
files only, never a blocking open, at most `cap` bytes); `is_complete_json` validates a text
without building it. What of such input is echoed back is capped by `echo.clip`."""

from __future__ import annotations

import json
import os
import stat
from typing import Any

from eagle3_inspect import _native
from eagle3_inspect.echo import clip, kind_of
from eagle3_inspect.errors import InspectError

MAX_DEPTH: int = _native.MAX_JSON_DEPTH


class UntrustedInputError(InspectError, ValueError):
    """A document or file that cannot be used: too large, nested too deeply, not JSON, not the
    expected type. The message is one line naming where it came from."""


def parse_json(data: str | bytes, where: str, max_bytes: int) -> Any:
    """The JSON value in `data` (from `where`, named in every error): refused, with
    UntrustedInputError, above `max_bytes` bytes, nested deeper than MAX_DEPTH, or not JSON."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if len(raw) > max_bytes:
        raise UntrustedInputError(f"{where}: {len(raw)} bytes, above the {max_bytes}-byte limit")
    depth = _native.json_nesting(raw)
    if depth > MAX_DEPTH:
        raise UntrustedInputError(
            f"{where}: nests {depth} levels deep, more than the {MAX_DEPTH} accepted"
        )
    try:
        return json.loads(data)
    except UnicodeDecodeError as exc:
        raise UntrustedInputError(f"{where}: not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise UntrustedInputError(f"{where}: not valid JSON {_position(exc)}") from None
    except ValueError as exc:
        raise UntrustedInputError(f"{where}: not valid JSON: {clip(str(exc), 200)}") from None
    except RecursionError:  # not reached below MAX_DEPTH, unless called from a deep stack
        raise UntrustedInputError(f"{where}: nested too deeply to parse") from None


def _position(exc: json.JSONDecodeError) -> str:
    """`at line L column C (byte B): what` for a syntax error (B counts UTF-8 bytes, what an
    editor's or `dd`'s offset is; json's own `char` counts code points)."""
    byte = len(exc.doc[: exc.pos].encode("utf-8", "surrogatepass"))
    return f"at line {exc.lineno} column {exc.colno} (byte {byte}): {clip(exc.msg, 200)}"


def parse_object(data: str | bytes, where: str, max_bytes: int) -> dict[str, Any]:
    """`parse_json`, and the value must be a JSON object."""
    value = parse_json(data, where, max_bytes)
    if not isinstance(value, dict):
        raise UntrustedInputError(f"{where}: {kind_of(value)}, not a JSON object")
    return value


def read_regular(path: str | os.PathLike[str], cap: int) -> bytes:
    """The bytes of the small regular file `path`: a FIFO, device or socket is refused before
    any byte is read (the open never blocks), a file larger than `cap` bytes is refused."""
    shown = os.fsdecode(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UntrustedInputError(f"{shown}: not a regular file; refusing to read it")
        chunks, size = [], 0
        while size <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > cap:
        raise UntrustedInputError(f"{shown}: larger than the {cap}-byte limit for this file")
    return b"".join(chunks)


def is_complete_json(data: bytes) -> bool:
    """True when `data` is UTF-8 and exactly one JSON value nesting at most MAX_DEPTH levels
    (validated natively, nothing built: a line of hundreds of MB costs no objects)."""
    return _native.json_complete(data)


def resolves_inside(path: str | os.PathLike[str], boundary: str) -> bool:
    """The containment rule every file of a local checkpoint is held to (the native reader's
    own): `path`, links followed, lies inside the canonical directory `boundary` (a path that
    cannot be resolved counts as inside; opening it then fails on its own)."""
    return _native.resolves_inside(os.fspath(path), boundary)
