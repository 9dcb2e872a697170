"""One rule for a reader that stops reading (`| head`): quiet, and the exit code of what was
being printed. `rules | head -1` used to print "error: [Errno 32] Broken pipe" and exit 2,
`scan --format full | head -1` exit 1, `rules --format full | head -1` exit 0: now each exits
with its report's own code (0 clean, 1 findings) and says nothing."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import NoReturn


def quiet_exit(code: int) -> NoReturn:
    """Ends the process with `code` after stdout's reader has gone. stdout is pointed at
    /dev/null first, so the interpreter's last flush does not raise again (as Python's
    documentation on SIGPIPE advises)."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    sys.exit(code)


@contextlib.contextmanager
def printing(code: int) -> Iterator[None]:
    """Prints the block's output as a report whose exit code is `code`: a closed pipe ends the
    process quietly with it."""
    try:
        yield
    except BrokenPipeError:
        quiet_exit(code)
