"""The `fix` rows: the drafter converted for speculators (its `midlayer.*` keys renamed to
`layers.0.*`) next to a plain copy of the same files, both fsynced, timed in interleaved
best-of-N rounds. The "vs floor" column of the fix rows is their throughput over the copy's.
The write reads every tensor back and compares it as it goes, so "plan + write" already holds
the byte check; "+ verify" adds validate (statistics from the write) and the plan check."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from eagle3_inspect import fix
from eagle3_inspect.commands.fix.output import discard, stage
from eagle3_inspect.commands.fix.plan import make_plan
from eagle3_inspect.reader.checkpoint import Checkpoint
from eagle3_inspect.rules.en import resolve_engines
from timing import Op, Row, run_interleaved

ENGINE = "speculators@0.9.0"


def _copy(files: list[Path], dst: Path) -> None:
    if dst.exists():
        shutil.rmtree(dst)
    dst.mkdir()
    for f in files:
        shutil.copyfile(f, dst / f.name)
        fd = os.open(dst / f.name, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)


def _write_only(src: Path, dst: Path) -> None:
    ckpt = Checkpoint(src)
    plan = make_plan(resolve_engines(ENGINE)[0], ckpt)
    tmp, _, _ = stage(ckpt, plan, dst)
    discard(tmp)


def _full(src: Path, dst: Path):
    report = fix(src, engine=ENGINE, out=dst, force=True)
    assert report.status == "fixed", report.to_dict()
    return report


def measure_fix(path: Path, data: Path, repeats: int, report: dict) -> tuple[dict[str, Row], list]:
    files = sorted(p for p in path.iterdir() if p.is_file())
    nbytes = sum(f.stat().st_size for f in files)
    out = data / "fix-out"
    report["generated"].append(out)
    report["generated"].append(data / "fix-copy")
    write_op = f"fix --engine {ENGINE}: plan + write (read back, compared)"
    full_op = f"fix --engine {ENGINE}: plan + write + verify (validate + plan check)"
    copy_dir = data / "fix-copy"
    ops = [
        Op(
            "copy",
            "plain copy of the same files (+ fsync)",
            1,
            lambda: _copy(files, copy_dir),
            nbytes,
        ),
        Op("fix write", write_op, None, lambda: _write_only(path, out), nbytes, "copy"),
        Op("fix", full_op, None, lambda: _full(path, out), nbytes, "copy"),
    ]
    # Each output is removed (untimed) after its run: the disk holds at most one copy at a time
    # (the fix run would otherwise replace DST with DST and its staged copy both on disk).
    ops[0].teardown = lambda: shutil.rmtree(copy_dir, ignore_errors=True)
    ops[2].teardown = lambda: shutil.rmtree(out, ignore_errors=True)
    by_key, results = run_interleaved(ops, repeats)
    checked = results["fix"].verification
    by_key["fix"].extra = {
        "equal_tensors": checked["diff"]["equal_tensors"],
        "validate_errors": checked["validate"]["summary"]["errors"],
    }
    print(f"fix verification: {by_key['fix'].extra}")
    return by_key, [by_key[k] for k in ("copy", "fix write", "fix")]
