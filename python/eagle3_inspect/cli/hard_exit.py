"""Leaving the process as soon as a report is printed. A report of a million tensors is several
million Python objects; freeing them one by one as the command returns and the interpreter
shuts down cost 1.6-1.9 s of a 9 s `validate` at 1M tensors, while the OS frees the whole heap
at once (mypy's `hard_exit` does the same). Only the program itself does this (`run`, the
console entry and `python -m eagle3_inspect`): never the API, nor a test calling `main`
in-process."""

from __future__ import annotations

import contextlib
import os
import sys

# Set by `run`; a Ray driver is left to shut down its connection the normal way.
enabled = False


def finish(code: int) -> int:
    """`code`, or, when enabled, the process ends here with it (output flushed first)."""
    if not enabled or "ray" in sys.modules:
        return code
    for stream in (sys.stdout, sys.stderr):
        # A closed pipe: nothing more can be written anyway.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
