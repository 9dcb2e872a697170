"""The fingerprint of one `fix` run: a digest of exactly what it plans to write (every change:
renames, drops, d2t re-encoding, a generated t2d, each config edit with its value), with the
`--target` path written as `<target>` so the digest does not depend on where the repository
lives. The truth run records it beside the engine's verdict on the written copy; the CI test
re-plans every run and requires the same digest, so a verdict is only ever applied to the
output it was computed on. Plain Python: read by both venvs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

TARGET_MARK = "<target>"


def fix_fingerprint(report: dict[str, Any], target: Path | str | None) -> str:
    """sha256 (first 16 hex digits) of the report's planned changes."""
    text = json.dumps(report["changes"], sort_keys=True, default=str)
    if target is not None:
        for form in sorted({str(Path(target).resolve()), str(target)}, key=len, reverse=True):
            text = text.replace(json.dumps(form)[1:-1], TARGET_MARK)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
