"""The CLI face: click commands (`main.py`) that parse arguments and render (`render/`), and the
demo (`demo.py`). No behaviour lives here."""

from __future__ import annotations

from eagle3_inspect.cli import hard_exit
from eagle3_inspect.cli.main import main

__all__ = ["main", "run"]


def run() -> None:
    """The program's entry point: `main`, leaving the process at once when a report is printed
    (see `hard_exit.py`)."""
    hard_exit.enabled = True
    main()
