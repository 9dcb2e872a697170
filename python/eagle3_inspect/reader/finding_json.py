"""The `findings` member of a report's JSON: dicts, or for the CLI's streaming writer each
finding's JSON text, written by the native writer a chunk at a time (a report may hold a finding
per tensor of a million-tensor header), byte for byte as `Finding.to_json()` writes it."""

from __future__ import annotations

from typing import Any

from eagle3_inspect import _native
from eagle3_inspect.findings import Finding
from eagle3_inspect.jsontext import EncodedRecords, native_records


def findings_json(
    findings: list[Finding], *, stream: bool
) -> list[dict[str, Any]] | EncodedRecords:
    """The `findings` member: dicts, or with `stream` a one-pass iterator of each finding's JSON
    text (a finding the native writer does not spell is written by its own `to_json()`)."""
    if stream:
        return native_records(findings, _native.findings_json, Finding.to_json)
    return [f.to_dict() for f in findings]
