"""Judges one case: the reference `safetensors` package's verdict against our reader's findings.

Rules: reference rejects => at least one ST error from us; reference accepts => no ST error except
the documented extra strictness (EXTRA_STRICTNESS); never a panic, never an exception other than
our own InspectError for a directory with nothing to inspect, never a finding without a file (and,
for ST, a byte offset).
"""

from __future__ import annotations

import json
from pathlib import Path

import safetensors

from eagle3_inspect import _native

# Where we are stricter than the reference on purpose; each code here is an error we report on
# files the reference loads. Keep in step with the README's "Robustness" table.
# With ST007 the reference sees only the last entry of each repeated name, so any other finding
# that comes with it (the dropped entry's range overlapping or leaving a gap) is part of that case.
EXTRA_STRICTNESS = {
    "ST007": "a tensor name repeated in the header: the format forbids it, serde keeps the last",
}


def documented_extra(codes: set[str]) -> bool:
    """True when every ST error on a file the reference loads is documented extra strictness."""
    return bool(codes & EXTRA_STRICTNESS.keys()) or not codes


# Outcome categories, in the order the report prints them.
OK = "agree"
MISSED = "reference rejects, no ST error"
STRICTER = "reference accepts, undocumented ST error"
PANIC = "panic"
RAISED = "exception instead of a finding"
UNLOCATED = "finding without file or offset"
CATEGORIES = (OK, MISSED, STRICTER, PANIC, RAISED, UNLOCATED)


def reference_accepts(path: Path) -> bool:
    """safe_open validates the whole header (read_metadata + validate); then touch every tensor."""
    try:
        with safetensors.safe_open(str(path), framework="numpy") as f:
            for name in f.keys():  # noqa: SIM118 (safe_open is not iterable)
                sl = f.get_slice(name)
                sl.get_shape()
                sl.get_dtype()
        return True
    except Exception:
        return False


def our_findings(path: Path) -> tuple[list[dict] | None, str | None]:
    """Our findings, or None and the category when opening went wrong."""
    try:
        return _native.NativeCheckpoint(str(path)).findings, None
    except _native.InspectError:
        return None, RAISED
    except BaseException as exc:  # PyO3 PanicException derives from BaseException
        if type(exc).__name__ == "PanicException":
            return None, PANIC
        raise


def unlocated(findings: list[dict]) -> bool:
    return any(
        not f.get("file") or (f["code"].startswith("ST") and f.get("offset") is None)
        for f in findings
    )


def st_errors(findings: list[dict]) -> set[str]:
    return {f["code"] for f in findings if f["code"].startswith("ST") and f["severity"] == "error"}


def judge_file(path: Path) -> tuple[str, bool, tuple[str, ...]]:
    """(category, reference verdict, our ST error codes) for one .safetensors file."""
    accepts = reference_accepts(path)
    findings, failure = our_findings(path)
    if findings is None:
        return failure or RAISED, accepts, ()
    codes = st_errors(findings)
    if unlocated(findings):
        return UNLOCATED, accepts, tuple(sorted(codes))
    if not accepts and not codes:
        return MISSED, accepts, ()
    if accepts and not documented_extra(codes):
        return STRICTER, accepts, tuple(sorted(codes))
    return OK, accepts, tuple(sorted(codes))


def judge_index(index_path: Path) -> tuple[str, bool, tuple[str, ...]]:
    """An index next to valid shards: the reference here is Python's json (no safetensors reader
    reads indexes). Index JSON that does not parse must get an IX error or a clean InspectError;
    otherwise only the no-panic/no-raise-but-ours/located rules apply."""
    try:
        json.loads(index_path.read_bytes())
        parses = True
    except ValueError:
        parses = False
    findings, failure = our_findings(index_path.parent)
    if findings is None:
        # "nothing to inspect" for a directory is exit 2 by design, not a crash.
        return (OK if failure == RAISED else failure or RAISED), parses, ("raised",)
    codes = {f["code"] for f in findings if f["severity"] == "error"}
    if unlocated([f for f in findings if f["code"].startswith("IX")]):
        return UNLOCATED, parses, tuple(sorted(codes))
    if not parses and not any(c.startswith("IX") for c in codes):
        return MISSED, parses, tuple(sorted(codes))
    return OK, parses, tuple(sorted(codes))
