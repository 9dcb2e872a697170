"""The findings table: one row per finding (code, severity, engine, where, message) with its fix
hint under the message. Rows carry `finding sev-<severity>` classes, so tests and readers can count
them."""

from __future__ import annotations

from collections.abc import Iterable

from eagle3_inspect.findings import Finding, count_by_severity, location
from eagle3_inspect.html.markup import Markup, join, note, tag

HEADERS = ("code", "severity", "engine", "where", "message")


def _row(f: Finding) -> Markup:
    severity = f.severity.value
    message = tag("div", f.message)
    fix = tag("div", f.hint, class_="fix") if f.hint else ""
    return tag(
        "tr",
        tag("td", f.code, class_=f"code sev-{severity}"),
        tag("td", severity, class_=f"sev-{severity}"),
        tag("td", f.engine or ""),
        tag("td", location(f), title=f.file),
        tag("td", message, fix, class_="msg"),
        class_=f"finding sev-{severity}",
    )


def findings_table(findings: Iterable[Finding]) -> Markup:
    """Every finding, errors first, in a table; a short note when there are none."""
    ordered = sorted(findings, key=lambda f: (-f.severity.rank, f.code))
    if not ordered:
        return note("No findings.")
    head = tag("thead", tag("tr", *(tag("th", h) for h in HEADERS)))
    return tag("table", head, tag("tbody", *(_row(f) for f in ordered)), class_="findings")


def counts_line(findings: list[Finding]) -> Markup:
    """`N error(s), N warning(s), N info(s)`."""
    c = count_by_severity(findings)
    return join([f"{c['errors']} error(s), {c['warnings']} warning(s), {c['infos']} info(s)"])
