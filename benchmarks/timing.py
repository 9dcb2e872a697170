"""Timing and reporting helpers for bench.py: best-of-N timing, result rows, the printed table,
and facts about the machine (load, memory) to print beside the numbers."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Row:
    """One measured operation. `floor_key` names the floor row it is compared with."""

    operation: str
    threads: int | None
    seconds: float
    nbytes: int
    repeats: int
    floor_key: str | None = None
    numpy_key: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    cpu_seconds: float | None = None  # process CPU time (all threads) of the timed run

    @property
    def gb_per_s(self) -> float:
        return self.nbytes / self.seconds / 1e9 if self.seconds > 0 else float("inf")


@dataclass
class Op:
    """An operation to time: `fn()` runs it once; `key` identifies its row."""

    key: str
    operation: str
    threads: int | None
    fn: Callable[[], Any]
    nbytes: int
    floor_key: str | None = None
    numpy_key: str | None = None
    setup: Callable[[], Any] | None = None  # run untimed before every timed run
    teardown: Callable[[], Any] | None = None  # run untimed after every timed run


def run_interleaved(ops: list[Op], repeats: int) -> tuple[dict[str, Row], dict[str, Any]]:
    """Times every op `repeats` times in rounds (each round runs every op once, in order), so a
    change in machine load during the run hits all ops alike; keeps each op's fastest run.
    Returns the rows and the last result of every op, by key."""
    best = {op.key: (float("inf"), 0.0) for op in ops}
    results: dict[str, Any] = {}
    for _ in range(repeats):
        for op in ops:
            if op.setup is not None:
                op.setup()
            cpu, start = cpu_seconds(), time.perf_counter()
            results[op.key] = op.fn()
            wall, cpu = time.perf_counter() - start, cpu_seconds() - cpu
            best[op.key] = min(best[op.key], (wall, cpu))
            if op.teardown is not None:
                op.teardown()
    rows = {}
    for op in ops:
        wall, cpu = best[op.key]
        row = Row(op.operation, op.threads, wall, op.nbytes, repeats, op.floor_key, op.numpy_key)
        row.cpu_seconds = cpu
        rows[op.key] = row
    return rows, results


def cpu_seconds() -> float:
    """User + system CPU time of this process, all threads, and of its waited-for children (a
    row that runs the CLI in a fresh process)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def ratio_vs(row: Row, others: dict[str, Row], key: str | None) -> float | None:
    """`other.seconds / row.seconds`: how many times faster `row` is than the reference row
    (vs the floor, 1.0 means as fast as reading the bytes)."""
    ref = others.get(key) if key else None
    if ref is None or row.seconds <= 0:
        return None
    return ref.seconds * (row.nbytes / ref.nbytes) / row.seconds


def format_table(rows: list[Row], by_key: dict[str, Row]) -> str:
    head = ("operation", "threads", "N", "seconds", "GB/s", "CPU s", "vs floor", "vs numpy")
    lines = [head]
    for row in rows:
        vs_floor = ratio_vs(row, by_key, row.floor_key)
        vs_numpy = ratio_vs(row, by_key, row.numpy_key)
        lines.append(
            (
                row.operation,
                "-" if row.threads is None else str(row.threads),
                str(row.repeats),
                f"{row.seconds:.4f}" if row.seconds < 1 else f"{row.seconds:.2f}",
                f"{row.gb_per_s:.2f}" if row.nbytes else "-",
                "-" if row.cpu_seconds is None else f"{row.cpu_seconds:.3f}",
                "-" if vs_floor is None else f"{vs_floor:.2f}x",
                "-" if vs_numpy is None else f"{vs_numpy:.1f}x",
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = []
    for n, line in enumerate(lines):
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(line, widths, strict=True))
        ]
        out.append("  ".join(cells))
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def machine_busy_seconds() -> float:
    """CPU seconds all processes on the machine have used since boot (all cores, from /proc/stat:
    user + nice + system + irq + softirq + steal)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    busy = fields[0] + fields[1] + fields[2] + sum(fields[5:8])
    return busy / os.sysconf("SC_CLK_TCK")


class Contention:
    """Measures how much CPU other processes used while a block ran (machine busy time minus
    this process's CPU time), to print beside timings taken on a shared machine."""

    def __enter__(self) -> Contention:
        self.start = (time.perf_counter(), machine_busy_seconds(), cpu_seconds())
        return self

    def __exit__(self, *exc: object) -> None:
        wall, busy, own = self.start
        self.wall = time.perf_counter() - wall
        self.others = max(0.0, machine_busy_seconds() - busy - (cpu_seconds() - own))

    def describe(self) -> str:
        cores = self.others / self.wall if self.wall > 0 else 0.0
        return (
            f"other processes used {self.others:.1f} CPU-seconds in these {self.wall:.1f} s "
            f"(on average {cores:.2f} of {os.cpu_count()} cores)"
        )


def meminfo_kib() -> dict[str, int]:
    info = {}
    with open("/proc/meminfo") as f:
        for line in f:
            key, value = line.split(":", 1)
            info[key] = int(value.split()[0])
    return info


def uptime() -> str:
    try:
        return subprocess.run(
            ["uptime"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        return f"loadavg {os.getloadavg()}"


def warm(paths: list[str], block: int = 16 << 20) -> tuple[float, int]:
    """Reads every file once (to put it in the page cache); returns (seconds, bytes)."""
    start, total = time.perf_counter(), 0
    buf = bytearray(block)
    for path in paths:
        with open(path, "rb", buffering=0) as f:
            while n := f.readinto(buf):
                total += n
    return time.perf_counter() - start, total
