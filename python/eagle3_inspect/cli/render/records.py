"""Line records: one finding, diff change or rule flattened into what the line formats
(`concise`, `github`, `jsonl`) print. No rich here: these formats must start fast."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from eagle3_inspect.findings import Finding


@dataclass(frozen=True)
class Record:
    """One line of output. `path` is the file it is about, `subject` the tensor or config key
    (None when the finding is about the whole file), `code` a finding code or a diff change kind,
    `severity` error / warning / info, `data` the JSON object of the jsonl line."""

    path: str
    subject: str | None
    code: str
    severity: str
    message: str
    hint: str | None
    data: dict[str, Any]


def display_path(path: str) -> str:
    """`path` relative to the working directory when it lies inside it (what CI annotations and
    editors resolve), otherwise as given; remote paths (`hf://`, `https://`) as given."""
    if "://" in path:
        return path
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return path if rel == ".." or rel.startswith(".." + os.sep) else rel


def finding_record(f: Finding, default_path: str) -> Record:
    subject = f.tensor if f.tensor else (f"config:{f.config_key}" if f.config_key else None)
    message = f.message
    if f.engine and f.engine not in message:
        message = f"({f.engine}) {message}"
    if f.offset is not None:
        message = f"{message} [at byte {f.offset}]"
    path = f.file or default_path
    data = {"schema": "eagle3-inspect/finding/1", "path": path, **f.to_dict()}
    return Record(
        path=display_path(path),
        subject=subject,
        code=f.code,
        severity=f.severity.value,
        message=message,
        hint=f.hint,
        data=data,
    )


def finding_records(findings: list[Finding], default_path: str) -> list[Record]:
    return [finding_record(f, default_path) for f in findings]
