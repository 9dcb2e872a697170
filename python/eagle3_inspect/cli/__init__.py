"""The CLI face: click commands (`main.py`) that parse arguments and render (`render/`), and the
demo (`demo.py`). No behaviour lives here."""

from __future__ import annotations

from eagle3_inspect.cli.main import main

__all__ = ["main"]
