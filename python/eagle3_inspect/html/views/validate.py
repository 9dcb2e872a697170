"""The validate view: the verdict, the next step (what `fix` repairs, what needs retraining or
another engine version), the findings with their fixes (runs of one code folded as the terminal
folds them), the d2t mapping (plotted when matplotlib is there), the target's facts and the aux
layers each engine version captures from it, the engine verdicts and the detected drafter
layout."""

from __future__ import annotations

from eagle3_inspect.commands.validate import ValidateReport
from eagle3_inspect.findings import count_by_severity
from eagle3_inspect.html.findings import counts_line, findings_table
from eagle3_inspect.html.markup import Markup, definitions, join, note, section, table, tag
from eagle3_inspect.html.plots.d2t import d2t_plot
from eagle3_inspect.html.views.nextstep import next_step
from eagle3_inspect.html.views.target import target_line, target_view
from eagle3_inspect.layout import Layout
from eagle3_inspect.reader.vocab import VocabMapping

DIMS = ("H", "Ht", "K", "fc_in", "Vd", "Vt", "heads", "kv_heads", "head_dim", "intermediate")
FLAGS = (
    "mixed_dialect",
    "multi_layer",
    "mla",
    "qwen3_norms",
    "eagle31",
    "has_embed",
    "has_lm_head",
    "has_fc",
    "has_d2t",
    "has_t2d",
)


def verdict(ok: bool) -> Markup:
    return tag("span", "PASS" if ok else "FAIL", class_=f"verdict {'pass' if ok else 'fail'}")


def validate_view(report: ValidateReport, *, plots: bool) -> Markup:
    """The report's body; `plots` draws the d2t mapping (needs matplotlib)."""
    header = join(
        [
            tag("h1", "eagle3-inspect validate"),
            tag("div", report.path, class_="path"),
            tag("p", "family: ", tag("strong", report.family.title), class_="family"),
            tag(
                "p",
                verdict(report.ok),
                " ",
                counts_line(report.findings),
                f" (failing on {report.fail_on.value} and above)",
                class_="summary",
            ),
            target_line(report.target) if report.target is not None else "",
        ]
    )
    return join(
        [
            header,
            section("Findings", findings_table(report.findings), class_="findings"),
            next_step(report),
            section("d2t mapping", vocab_view(report.vocab, plots=plots), class_="vocab"),
            section("Target model", target_view(report), class_="target"),
            section("Engine verdicts", engine_verdicts(report), class_="engines"),
            section("Drafter layout", layout_table(report.layout), class_="layout"),
        ]
    )


def engine_verdicts(report: ValidateReport) -> Markup:
    """One row per engine profile checked, and per installed engine judged (`NAME@installed`,
    its version and outcome): what its rules or its own code found, plus the drafter's own
    errors (which every engine inherits)."""
    if not report.engines:
        return note("No engine profile checked (validate with engine=... or --engine).")
    general = count_by_severity([f for f in report.findings if f.engine is None])
    shown = [(engine, engine) for engine in report.engines] + [
        (v.installed.label, f"{v.tag}: {v.outcome}") for v in report.installed
    ]
    rows = []
    for engine, name in shown:
        own = [f for f in report.findings if f.engine == engine]
        c = count_by_severity(own)
        ok = c["errors"] == 0 and general["errors"] == 0
        codes = ", ".join(sorted({f.code for f in own})) or "-"
        rows.append([name, verdict(ok), c["errors"], c["warnings"], general["errors"], codes])
    headers = (
        "engine",
        "verdict",
        "engine errors",
        "engine warnings",
        "drafter errors",
        "engine codes",
    )
    return table(headers, rows, class_="engines")


def layout_table(layout: Layout) -> Markup:
    blocks = ", ".join(f"{i}: {p or '(no prefix)'}" for i, p in sorted(layout.blocks.items()))
    items: list[tuple[object, object]] = [
        ("dialect", layout.dialect),
        ("decoder layers", f"{len(layout.blocks)} ({blocks})" if blocks else "0"),
        *((d, "unknown" if getattr(layout, d) is None else getattr(layout, d)) for d in DIMS),
        ("dtypes", ", ".join(f"{k} x{v}" for k, v in sorted(layout.dtypes.items())) or "-"),
        ("flags", ", ".join(f for f in FLAGS if getattr(layout, f)) or "-"),
    ]
    items += [("note", n) for n in layout.notes]
    return definitions(items)


def vocab_view(vocab: VocabMapping | None, *, plots: bool) -> Markup:
    if vocab is None or vocab.encoding == "absent":
        return note("No d2t mapping in this drafter (draft and target vocabularies are shared).")
    facts = definitions(
        [
            ("encoding", f"{vocab.encoding} ({vocab.certainty})"),
            ("why", vocab.reason or "-"),
            ("draft vocab (Vd)", vocab.vd if vocab.vd is not None else "unknown"),
            ("target vocab (Vt)", vocab.vt if vocab.vt is not None else "unknown"),
            ("sorted", {None: "unknown", True: "yes", False: "no"}[vocab.sorted]),
        ]
    )
    if vocab.target_ids is None:
        return join([facts, note("The mapping could not be read, so there is nothing to plot.")])
    if not plots:
        return join([facts, note("Install eagle3-inspect[html] (matplotlib) for the plot.")])
    caption = (
        f"Each draft token id and the target token id the checkpoint maps it to "
        f"(d2t read as {vocab.encoding})."
    )
    ids = vocab.target_ids.tolist()
    # Every engine reads d2t as offsets: an absolute d2t sends draft id i to i + d2t[i].
    misread = [t + i for i, t in enumerate(ids)] if vocab.encoding == "absolute" else None
    return join([facts, d2t_plot(ids, vocab.vt, caption, misread)])
