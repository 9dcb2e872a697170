"""Folding: once an engine refuses a drafter, its other findings for that engine are noise; and
a tensor the engine drops (EN001) paired with the parameter it then leaves at its initial value
(EN002) under the same name in another key dialect (`layers.0.x` / `midlayer.x`) is one rename
problem, said once (`fold_renames`), not twice per tensor.

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
from eagle3_inspect.layout.names import canonical_name

REFUSALS = ("EN004", "EN008")
DROPPED, LEFT_RANDOM = "EN001", "EN002"


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


def _dialect_prefixes(dropped: str, wanted: str) -> tuple[str, str]:
    """The differing heads of two names with common trailing parts: (`layers.0.`, `midlayer.`)."""
    a, b = dropped.split("."), wanted.split(".")
    common = 0
    while common < min(len(a), len(b)) - 1 and a[-1 - common] == b[-1 - common]:
        common += 1
    if common == 0:
        return dropped, wanted
    return ".".join(a[:-common]) + ".", ".".join(b[:-common]) + "."


def fold_renames(findings: list[Finding]) -> list[Finding]:
    """`findings` for one engine with each dropped tensor (EN001) whose canonical name is a
    parameter left at its initial value (EN002) folded, pairs and all, into one EN001: the
    weights are there, under another key dialect. Unpaired EN001 / EN002 stay as they are."""
    wanted = {
        canonical_name(f.tensor)[0]: f for f in findings if f.code == LEFT_RANDOM and f.tensor
    }
    pairs = [
        (f, wanted[key])
        for f in findings
        if f.code == DROPPED
        and f.tensor
        and (key := canonical_name(f.tensor)[0]) in wanted
        and wanted[key].tensor != f.tensor
    ]
    if not pairs:
        return findings
    head, first_param = pairs[0]
    old, new = _dialect_prefixes(head.tensor or "", first_param.tensor or "")
    engine = head.engine or "the engine"
    message = (
        f"{engine} silently drops {len(pairs)} tensor(s) named {old}* and leaves the "
        f"{len(pairs)} parameter(s) {new}* they hold at their initial values: the weights are "
        f"there under another key dialect ({head.tensor} is looked for as {first_param.tensor})"
    )
    absorbed = [f for pair in pairs for f in pair if f is not head]
    counts = ", ".join(
        f"{code} x{n}" for code, n in sorted(Counter(f.code for f in absorbed).items())
    )
    note = f" [{len(absorbed)} finding(s) of this rename folded here: {counts}]"
    folded = replace(head, message=clip(message + note))
    gone = {id(f) for f in absorbed}
    return [folded if f is head else f for f in findings if id(f) not in gone]
