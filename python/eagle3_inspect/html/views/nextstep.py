"""The validate page's "next step" box: per engine version checked, what `fix --engine` repairs
and what needs retraining or another engine version, with the exact command line. The
knowledge is fix's own (`commands/fix/advice.py`: its planner run on this drafter)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from eagle3_inspect.commands.fix.advice import EngineAdvice, advise, validate_command
from eagle3_inspect.commands.validate import ValidateReport
from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.html.markup import Markup, join, tag

HEADLINES = {
    "fixable": "fix writes a drafter this engine version loads as trained",
    "blocked": "fix converts the drafter, but this engine version still fails on it",
    "refused": "fix refuses to convert this drafter, for the reason below",
    "nothing-to-do": "fix has nothing to change for this engine version",
    "not-planned": "fix was not planned",
}
# What the command line is, by status (none is shown when fix has nothing to change).
COMMAND_LABELS = {
    "fixable": "run",
    "blocked": "run (repairs the rest)",
    "refused": "after that, run",
}


def codes_text(findings: Iterable[Finding]) -> str:
    """`EN001 x10, EN002 x10, VM006`: codes in report order, with their counts."""
    counts = Counter(f.code for f in findings)
    return ", ".join(f"{code} x{n}" if n > 1 else code for code, n in counts.items())


def changes_text(changes: list[dict[str, Any]]) -> str:
    """What the plan changes: `20 tensors renamed, d2t re-encoded as offsets, 2 config edits`."""
    kinds = Counter(c["kind"] for c in changes)
    parts = []
    if kinds["rename"]:
        parts.append(f"{kinds['rename']} tensor(s) renamed")
    if kinds["drop"]:
        parts.append(f"{kinds['drop']} unused tensor(s) dropped")
    if kinds["d2t"]:
        parts.append("d2t re-encoded as offsets")
    if kinds["t2d"]:
        parts.append("t2d generated from d2t")
    if kinds["config"]:
        parts.append(f"{kinds['config']} config.json edit(s)")
    return ", ".join(parts)


def _one(f: Finding) -> Markup:
    where = f.tensor or (f"config:{f.config_key}" if f.config_key else "")
    hint = tag("div", f.hint, class_="step-fix") if f.hint else ""
    return tag(
        "li",
        tag("span", f.code, class_=f"code sev-{f.severity.value}"),
        f" {where}: " if where else " ",
        f.message,
        hint,
    )


def _grouped(title: str, findings: list[Finding], kind: str) -> Markup:
    """A titled list, one entry per code (its first finding; the count when several)."""
    if not findings:
        return Markup("")
    first: dict[str, Finding] = {}
    for f in findings:
        first.setdefault(f.code, f)
    return tag(
        "div",
        tag("strong", f"{title}: "),
        codes_text(findings),
        tag("ul", *(_one(f) for f in first.values())),
        class_=f"bucket {kind}",
    )


def _block(advice: EngineAdvice) -> Markup:
    headline = HEADLINES[advice.status]
    idle = advice.status == "nothing-to-do" or (advice.status == "blocked" and not advice.changes)
    if advice.status == "blocked" and not advice.changes:
        headline = "fix has nothing to change, and this engine version still fails on it"
    reason: object = ""
    if advice.refusal is not None and advice.refusal[0] not in {f.code for f in advice.remaining}:
        code, why = advice.refusal
        reason = tag("p", tag("strong", f"{code}: ") if code else "", why, class_="refusal")
    repaired = ""
    if advice.repaired:
        when = " once the rest is resolved" if advice.status == "refused" else ""
        done = changes_text(advice.changes)
        repaired = tag(
            "div",
            tag("strong", f"fix repairs{when}: "),
            codes_text(advice.repaired),
            f" ({done})" if done else "",
            class_="bucket repaired",
        )
    retrain = _grouped(
        "Needs retraining or a new export (the drafter's own: every engine inherits it)",
        [f for f in advice.retrain if f.severity is Severity.ERROR],
        "retrain",
    )
    other = _grouped(
        "Needs another engine version (this one's alone)",
        [f for f in advice.other_engine if f.severity is Severity.ERROR],
        "engine",
    )
    suggestion = (
        tag("p", tag("strong", "instead: "), advice.suggestion, class_="suggestion")
        if advice.suggestion
        else ""
    )
    label = COMMAND_LABELS.get(advice.status, "command")
    command = tag("div", tag("span", f"{label}: ", class_="label"), tag("code", advice.command))
    return tag(
        "div",
        tag("h3", advice.engine, ": ", headline),
        reason,
        repaired,
        retrain,
        other,
        suggestion,
        "" if idle else command,
        class_=f"engine-step {advice.status}",
    )


def next_step(report: ValidateReport) -> Markup:
    """The box: one block per engine version checked, or the command that checks them all."""
    if not report.engines:
        body: Markup = tag(
            "p",
            "No engine version was checked, so what fix repairs is not known. Run: ",
            tag("code", validate_command(report)),
        )
    else:
        body = join(_block(a) for a in advise(report))
    return tag("section", tag("h2", "Next step"), body, class_="next-step")
