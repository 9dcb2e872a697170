"""A rich progress bar on stderr for long passes over tensor data (only on a terminal)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from eagle3_inspect.cli.render.common import stderr_console
from eagle3_inspect.reader.stats import ProgressCallback


@contextlib.contextmanager
def progress_bar(label: str, enabled: bool = True) -> Iterator[ProgressCallback | None]:
    """Yields a `progress(done, total)` callback drawing a bar, or None when stderr is not a
    terminal or `enabled` is false (e.g. with --json)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(binary_units=True),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=stderr_console(), transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update
