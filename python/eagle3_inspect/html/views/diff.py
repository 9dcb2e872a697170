"""The diff view: the verdict and counts, the per-tensor chart of the pairs that changed (relative
L2, cosine, mismatched share, grouped by layer), the changed pairs, the equal ones as a count that
opens to their names, renames, added/removed tensors, the d2t mappings side by side, config and
metadata changes, and each side's file errors. A d2t whose bytes differ but whose mapping is the
same (re-encoded) is said to be so, not charted as the biggest change."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from eagle3_inspect.commands.diff.report import DiffReport, PairResult
from eagle3_inspect.findings import FOLD_AFTER
from eagle3_inspect.html.findings import findings_table
from eagle3_inspect.html.markup import Markup, definitions, join, note, section, table, tag
from eagle3_inspect.html.plots.diffchart import diff_chart, finite
from eagle3_inspect.html.views.layers import chart_rows
from eagle3_inspect.units import cosine_text, number


def diff_view(report: DiffReport, *, plots: bool) -> Markup:
    """The report's body; `plots` draws the per-tensor chart (needs matplotlib)."""
    badge = "pass" if report.ok else "fail"
    counts = report.counts()
    counts_row = table(counts.keys(), [[f"{n:,}" for n in counts.values()]], class_="counts")
    return join(
        [
            tag("h1", "eagle3-inspect diff"),
            tag("div", "A: ", report.a.path, class_="path"),
            tag("div", "B: ", report.b.path, class_="path"),
            tag("p", tag("span", report.verdict(), class_=f"verdict {badge}"), class_="summary"),
            counts_row,
            section("Per-tensor change", _chart(report, plots), class_="chart"),
            section(
                "Changed tensors",
                _changed(report.changed, _same_mapping_pairs(report)),
                _equal(report),
                class_="changed",
            ),
            section("Renamed, added, removed", _names(report), class_="names"),
            section("d2t mapping", _vocab(report.vocab), class_="vocab"),
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


def _same_mapping_pairs(report: DiffReport) -> set[str]:
    """A-side names of the d2t / t2d pairs whose bytes differ while the mapping is the same (a
    re-encoding: absolute ids <-> offsets): not a change of what the drafter predicts."""
    vocab = report.vocab or {}
    if vocab.get("same_mapping") is not True:
        return set()
    side = vocab.get("a") or {}
    names = {side.get("d2t")}
    if vocab.get("same_token_set") is True:
        names.add(side.get("t2d"))
    return {n for n in names if isinstance(n, str)}


def _measured(metrics: Mapping[str, Any]) -> bool:
    """Whether a pair has a number to chart (a shape change leaves every metric empty)."""
    return any(finite(metrics.get(k)) is not None for k in ("rel_l2", "cosine", "mismatched"))


def _chart(report: DiffReport, plots: bool) -> Markup:
    if report.structure_only:
        return note("Structure-only diff: values were not compared, so there is nothing to plot.")
    same = _same_mapping_pairs(report)
    changed = [p for p in report.pairs if p.changed and p.name not in same]
    measured = [(p.name, p.metrics) for p in changed if p.metrics and _measured(p.metrics)]
    if not measured:
        if changed:
            return note(
                "No changed tensor could be compared numerically (its shape or dtype changed): "
                "see the table below."
            )
        compared = any(p.metrics for p in report.pairs)
        return note(
            "Every compared tensor is equal, or the same vocabulary mapping re-encoded: nothing "
            "to plot."
            if compared
            else "No pair was compared numerically."
        )
    if not plots:
        return note("Install eagle3-inspect[html] (matplotlib) for the chart.")
    rows, left_out = chart_rows(measured)
    caption = (
        "Relative L2, cosine similarity and share of elements outside tolerance per changed "
        "tensor (equal tensors are counted below the table, not charted)"
    )
    if left_out:
        caption += f"; the {len(rows)} most changed of {len(rows) + left_out} shown"
    return diff_chart(rows, caption + ".")


def _changed(pairs: list[PairResult], same_mapping: set[str]) -> Markup:
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
        status: object = p.status or "-"
        if p.name in same_mapping:
            status = tag("span", f"{status}: same mapping, re-encoded", class_="same-mapping")
        rows.append(
            [
                name,
                status,
                dtype,
                shape if p.shape[0] != p.shape[1] else "",
                _num(m.get("max_abs")),
                _num(m.get("rel_l2")),
                _cosine(m.get("cosine")),
                _num(m.get("mismatched")),
            ]
        )
    return table(headers, rows, class_="changed")


def _equal(report: DiffReport) -> Markup:
    """The pairs that did not change: their count, opening to their names."""
    same = [p for p in report.pairs if not p.changed]
    if not same:
        return Markup("")
    what = "bitwise equal" if not report.structure_only else "with the same dtype and shape"
    names = tag(
        "ul",
        *(tag("li", p.name if p.name_b == p.name else f"{p.name} -> {p.name_b}") for p in same),
    )
    summary = tag("summary", f"{len(same)} tensor(s) {what} on both sides")
    return tag("details", summary, names, class_="equal")


def _cosine(value: Any) -> str:
    """The terminal's spelling (never `1` for a cosine that is not exactly 1)."""
    return (
        cosine_text(value)
        if isinstance(value, float) and finite(value) is not None
        else _num(value)
    )


def _num(value: Any) -> str:
    return (
        number(value) if isinstance(value, (int, float)) else ("-" if value is None else str(value))
    )


def _names(report: DiffReport) -> Markup:
    renamed = [[r.source, r.target, f"renamed ({r.by})"] for r in report.matching.renamed]
    rows = [[name, "", "added in B"] for name in report.added]
    rows += [[name, "", "removed from B"] for name in report.removed]
    if not rows and not renamed:
        return note("Same tensor names on both sides.")
    headers = ("tensor", "renamed to", "how")
    if len(renamed) <= FOLD_AFTER:
        return table(headers, renamed + rows, class_="names")
    # Many renames are one dialect change: a count per rule that opens to the pairs.
    by = Counter(r.by for r in report.matching.renamed)
    summary = "; ".join(f"{n} tensor(s) renamed ({rule})" for rule, n in by.items())
    pairs = table(headers, renamed, class_="names")
    folded = tag("details", tag("summary", summary), pairs, class_="renames")
    return join([folded, table(headers, rows, class_="names") if rows else ""])


def _json_changes(report: DiffReport) -> Markup:
    rows = []
    for label, block in (("config", report.config), ("metadata", report.metadata)):
        for kind in ("added", "removed", "changed"):
            for path, value in (block.get(kind) or {}).items():
                rows.append([label, kind, path, json.dumps(value, ensure_ascii=False, default=str)])
    if not rows:
        return note("No config or metadata change.")
    return table(("where", "change", "key", "value"), rows, class_="json")


VOCAB_SIDE = (
    ("d2t tensor", "d2t"),
    ("t2d tensor", "t2d"),
    ("encoding", "encoding"),
    ("certainty", "certainty"),
    ("why", "reason"),
    ("draft vocab", "draft_vocab"),
    ("target vocab", "target_vocab"),
)
VOCAB_BOTH = (
    ("same mapping", "same_mapping"),
    ("same target tokens", "same_token_set"),
    ("same encoding", "same_encoding"),
    ("draft ids mapped differently", "differing_draft_ids"),
)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _vocab(vocab: dict[str, Any] | None) -> Markup:
    """Both sides' d2t / t2d mappings side by side, then what the comparison found."""
    if not vocab:
        return note("The d2t mappings were not compared.")
    a, b = vocab.get("a") or {}, vocab.get("b") or {}
    rows: list[list[object]] = [[what, _cell(a.get(k)), _cell(b.get(k))] for what, k in VOCAB_SIDE]
    facts = table(("", "A", "B"), rows, class_="vocab")
    both = definitions((what, _cell(vocab.get(k))) for what, k in VOCAB_BOTH)
    return join(
        [tag("p", tag("strong", vocab.get("summary") or ""), class_="summary"), facts, both]
    )
