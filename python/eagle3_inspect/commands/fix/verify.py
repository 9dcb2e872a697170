"""Checking a written drafter before it is declared fixed: `validate` for the same engine version
(no errors but those the plan says no conversion can fix) and `diff SRC DST` (every weight
bit-equal under its planned name, d2t the same mapping, nothing added or removed that was not
planned, config.json exactly the planned one)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eagle3_inspect.commands.diff import diff
from eagle3_inspect.commands.fix.plan import Plan
from eagle3_inspect.commands.fix.simulate import UNFIXABLE
from eagle3_inspect.commands.validate import validate
from eagle3_inspect.findings import Severity
from eagle3_inspect.reader.checkpoint import Checkpoint

# Value findings (NUM) are about the weights' data, which fix copies bit-exactly (the diff below
# checks it): one on DST was on SRC already, and no conversion changes it (e.g. DFlash2's
# zero-initialised kernel_projection in an untrained export), so it does not fail the copy.
DATA_FAMILY = "NUM"


def _validate(path: Path, engine: str, target: str | None, threads: int | None) -> dict[str, Any]:
    report = validate(str(path), engine=engine, target=target, threads=threads)
    errs = [f for f in report.findings if f.severity is Severity.ERROR]
    unexpected = [f for f in errs if f.code not in UNFIXABLE and not f.code.startswith(DATA_FAMILY)]
    return {
        "ok": not unexpected,
        "errors": [f.to_dict() for f in unexpected],
        "expected": [f.to_dict() for f in errs if f not in unexpected],
        "summary": report.summary,
    }


def _diff(src: Checkpoint, path: Path, plan: Plan, threads: int | None) -> dict[str, Any]:
    report = diff(src, str(path), threads=threads)
    problems: list[str] = []
    rewritten = {"d2t"} if plan.d2t is not None else set()
    equal = 0
    for pair in report.pairs:
        if plan.names.get(pair.name) != pair.name_b:
            problems.append(
                f"{pair.name} matched {pair.name_b}, planned {plan.names.get(pair.name)}"
            )
        elif pair.status == "equal":
            equal += 1
        elif pair.name not in rewritten:
            problems.append(f"{pair.name} -> {pair.name_b} is {pair.status}, not equal")
    removed = set(report.removed) - set(plan.dropped)
    added = set(report.added) - ({"t2d"} if plan.t2d is not None else set())
    problems += [f"{n} is missing from DST" for n in sorted(removed)]
    problems += [f"{n} appeared in DST unplanned" for n in sorted(added)]
    vocab = report.vocab or {}
    if "d2t" in plan.names and vocab.get("same_mapping") is not True:
        problems.append(f"d2t is not the same mapping: {vocab.get('summary')}")
    config_path = path / "config.json"
    if plan.config is not None:
        written = json.loads(config_path.read_text(encoding="utf-8"))
        if written != plan.config:
            problems.append("config.json differs from the planned config")
    return {"ok": not problems, "equal_tensors": equal, "problems": problems}


def verify(
    src: Checkpoint,
    path: Path,
    plan: Plan,
    engine: str,
    target: str | None,
    threads: int | None = None,
) -> dict[str, Any]:
    checked = {
        "validate": _validate(path, engine, target, threads),
        "diff": _diff(src, path, plan, threads),
    }
    checked["ok"] = checked["validate"]["ok"] and checked["diff"]["ok"]
    return checked
