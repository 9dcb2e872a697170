"""The diff view: the verdict and counts, the per-tensor chart (relative L2, cosine, mismatched
share, grouped by layer), the changed pairs, renames, added/removed tensors, config and metadata
changes, and each side's file errors."""

from __future__ import annotations

import json
from typing import Any

from eagle3_inspect.commands.diff.report import DiffReport, PairResult
from eagle3_inspect.html.findings import findings_table
from eagle3_inspect.html.markup import Markup, definitions, join, note, section, table, tag
from eagle3_inspect.html.plots.diffchart import diff_chart
from eagle3_inspect.html.views.layers import chart_rows
from eagle3_inspect.units import number


def diff_view(report: DiffReport, *, plots: bool) -> Markup:
    """The report's body; `plots` draws the per-tensor chart (needs matplotlib)."""
    badge = "pass" if report.ok else "fail"
    counts = definitions(report.counts().items())
    return join(
        [
            tag("h1", "eagle3-inspect diff"),
            tag("div", "A: ", report.a.path, class_="path"),
            tag("div", "B: ", report.b.path, class_="path"),
            tag("p", tag("span", report.verdict(), class_=f"verdict {badge}"), class_="summary"),
            counts,
            section("Per-tensor change", _chart(report, plots), class_="chart"),
            section("Changed tensors", _changed(report.changed), class_="changed"),
            section("Renamed, added, removed", _names(report), class_="names"),
            section("config.json and metadata", _json_changes(report), class_="config"),
            section(
                "File errors",
                *(
                    join([tag("h3", f"side {side}"), findings_table(errs)])
                    for side, errs in report.file_errors().items()
                ),
            ),
            *(note(n) for n in report.notes),
        ]
    )


def _chart(report: DiffReport, plots: bool) -> Markup:
    if report.structure_only:
        return note("Structure-only diff: values were not compared, so there is nothing to plot.")
    measured = [(p.name, p.metrics) for p in report.pairs if p.metrics]
    if not measured:
        return note("No pair was compared numerically.")
    if not plots:
        return note("Install eagle3-inspect[html] (matplotlib) for the chart.")
    rows, left_out = chart_rows(measured)
    caption = "Relative L2, cosine similarity and share of elements outside tolerance per tensor"
    if left_out:
        caption += f"; the {len(rows)} most changed of {len(rows) + left_out} shown"
    return diff_chart(rows, caption + ".")


def _changed(pairs: list[PairResult]) -> Markup:
    if not pairs:
        return note("No tensor changed.")
    headers = (
        "tensor",
        "status",
        "dtype",
        "shape",
        "max |a-b|",
        "relative L2",
        "cosine",
        "mismatched",
    )
    rows = []
    for p in pairs:
        m = p.metrics or {}
        name = p.name if p.name_b == p.name else f"{p.name} -> {p.name_b}"
        dtype = " -> ".join(p.dtype) if p.dtype[0] != p.dtype[1] else p.dtype[0]
        shape = " -> ".join(str(list(s)) if s is not None else "?" for s in p.shape)
        rows.append(
            [
                name,
                p.status or "-",
                dtype,
                shape if p.shape[0] != p.shape[1] else "",
                _num(m.get("max_abs")),
                _num(m.get("rel_l2")),
                _num(m.get("cosine")),
                _num(m.get("mismatched")),
            ]
        )
    return table(headers, rows, class_="changed")


def _num(value: Any) -> str:
    return (
        number(value) if isinstance(value, (int, float)) else ("-" if value is None else str(value))
    )


def _names(report: DiffReport) -> Markup:
    rows = [[r.source, r.target, f"renamed ({r.by})"] for r in report.matching.renamed]
    rows += [[name, "", "added in B"] for name in report.added]
    rows += [[name, "", "removed from B"] for name in report.removed]
    if not rows:
        return note("Same tensor names on both sides.")
    return table(("tensor", "renamed to", "how"), rows, class_="names")


def _json_changes(report: DiffReport) -> Markup:
    rows = []
    for label, block in (("config", report.config), ("metadata", report.metadata)):
        for kind in ("added", "removed", "changed"):
            for path, value in (block.get(kind) or {}).items():
                rows.append([label, kind, path, json.dumps(value, ensure_ascii=False, default=str)])
    if report.vocab:
        rows.append(
            ["d2t", "compared", "", json.dumps(report.vocab, ensure_ascii=False, default=str)]
        )
    if not rows:
        return note("No config or metadata change.")
    return table(("where", "change", "key", "value"), rows, class_="json")
