"""The drafter part of the benchmark: header scan, raw-read floor, numpy / torch baselines,
`Checkpoint.stats()` with and without hashes, and `eagle3_inspect.diff` against a copy with a few
tensors changed, against a copy changed everywhere (the realistic case: two training steps, a
base and its fine-tune) and against itself, all timed in interleaved best-of-N rounds on the same
warm files; then the numpy and torch diff baselines on the everywhere-changed pair."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import bench_data
import eagle3_inspect
from baselines import numpy_stats, torch_available, torch_stats
from diff_baselines import diff_agreement, numpy_diff, torch_diff, torch_python
from eagle3_inspect import _native
from timing import Contention, Op, Row, meminfo_kib, run_interleaved, warm


def readable(ckpt: eagle3_inspect.Checkpoint) -> list[str]:
    return [n for n in ckpt.tensors if n not in ckpt.unreadable]


def floor_ops(ckpt, label: str, threads: list[int]) -> list[Op]:
    """Floor passes over `ckpt`, keyed `floor{label}:{t}` (and `... (pages kept mapped)`)."""
    names = readable(ckpt)
    nbytes = sum(ckpt.tensors[x].nbytes for x in names)
    ops = []
    for t in threads:
        for release, suffix in ((True, ""), (False, " (pages kept mapped)")):

            def run(t=t, release=release):
                return _native.sum_words(ckpt._native, names, threads=t, release_pages=release)

            op = Op(f"floor{label}{suffix}:{t}", f"raw-read floor{label}{suffix}", t, run, nbytes)
            if not release:
                # Map every page first, time a pass over mapped pages, then unmap them again so
                # every other op starts, like a fresh process, with nothing mapped.
                op.setup = run
                op.teardown = functools.partial(run, release=True)
            ops.append(op)
    return ops


def agreement(native: dict, reference: dict) -> float:
    """Largest relative difference of mean / std / min / max between two stats results."""
    worst = 0.0
    for name, ref in reference.items():
        got = native[name]
        for key in ("mean", "std", "min", "max"):
            a, b = getattr(got, key), ref[key]
            if a is None or b is None:
                continue
            worst = max(worst, abs(a - b) / max(abs(b), 1e-30))
    return worst


def measure_drafter(args, threads: list[int], report: dict) -> list[Row]:
    n = args.repeats
    path, reused = bench_data.ensure_drafter(args.data / f"drafter-{args.size}", args.size)
    if not reused:
        report["generated"].append(path)
    has_diff = hasattr(eagle3_inspect, "diff")
    copies: dict[str, Path] = {}
    for kind in bench_data.COPIES if has_diff else ():
        directory = args.data / f"{kind}-{args.size}"
        copies[kind], reused_other = bench_data.ensure_perturbed(directory, args.size, kind)
        if not reused_other:
            report["generated"].append(directory)
    ckpt = eagle3_inspect.open(path)
    names = readable(ckpt)
    nbytes = sum(ckpt.tensors[x].nbytes for x in names)
    files = [f.path for f in ckpt.files] + [str(c) for c in copies.values()]
    sizes = {f: os.path.getsize(f) for f in files}
    mem = meminfo_kib()
    warm_s, warm_b = warm(files)
    fits = sum(sizes.values()) < mem["MemTotal"] * 1024
    print(
        f"checkpoint {path} ({'reused' if reused else 'generated'}): {len(names)} tensors, "
        f"{nbytes / 1e9:.3f} GB of tensor data"
    )
    for f, s in sizes.items():
        print(f"  {f}: {s / 1e9:.3f} GB")
    print(
        f"  total {sum(sizes.values()) / 2**30:.2f} GiB vs RAM {mem['MemTotal'] / 2**20:.1f} GiB "
        f"(available {mem['MemAvailable'] / 2**20:.1f} GiB): {'fits' if fits else 'DOES NOT fit'}"
        f"; warm-up read {warm_b / 1e9:.2f} GB in {warm_s:.1f} s"
    )
    report["checkpoint"] = {
        "path": str(path),
        "reused": reused,
        "files": sizes,
        "tensor_bytes": nbytes,
        "fits_in_ram": fits,
    }
    ops = [Op("scan", "header scan (open + scan)", None, lambda: scan_path(path), 0)]
    ops += floor_ops(ckpt, "", threads)
    for hashes in (False, True):
        for t in threads:
            op = "eagle3-inspect stats" + (" + hashes" if hashes else "")
            fn = functools.partial(ckpt.stats, threads=t, hashes=hashes)
            ops.append(Op(f"{op}:{t}", op, t, fn, nbytes, f"floor:{t}", "numpy"))
    if has_diff:
        ops += diff_ops(path, copies, ckpt, threads)
    else:
        print("note: eagle3_inspect.diff is not available on this build; diff rows skipped")
    with Contention() as busy:
        by_key, results = run_interleaved(ops, n)
    print(f"timed rounds: {busy.describe()}")
    report["contention"] = {"wall_s": busy.wall, "other_cpu_s": busy.others}

    numpy_op = "numpy+ml_dtypes stats (f32 chunks, f64 sums)"
    base_ops = [Op("numpy", numpy_op, 1, lambda: numpy_stats(ckpt, names), nbytes)]
    if torch_available():
        torch_op = "torch stats (f32 chunks, f64 sums)"
        base_ops.append(Op("torch", torch_op, None, lambda: torch_stats(ckpt, names), nbytes))
        base_ops[-1].numpy_key = "numpy"
    else:
        print("note: torch is not importable; the torch baseline is skipped (not installed)")
    base_rows, base_results = run_interleaved(base_ops, 1)
    by_key.update(base_rows)
    ref = base_results["numpy"]
    worst = {t: agreement(results[f"eagle3-inspect stats:{t}"], ref) for t in threads}
    report["stats_vs_numpy_max_rel_diff"] = worst
    print(
        f"stats agree with numpy: max relative difference of mean/std/min/max "
        f"{max(worst.values()):.2e}"
    )
    order = []
    if has_diff:
        add_diff_floors(by_key, threads, n)
        for key, res in results.items():
            if key.startswith("diff"):
                by_key[key].extra = diff_summary(res)
                print(
                    f"{by_key[key].operation} at {by_key[key].threads} threads: {by_key[key].extra}"
                )
        order = diff_baseline_rows(path, copies["everywhere"], threads, by_key, results, report)
    own_floors = [k for k in by_key if k.startswith(("floor:", "floor (pages kept mapped):"))]
    head = ["scan", *own_floors, *(k for k in ("numpy", "torch") if k in by_key)]
    head += [k for k in by_key if k.startswith("eagle3-inspect")]
    report["_by_key"] = by_key
    return [by_key[k] for k in head + order]


def scan_path(path: Path):
    return eagle3_inspect.scan(eagle3_inspect.open(path))


# The diff rows: label, the floor key of reading both sides, and the copy compared with (None:
# the checkpoint itself).
DIFF_ROWS = (
    ("perturbed copy (a few tensors)", "floor2", "perturbed"),
    ("everywhere-perturbed copy", "floor2all", "everywhere"),
    ("itself", "floor2self", None),
)


def diff_ops(path: Path, copies: dict[str, Path], ckpt, threads: list[int]) -> list[Op]:
    a_bytes = sum(ckpt.tensors[x].nbytes for x in readable(ckpt))
    ops = []
    other_bytes = {}
    for kind, copy in copies.items():
        other = eagle3_inspect.open(copy)
        other_bytes[kind] = sum(other.tensors[x].nbytes for x in readable(other))
        ops += floor_ops(other, f" ({kind} copy)", threads)
    for t in threads:
        for label, floor, kind in DIFF_ROWS:
            b = path if kind is None else copies[kind]
            nb = a_bytes + (a_bytes if kind is None else other_bytes[kind])
            fn = functools.partial(eagle3_inspect.diff, path, b, threads=t)
            ops.append(Op(f"diff vs {label}:{t}", f"diff vs {label}", t, fn, nb, f"{floor}:{t}"))
            ops[-1].numpy_key = "numpy diff" if kind == "everywhere" else None
    return ops


def add_diff_floors(by_key: dict[str, Row], threads: list[int], n: int) -> None:
    """Floor of reading both sides: floor A + floor B (and A + A for the self-diff)."""
    for t in threads:
        fa = by_key[f"floor:{t}"]
        for _, floor, kind in DIFF_ROWS:
            fb = fa if kind is None else by_key[f"floor ({kind} copy):{t}"]
            label = "raw-read floor A+" + ("A" if kind is None else f"B ({kind} copy)")
            row = Row(label, t, fa.seconds + fb.seconds, fa.nbytes + fb.nbytes, n)
            by_key[f"{floor}:{t}"] = row


def diff_baseline_rows(
    path: Path, everywhere: Path, threads: list[int], by_key: dict, results: dict, report: dict
) -> list[str]:
    """The numpy and torch diff baselines on the everywhere-changed pair (once each, after the
    timed rounds), their agreement with the native diff, and the diff rows' order."""
    a, b = eagle3_inspect.open(path), eagle3_inspect.open(everywhere)
    names = sorted(set(readable(a)) & set(readable(b)))
    nbytes = sum(a.tensors[x].nbytes + b.tensors[x].nbytes for x in names)
    base_ops = [
        Op(
            "numpy diff",
            "numpy+ml_dtypes diff (f32 chunks, f64 sums)",
            1,
            lambda: numpy_diff(a, b, names),
            nbytes,
            "floor2all:1",
        )
    ]
    rows, res = run_interleaved(base_ops, 1)
    by_key.update(rows)
    native = results[f"diff vs everywhere-perturbed copy:{max(threads)}"]
    report["diff_vs_numpy"] = diff_agreement(native, res["numpy diff"])
    print(f"diff agrees with numpy on the everywhere pair: {report['diff_vs_numpy']}")
    order = []
    python = torch_python()
    if python is None:
        print("note: no interpreter with torch (BENCH_TORCH_PYTHON); the torch diff is skipped")
    else:
        done = torch_diff(python, a, b, names)
        threads_used = done["threads"]
        row = Row(
            "torch+safetensors diff (isclose, f32, f64 sums; in a child)",
            threads_used,
            done["seconds"],
            nbytes,
            1,
            f"floor2all:{threads_used}",
            "numpy diff",
        )
        by_key["torch diff"] = row
        report["diff_vs_torch"] = diff_agreement(native, done["pairs"])
        report["torch_diff_child_wall_s"] = done["wall"]
        print(
            f"torch diff child: {done['seconds']:.2f} s timed inside, {done['wall']:.2f} s with "
            f"its start-up; agreement with the native diff: {report['diff_vs_torch']}"
        )
        order.append("torch diff")
    for t in threads:
        for label, floor, _ in DIFF_ROWS:
            order += [f"{floor}:{t}", f"diff vs {label}:{t}"]
    return ["numpy diff", *order]


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
