"""A FixReport as line records for `concise`, `github` and `jsonl`, plus its one-line summary.

Records, in order: each planned change (code = its kind: `rename`, `drop`, `d2t`, `t2d`,
`config`; `info`), each note, the refusal (its finding code, `error`), the findings no
conversion can fix (as found), then the verification's validate errors and diff problems
(`error`). No rich here: these formats must start fast."""

from __future__ import annotations

from typing import Any

from eagle3_inspect.cli.render.concise import one_line
from eagle3_inspect.cli.render.records import Record, display_path, finding_record
from eagle3_inspect.commands.fix import FixReport
from eagle3_inspect.echo import clip
from eagle3_inspect.findings import Finding

CHANGE_SCHEMA = "eagle3-inspect/fix-change/1"
NOTE_SCHEMA = "eagle3-inspect/fix-note/1"
PROBLEM_SCHEMA = "eagle3-inspect/fix-problem/1"
SUMMARY_SCHEMA = "eagle3-inspect/fix-summary/1"
# status -> (label, what happened): the summary line here, the last line of the rich view.
VERDICT = {
    "fixed": ("FIXED", "written and verified"),
    "planned": ("PLAN", "dry run: nothing written"),
    "nothing-to-do": ("NOTHING TO DO", "the source already loads as trained; nothing written"),
    "refused": ("REFUSED", "nothing written"),
    "unverified": ("NOT VERIFIED", "the written copy failed its checks and was discarded"),
}


# The longest config value a change line shows whole.
VALUE_ECHO = 200


def verdict(report: FixReport) -> tuple[str, str]:
    """The summary's label and what happened; a blocked report says which findings no
    conversion can fix and what must change instead (another engine version, or retraining)."""
    label, what = VERDICT[report.status]
    if not report.blocked:
        return label, what
    codes = ", ".join(sorted({str(f["code"]) for f in report.expected}))
    instead = report.suggestion or "retrain the drafter for a target this engine can serve"
    written = "written, but " if report.status == "fixed" else ""
    return (
        "NOT SERVABLE",
        f"{written}{report.engine} still fails on {codes}, which no conversion can fix: {instead}"
        + ("" if report.status == "fixed" else "; nothing written"),
    )


def change_subject(change: dict[str, Any]) -> str | None:
    """What a change is about: the tensor, `config:KEY`, or None for d2t/t2d re-encodings."""
    kind = change["kind"]
    if kind == "rename":
        return str(change["from"])
    if kind == "drop":
        return str(change["tensor"])
    if kind == "config":
        return f"config:{change['key']}"
    return kind if kind in ("d2t", "t2d") else None


def change_text(change: dict[str, Any]) -> str:
    """The change itself, after its subject: `-> new.name`, `= 3`, `(removed)`, a detail."""
    kind = change["kind"]
    if kind == "rename":
        return f"-> {change['to']}"
    if kind == "drop":
        return "dropped (the engine would ignore it)"
    if kind == "config":
        # A value from SRC's config may be anything (a 15 MB string): shown by its two ends.
        old, new = (clip(repr(change.get(side)), VALUE_ECHO) for side in ("from", "to"))
        return {"add": f"= {new}", "remove": "(removed)"}.get(change["op"], f"{old} -> {new}")
    return str(change.get("detail", ""))


def _record(
    path: str, subject: str | None, code: str, severity: str, message: str, data: dict[str, Any]
) -> Record:
    return Record(display_path(path), subject, code, severity, message, None, data)


def _finding(data: dict[str, Any], default_path: str) -> Record:
    return finding_record(Finding.from_dict(data), default_path)


def fix_records(report: FixReport) -> list[Record]:
    src = report.source
    records = [
        _record(
            src,
            change_subject(c),
            c["kind"],
            "info",
            change_text(c),
            {"schema": CHANGE_SCHEMA, "path": src, **c},
        )
        for c in report.changes
    ]
    notes = [*report.notes, *([f"instead: {report.suggestion}"] if report.suggestion else [])]
    records += [
        _record(src, None, "note", "info", n, {"schema": NOTE_SCHEMA, "path": src, "note": n})
        for n in notes
    ]
    if report.refusal:
        refusal = {"code": report.refusal["code"], "message": report.refusal["reason"]}
        records.append(_finding({**refusal, "severity": "error", "engine": report.engine}, src))
    records += [_finding(f, src) for f in report.expected]
    check = report.verification
    if check is not None:
        records += [_finding(f, report.destination) for f in check["validate"]["errors"]]
        records += [
            _record(
                report.destination,
                None,
                "diff",
                "error",
                problem,
                {"schema": PROBLEM_SCHEMA, "path": report.destination, "problem": problem},
            )
            for problem in check["diff"]["problems"]
        ]
    return records


def _counts(report: FixReport) -> str:
    kinds: dict[str, int] = {}
    for c in report.changes:
        kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
    detail = ", ".join(f"{n} {k}" for k, n in kinds.items())
    return f"{len(report.changes)} change(s)" + (f" ({detail})" if detail else "")


def fix_summary(report: FixReport) -> str:
    label, what = verdict(report)
    src, dst = display_path(report.source), display_path(report.destination)
    parts = [f"{label}: {src} -> {dst} for {report.engine}"]
    if report.refusal:
        parts.append(report.refusal["code"])
    else:
        parts.append(_counts(report))
    check = report.verification
    if check is not None:
        val, dif = check["validate"], check["diff"]
        parts.append(f"validate {'ok' if val['ok'] else 'FAILED'} ({len(val['errors'])} error(s))")
        parts.append(
            f"diff {'as planned' if dif['ok'] else 'FAILED'} ({dif['equal_tensors']} equal)"
        )
    parts.append(what)
    return one_line("; ".join(parts))


def fix_summary_object(report: FixReport) -> dict[str, Any]:
    """The last `jsonl` line: the report without its per-record lists."""
    data = report.to_dict()
    for key in ("changes", "notes", "expected_findings"):
        data.pop(key)
    check = data.pop("verification")
    data["schema"] = SUMMARY_SCHEMA
    data["exit_code"] = report.exit_code
    data["change_count"] = len(report.changes)
    data["verification_ok"] = None if check is None else check["ok"]
    return data
