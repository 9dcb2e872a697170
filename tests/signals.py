"""SIGINT for the Ctrl-C tests, whatever the suite was started from: a background job (`nohup
... &`, some CI runners) starts with SIGINT ignored, Python then installs no handler, and a test
that interrupts would test nothing. A test that sends SIGINT to itself uses the `sigint_handler`
fixture (conftest.py); a child process it signals starts with `INSTALL_SIGINT_HANDLER`."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

# The first line of a child script that a test interrupts with SIGINT.
INSTALL_SIGINT_HANDLER = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"


@contextmanager
def python_sigint_handler() -> Iterator[None]:
    """Python's own SIGINT handler (KeyboardInterrupt) for the block; the previous one after."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
