"""Folding: once an engine refuses a drafter, its other findings for that engine are noise.

The refusal (EN004 not served, else the first EN008 refused config) stays, with the count and
codes of what it absorbed appended to its message; the follow-on EN findings for the same engine
are dropped from the report and not counted. A load-time crash (EN015 fc shape) is not a
refusal: the engine got as far as loading, and the other findings (dropped layers, ...) are the
next failures once it is fixed, so they stay. E3/VM/NUM findings are engine-independent and
never folded.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from eagle3_inspect.echo import clip
from eagle3_inspect.findings import Finding

REFUSALS = ("EN004", "EN008")


def fold_under_refusal(findings: list[Finding]) -> list[Finding]:
    """`findings` for one engine, with everything after a refusal folded into it."""
    head = next(
        (f for code in REFUSALS for f in findings if f.code == code),
        None,
    )
    if head is None:
        return findings
    rest = [f for f in findings if f is not head]
    if not rest:
        return findings
    counts = ", ".join(f"{code} x{n}" for code, n in sorted(Counter(f.code for f in rest).items()))
    note = f" [{len(rest)} follow-on finding(s) for this engine folded here: {counts}]"
    # The note goes on a message already clipped to the echo cap: clip again, keeping its ends.
    return [replace(head, message=clip(head.message + note))]
