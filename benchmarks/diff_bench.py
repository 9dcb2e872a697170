"""The diff part of the benchmark, one phase per copy of the drafter (each phase warms and
reads only the drafter and that copy, so a shared machine's page cache need hold 8.6 GB, not
13): the copy with a few tensors changed (and the drafter against itself), the copy changed
everywhere by one unit (every bf16 element's lowest bit), and a training-step copy (every bf16
element a random few units off: most within the tolerance screen of the vector loops, some
not). Each phase times the raw-read floor of both sides and `eagle3_inspect.diff` in
interleaved best-of-N rounds; the everywhere phase then runs the numpy and torch diff baselines
on its pair, once each."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path
from typing import Any

import eagle3_inspect
from diff_baselines import diff_agreement, numpy_diff, torch_diff, torch_python
from floors import floor_ops, readable
from timing import Contention, Op, Row, run_interleaved, warm

# Per phase (copy kind): (row label, key of the floor of reading both sides), and whether the
# drafter against itself runs in it.
PHASES = {
    "perturbed": (("perturbed copy (a few tensors)", "floor2"), True),
    "everywhere": (("everywhere-perturbed copy", "floor2all"), False),
    "step": (("training-step copy (a few units off everywhere)", "floor2step"), False),
}


def measure_diffs(
    path: Path, copies: dict[str, Path], threads: list[int], n: int, by_key: dict, report: dict
) -> list[str]:
    """Runs every phase into `by_key`; returns the keys of the rows to print, in order."""
    ckpt = eagle3_inspect.open(path)
    order: list[str] = []
    for kind, ((label, floor), with_self) in PHASES.items():
        other = eagle3_inspect.open(copies[kind])
        warm_s, warm_b = warm([f.path for f in ckpt.files] + [str(copies[kind])])
        print(f"diff phase '{kind}': warm-up read {warm_b / 1e9:.2f} GB in {warm_s:.1f} s")
        fa_bytes = sum(ckpt.tensors[x].nbytes for x in readable(ckpt))
        ops = floor_ops(ckpt, f" A [{kind}]", threads, kept=False)
        ops += floor_ops(other, f" B [{kind}]", threads, kept=False)
        rows = [(label, floor, copies[kind])] + (
            [("itself", "floor2self", path)] if with_self else []
        )
        for t in threads:
            for row_label, key, b in rows:
                fn = functools.partial(eagle3_inspect.diff, path, b, threads=t)
                nbytes = fa_bytes + sum(
                    c.tensors[x].nbytes for c in [eagle3_inspect.open(b)] for x in readable(c)
                )
                op = Op(f"diff vs {row_label}:{t}", f"diff vs {row_label}", t, fn, nbytes)
                op.floor_key = f"{key}:{t}"
                op.numpy_key = "numpy diff" if kind == "everywhere" else None
                ops.append(op)
        if kind == "everywhere":
            cli = functools.partial(cli_diff, path, copies[kind])
            label_cli = f"diff vs {label} (CLI --format json, fresh process)"
            ops.append(Op(f"cli diff vs {label}", label_cli, None, cli, ops[-1].nbytes))
            ops[-1].floor_key = f"{floor}:{max(threads)}"
        with Contention() as busy:
            rows_by_key, results = run_interleaved(ops, n)
        print(f"timed rounds of phase '{kind}': {busy.describe()}")
        report.setdefault("contention_diff", {})[kind] = {
            "wall_s": busy.wall,
            "other_cpu_s": busy.others,
        }
        by_key.update(rows_by_key)
        for t in threads:
            fa, fb = by_key[f"floor A [{kind}]:{t}"], by_key[f"floor B [{kind}]:{t}"]
            both = Row(
                f"raw-read floor A+B ({kind} copy)",
                t,
                fa.seconds + fb.seconds,
                fa.nbytes + fb.nbytes,
                n,
            )
            by_key[f"{floor}:{t}"] = both
            if with_self:
                by_key[f"floor2self:{t}"] = Row(
                    "raw-read floor A+A", t, 2 * fa.seconds, 2 * fa.nbytes, n
                )
        for key, res in results.items():
            if key.startswith("diff"):
                by_key[key].extra = diff_summary(res)
                print(
                    f"{by_key[key].operation} at {by_key[key].threads} threads: {by_key[key].extra}"
                )
        if kind == "everywhere":
            order += baselines(ckpt, other, threads, by_key, results, report)
        for t in threads:
            for row_label, key, _ in rows:
                order += [f"{key}:{t}", f"diff vs {row_label}:{t}"]
        order += [k for k in rows_by_key if k.startswith("cli ")]
    return order


def cli_diff(a: Path, b: Path) -> int:
    """`eagle3-inspect diff A B --format json` in a fresh process (start-up, imports, the pass
    and the JSON included); exit code 1 (differences) is the expected outcome."""
    cmd = [sys.executable, "-m", "eagle3_inspect", "diff", str(a), str(b), "--format", "json"]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.decode()}")
    return done.returncode


def baselines(a, b, threads: list[int], by_key: dict, results: dict, report: dict) -> list[str]:
    """The numpy and torch diff baselines on the pair (once each), with their agreement with the
    native diff; returns their row keys."""
    names = sorted(set(readable(a)) & set(readable(b)))
    nbytes = sum(a.tensors[x].nbytes + b.tensors[x].nbytes for x in names)
    label = "numpy+ml_dtypes diff (f32 chunks, f64 sums)"
    op = Op("numpy diff", label, 1, lambda: numpy_diff(a, b, names), nbytes, "floor2all:1")
    rows, res = run_interleaved([op], 1)
    by_key.update(rows)
    native = results[f"diff vs everywhere-perturbed copy:{max(threads)}"]
    report["diff_vs_numpy"] = diff_agreement(native, res["numpy diff"])
    print(f"diff agrees with numpy on the everywhere pair: {report['diff_vs_numpy']}")
    python = torch_python()
    if python is None:
        print("note: no interpreter with torch (BENCH_TORCH_PYTHON); the torch diff is skipped")
        return ["numpy diff"]
    done = torch_diff(python, a, b, names)
    t = done["threads"]
    label = "torch+safetensors diff (isclose, f32, f64 sums; in a child)"
    by_key["torch diff"] = Row(label, t, done["seconds"], nbytes, 1, f"floor2all:{t}", "numpy diff")
    report["diff_vs_torch"] = diff_agreement(native, done["pairs"])
    report["torch_diff_child_wall_s"] = done["wall"]
    print(
        f"torch diff child: {done['seconds']:.2f} s timed inside, {done['wall']:.2f} s with "
        f"its start-up; agreement with the native diff: {report['diff_vs_torch']}"
    )
    return ["numpy diff", "torch diff"]


def diff_summary(report: Any) -> dict[str, Any]:
    """A few facts from a DiffReport, read defensively (its API belongs to another module)."""
    try:
        data = report.to_dict()
    except Exception as exc:  # the diff API is not ours; never fail the benchmark on it
        return {"summary_error": repr(exc)}
    changed = data.get("changed") or []
    statuses: dict[str, int] = {}
    for c in changed:
        statuses[str(c.get("status"))] = statuses.get(str(c.get("status")), 0) + 1
    return {"changed": statuses, "unchanged": data.get("unchanged")}
