"""The `--resume OUT.jsonl` file of a many-checkpoint scan: checked, read and appended to.

Only a file this tool could have written is ever appended to. Before the first byte is written,
on the descriptor that will be written (no path swapped in between): it must be a regular file
(a FIFO, `/dev/zero` or a socket is refused without blocking or reading), and every line must be
one of this tool's JSON Lines records, or the start of one (a run killed while writing leaves a
torn line; it is ignored, even when it ends inside a multibyte character). Anything else, a
binary file or a checkpoint given by mistake (`--resume ck/model.safetensors`), is refused with
one line naming the file and the line. Lines are read one at a time, each at most `LINE_CAP`
bytes, validated natively without building them, and only their `schema` and `path` decoded."""

from __future__ import annotations

import io
import json
import os
import stat
from typing import Any

from eagle3_inspect.echo import kind_of
from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.reader.untrusted import is_complete_json, parse_object

# Every record the tool writes starts so (`encode_record`: schema first, then path).
PREFIX = b'{"schema": "eagle3-inspect/'
PATH_KEY = ', "path": '
# The longest line read: a million-tensor scan report with statistics is a few hundred MB.
LINE_CAP = 1 << 30
SUMMARY_SCHEMA = "eagle3-inspect/audit-summary/1"


class ResumeFile:
    """OUT.jsonl opened (created if missing) for appending, after the checks; `done` holds the
    paths it already has a report (or an error record) for. With `append=False` it is only read
    (a missing file is then empty, and nothing is created or written)."""

    def __init__(self, path: str, append: bool = True) -> None:
        self.path = path
        self.done: set[str] = set()
        self._newline = b""  # written before the first record when the last line is torn
        flags = os.O_NONBLOCK | os.O_CLOEXEC
        flags |= os.O_RDWR | os.O_APPEND | os.O_CREAT if append else os.O_RDONLY
        try:
            self._fd = os.open(path, flags, 0o666)
        except FileNotFoundError:
            if append:
                raise
            self._fd = -1
            return
        try:
            mode = os.fstat(self._fd).st_mode
            if not stat.S_ISREG(mode):
                raise InvalidArgumentError(
                    f"--resume {path}: not a regular file; refusing to read or append to it"
                )
            if not self._read():
                self._newline = b"\n"  # a line torn by an interrupted run stays on its own
        except BaseException:
            os.close(self._fd)
            raise

    def _read(self) -> bool:
        """Reads every line into `done`; True when the file is empty or ends with a newline."""
        last = b"\n"
        with io.open(self._fd, "rb", closefd=False) as lines:  # noqa: UP020 (an fd, not a path)
            for number, line in enumerate(iter(lambda: lines.readline(LINE_CAP + 1), b""), 1):
                if len(line) > LINE_CAP:
                    raise InvalidArgumentError(
                        f"--resume {self.path}: line {number} is longer than {LINE_CAP} bytes; "
                        "not a file this tool wrote"
                    )
                last = line
                self._line(line.rstrip(b"\r\n"), number)
        return last.endswith(b"\n")

    def _line(self, line: bytes, number: int) -> None:
        if not line:
            return
        if not (line.startswith(PREFIX) or PREFIX.startswith(line)):
            raise InvalidArgumentError(
                f"--resume {self.path}: line {number} is not an eagle3-inspect JSON Lines "
                "record; refusing to append to a file of another format"
            )
        if not is_complete_json(line):
            return  # torn by an interrupted run (or not UTF-8): that checkpoint is scanned again
        schema, path = _schema_and_path(line, f"--resume {self.path} line {number}")
        if schema != SUMMARY_SCHEMA and path is not None:
            self.done.add(path)

    def write(self, text: str) -> None:
        """Appends `text` (whole lines) to the file (no buffer: each call is in the file)."""
        data = self._newline + text.encode("utf-8", "surrogatepass")
        self._newline = b""
        while data:
            written = os.write(self._fd, data)
            data = data[written:]

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _schema_and_path(line: bytes, where: str) -> tuple[str, str | None]:
    """`schema` and `path` of a complete record: decoded from its start when the path follows
    the schema (as the tool writes them), else from the whole record (bounded parse). A value
    of the wrong type is an error naming the line."""
    text = line.decode("utf-8", "surrogateescape")
    decoder = json.JSONDecoder()
    schema, end = decoder.raw_decode(text, len('{"schema": '))
    record: dict[str, Any] | None = None
    if text.startswith(PATH_KEY, end):
        path, _ = decoder.raw_decode(text, end + len(PATH_KEY))
    else:
        record = parse_object(line, where, LINE_CAP)
        path = record.get("path")
    if path is not None and not isinstance(path, str):
        raise InvalidArgumentError(
            f"{where}: path is {kind_of(path)}, not a string; not a record this tool wrote"
        )
    return str(schema), path
