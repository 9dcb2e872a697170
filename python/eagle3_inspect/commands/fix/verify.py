"""Checking a written drafter before it is declared fixed: `validate` for the same engine version
(no errors but those the plan says no conversion can fix, `Plan.unfixable`), and the plan
against what was written (every weight bit-equal under its planned name, d2t the same mapping,
nothing added or removed that was not planned, config.json exactly the planned one).

No data is read a second time. The bytes were checked while they were written: each shard's
header was read back by the package's own reader, each tensor written to the range it gives for
its name and read back from the file at once to be compared with its source bytes (see
`reader/writer.py`); here every DST name is matched to that record, to the file the DST index
gives for it, and to its planned source name and file. `validate` takes its statistics from the
same read-back bytes, so it reads headers, config and the small vocab tensors only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eagle3_inspect.commands.diff.vocab import compare_vocab
from eagle3_inspect.commands.fix.plan import Plan
from eagle3_inspect.commands.validate import validate
from eagle3_inspect.findings import Severity
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.reader.stats import TensorStats
from eagle3_inspect.writer import WrittenFile, WrittenTensor

# Value findings (NUM) are about the weights' data, which fix copies bit-exactly (the diff below
# checks it): one on DST was on SRC already, and no conversion changes it (e.g. DFlash2's
# zero-initialised kernel_projection in an untrained export), so it does not fail the copy.
DATA_FAMILY = "NUM"


def _validate(
    dst: Checkpoint,
    engine: str,
    target: str | None,
    stats: dict[str, TensorStats],
    threads: int | None,
    unfixable: frozenset[str],
) -> dict[str, Any]:
    report = validate(dst, engine=engine, target=target, stats=stats, threads=threads)
    errs = [f for f in report.findings if f.severity is Severity.ERROR]
    unexpected = [f for f in errs if f.code not in unfixable and not f.code.startswith(DATA_FAMILY)]
    return {
        "ok": not unexpected,
        "errors": [f.to_dict() for f in unexpected],
        "expected": [f.to_dict() for f in errs if f not in unexpected],
        "summary": report.summary,
    }


def _same_file(a: str, b: str) -> bool:
    return Path(a).resolve() == Path(b).resolve()


def _weight_problem(
    src: Checkpoint,
    dst: Checkpoint,
    old: str,
    new: str,
    written: dict[str, tuple[str, WrittenTensor]],
) -> str | None:
    """Why DST's `new` is not known to hold exactly SRC's `old` (None when it is)."""
    if new not in dst.tensors or new not in written:
        return None  # reported as missing
    file, record = written[new]
    if record.problem is not None:
        return f"{old} -> {new}: {record.problem}"
    origin = src.tensors[old]
    if record.source_name != old or not _same_file(record.source_file or "", origin.file):
        return f"{old} -> {new} was written from {record.source_name} in {record.source_file}"
    if not _same_file(dst.tensors[new].file, file):
        return f"{new} is read from {dst.tensors[new].file}, but was written to {file}"
    return None


def _plan_check(
    src: Checkpoint, dst: Checkpoint, plan: Plan, files: list[WrittenFile]
) -> dict[str, Any]:
    written = {t.name: (f.path, t) for f in files for t in f.tensors}
    rewritten = {"d2t"} if plan.d2t is not None else set()
    problems: list[str] = []
    equal = 0
    for old, new in sorted(plan.names.items()):
        if old in rewritten:
            continue  # checked as a mapping below
        problem = _weight_problem(src, dst, old, new, written)
        if problem is not None:
            problems.append(problem)
        elif new in dst.tensors and new in written:
            equal += 1
    expected = set(plan.names.values()) | ({"t2d"} if plan.t2d is not None else set())
    present = set(dst.tensors)
    back = {new: old for old, new in plan.names.items()}
    problems += [f"{back[n]} is missing from DST" for n in sorted(expected - present) if n in back]
    problems += [f"{n} is missing from DST" for n in sorted(expected - present) if n not in back]
    problems += [f"{n} appeared in DST unplanned" for n in sorted(present - expected)]
    if "d2t" in plan.names:
        vocab = compare_vocab(src, dst)
        if vocab.get("same_mapping") is not True:
            problems.append(f"d2t is not the same mapping: {vocab.get('summary')}")
    if plan.config is not None:
        config_path = Path(dst.root) / "config.json"
        written_config = json.loads(config_path.read_text(encoding="utf-8"))
        if written_config != plan.config:
            problems.append("config.json differs from the planned config")
    return {"ok": not problems, "equal_tensors": equal, "problems": problems}


def verify(
    src: Checkpoint,
    path: Path,
    plan: Plan,
    engine: str,
    target: str | None,
    threads: int | None = None,
    written: list[WrittenFile] | None = None,
) -> dict[str, Any]:
    """The verification of the drafter staged at `path` from `src` by `plan`, given what each
    shard's write verified (`written`; without it nothing counts as verified)."""
    files = written or []
    dst = Checkpoint(path)
    stats = {name: s for f in files for name, s in f.stats.items()}
    checked = {
        "validate": _validate(dst, engine, target, stats, threads, plan.unfixable),
        "diff": _plan_check(src, dst, plan, files),
    }
    checked["ok"] = checked["validate"]["ok"] and checked["diff"]["ok"]
    return checked
