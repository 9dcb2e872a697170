"""`scan` of many checkpoints: JSON Lines on stdout (or appended to `--resume OUT.jsonl`), one
scan report per checkpoint as each finishes, then the summary line."""

from __future__ import annotations

import sys
from typing import Any

import click

from eagle3_inspect.cli.options import Many
from eagle3_inspect.jsontext import encode_record


def is_audit(paths: tuple[str, ...], from_file: str | None, resume: str | None) -> bool:
    """Many checkpoints: several paths, a glob, a list file or a resume file."""
    from eagle3_inspect.commands.audit import GLOB_CHARS

    return (
        len(paths) != 1
        or from_file is not None
        or resume is not None
        or bool(GLOB_CHARS & set(paths[0]))
    )


def run_audit(
    paths: tuple[str, ...],
    fmt: str,
    many: Many,
    html_file: str | None,
    fail_on: str = "error",
    **options: Any,
) -> int:
    """Scans every checkpoint; exit 0 when all are clean, 1 when any failed or has a finding at
    or above `fail_on` (error or warning)."""
    from eagle3_inspect.commands.audit import audit, expand
    from eagle3_inspect.commands.resume import ResumeFile

    if fmt != "jsonl":
        raise click.UsageError("several checkpoints are written as JSON Lines: use --format jsonl")
    if html_file is not None:
        raise click.UsageError("--html takes one checkpoint; several are written as JSON Lines")
    resume = many.resume
    todo = expand(paths, many.from_file)
    if not todo:
        raise click.UsageError("no checkpoint to scan: give PATH... or --from-file LIST")
    # Checked (a regular file holding only this tool's records) before a byte is written.
    out = ResumeFile(resume) if resume is not None else None
    skip = out.done if out is not None else set()
    try:
        failing = ("errors",) if fail_on == "error" else ("errors", "warnings")
        flagged = False

        def emit(record: dict[str, Any]) -> None:
            nonlocal flagged
            counts = record.get("summary")
            if isinstance(counts, dict) and any(counts.get(k) for k in failing):
                flagged = True
            line = encode_record(record) + "\n"
            if out is None:
                sys.stdout.write(line)
                sys.stdout.flush()
            else:
                out.write(line)

        summary = audit(todo, emit, skip=skip, **options)
    finally:
        if out is not None:
            out.close()
    return 0 if not flagged and summary["with_errors"] == 0 and summary["failed"] == 0 else 1
