"""The findings table: one row per finding (code, severity, engine, where, message) with its fix
hint under the message. A run of one code and engine is folded as the terminal folds it
(`findings.finding_runs`): its first finding, then "the same for ..." over the others, which a
`<details>` lists in full (no script: the browser opens it). Rows carry `finding sev-<severity>`
classes (`folded` on a run's row), so tests and readers can count them."""

from __future__ import annotations

from collections.abc import Iterable

from eagle3_inspect.findings import (
    Finding,
    FindingRun,
    Severity,
    count_by_severity,
    finding_runs,
    location,
)
from eagle3_inspect.html.markup import Markup, join, note, tag

HEADERS = ("code", "severity", "engine", "where", "message")


def _others(run: FindingRun) -> Markup:
    """The folded members after the first: a one-line summary that opens to list them all."""
    items = (
        tag("li", tag("span", location(f), class_="where"), " ", f.message, class_="member")
        for f in run.members[1:]
    )
    summary = tag("summary", f"... {run.same_for()}")
    return tag("details", summary, tag("ul", *items), class_="same-for")


def _row(run: FindingRun) -> Markup:
    f = run.first
    severity = f.severity.value
    message = tag("div", f.message)
    fix = tag("div", f.hint, class_="fix") if f.hint else ""
    others = _others(run) if run.folded else ""
    count = tag("span", f" x{len(run.members)}", class_="count") if run.folded else ""
    return tag(
        "tr",
        tag("td", f.code, count, class_=f"code sev-{severity}"),
        tag("td", severity, class_=f"sev-{severity}"),
        tag("td", f.engine or ""),
        tag("td", location(f), title=f.file),
        tag("td", message, fix, others, class_="msg"),
        class_=f"finding sev-{severity}" + (" folded" if run.folded else ""),
    )


def finding_rows(findings: Iterable[Finding]) -> list[FindingRun]:
    """What the table shows, one entry per row: errors first, a run of one code and engine
    beyond `FOLD_AFTER` as one row (each unfolded finding is a run of one)."""
    ordered = sorted(findings, key=lambda f: (-f.severity.rank, f.code))
    rows: list[FindingRun] = []
    for severity in (Severity.ERROR, Severity.WARNING, Severity.INFO):
        for run in finding_runs([f for f in ordered if f.severity is severity]):
            if run.folded:
                rows.append(run)
            else:
                rows += [FindingRun(f.code, f.engine, [f]) for f in run.members]
    return rows


def findings_table(findings: Iterable[Finding]) -> Markup:
    """Every finding, errors first, in a table; a short note when there are none."""
    rows = finding_rows(findings)
    if not rows:
        return note("No findings.")
    head = tag("thead", tag("tr", *(tag("th", h) for h in HEADERS)))
    return tag("table", head, tag("tbody", *(_row(r) for r in rows)), class_="findings")


def counts_line(findings: list[Finding]) -> Markup:
    """`N error(s), N warning(s), N info(s)`."""
    c = count_by_severity(findings)
    return join([f"{c['errors']} error(s), {c['warnings']} warning(s), {c['infos']} info(s)"])
