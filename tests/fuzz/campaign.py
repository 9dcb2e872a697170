"""Runs cases in a watched worker process: a case that kills the worker is a crash, one that makes
no progress for `case_timeout` seconds is a hang; either way the worker is restarted after it.
Cases are reproducible from (seed, index). New kinds of outcome are minimized and kept in the
corpus; the committed corpus is replayed by tests/test_fuzz.py and rust/core/tests/fuzz_corpus.rs.
"""

from __future__ import annotations

import hashlib
import importlib
import multiprocessing as mp
import os
import queue
import random
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.fuzz import documents, mutate, oracle

CORPUS = Path(__file__).parent / "corpus"
CORPUS_CAP = 340
CRASH, HANG = "crash (worker died)", "hang (no progress)"
STARTING = -1  # the worker's current case before its first
FINISHED = -2  # the worker ran every case it was given and stopped


@dataclass
class Report:
    """What a campaign saw: executions and outcomes by case kind and category."""

    seconds: float = 0.0
    execs: int = 0
    outcomes: Counter = field(default_factory=Counter)  # (kind, category) -> count
    failures: list = field(default_factory=list)  # (kind, category, corpus file)
    saved: list = field(default_factory=list)

    @property
    def disagreements(self) -> int:
        return sum(n for (_, cat), n in self.outcomes.items() if cat != oracle.OK)


# The share of each kind of case (the rest are safetensors files).
MIX = (("index", 0.2), ("config", 0.08), ("resume", 0.08), ("modelinfo", 0.06))


def case_for(seed: int, index: int) -> tuple[str, bytes]:
    rng = random.Random(f"{seed}:{index}")
    draw, upto = rng.random(), 0.0
    for kind, share in MIX:
        upto += share
        if draw < upto:
            if kind == "index":
                return "index", mutate.index_case(rng)
            return kind, documents.generate(kind, rng)
    return "file", mutate.file_case(rng)


def kind_of(name: str) -> str:
    """A corpus file's kind, from its name (`index-...`, `config-...`; seeds are files)."""
    prefix = name.split("-", 1)[0]
    return prefix if prefix in ("index", *documents.KINDS) else "file"


def write_shards(directory: Path) -> None:
    for name, tensors in mutate.SHARD_TENSORS.items():
        pairs = [
            (t, {"dtype": "F32", "shape": [1], "data_offsets": [4 * i, 4 * i + 4]})
            for i, t in enumerate(tensors)
        ]
        (directory / name).write_bytes(
            mutate.assemble(mutate.render(pairs), b"\0" * 4 * len(tensors))
        )


def judge(kind: str, blob: bytes, workdir: Path) -> tuple[str, bool, tuple[str, ...]]:
    if kind in documents.KINDS:
        return documents.judge(kind, blob, workdir)
    if kind == "index":
        index = workdir / "idx" / "model.safetensors.index.json"
        index.parent.mkdir(exist_ok=True)
        if not any(index.parent.glob("*.safetensors")):
            write_shards(index.parent)
        index.write_bytes(blob)
        return oracle.judge_index(index)
    path = workdir / "case.safetensors"
    path.write_bytes(blob)
    return oracle.judge_file(path)


def minimize(kind: str, blob: bytes, workdir: Path, budget: int = 400) -> bytes:
    """Greedy chunk deletion that keeps the same judgment (category, verdict, codes)."""
    return shrink(blob, lambda candidate: judge(kind, candidate, workdir), budget)


def shrink(blob: bytes, judged: Callable[[bytes], object], budget: int) -> bytes:
    """`blob` with chunks deleted, halving the chunk size, as long as `judged` says the same of
    it; at most `budget` judgments (the torch fuzzer's minimizer uses it too)."""
    target = judged(blob)
    chunk = max(len(blob) // 2, 1)
    while chunk >= 1 and budget > 0:
        at, shrunk = 0, False
        while at < len(blob) and budget > 0:
            candidate = blob[:at] + blob[at + chunk :]
            budget -= 1
            if judged(candidate) == target:
                blob, shrunk = candidate, True
            else:
                at += chunk
        if not shrunk:
            chunk //= 2
    return blob


def save(kind: str, blob: bytes, corpus: Path) -> str | None:
    if len(list(corpus.iterdir())) >= CORPUS_CAP:
        return None
    suffix = documents.SUFFIX.get(kind, ".json" if kind == "index" else ".safetensors")
    name = f"{kind}-{hashlib.sha1(blob).hexdigest()[:16]}{suffix}"
    (corpus / name).write_bytes(blob)
    return name


def _injected_faults() -> dict[int, str]:
    """E3_FUZZ_INJECT="crash:3,hang:40" makes the worker die at case 3 and stall at case 40: the
    watchdog's own test (tests/test_fuzz.py), never set in real runs."""
    spec = os.environ.get("E3_FUZZ_INJECT", "")
    pairs = (item.split(":") for item in spec.split(",") if item)
    return {int(index): fault for fault, index in pairs}


def _worker(seed, start, current, results, seen, corpus, save_new, target=__name__, stop=None):
    # `target` names the module whose case_for / judge / minimize / save run (this one for
    # safetensors, tests.torch.fuzz for torch files); the watchdog is the same for both.
    fuzzer = importlib.import_module(target)
    faults = _injected_faults()
    with tempfile.TemporaryDirectory(prefix="e3fuzz-") as tmp:
        workdir = Path(tmp)
        os.chdir(workdir)  # a payload that ran would leave its file here, where judge looks
        index = start
        while True:
            if stop is not None and index >= stop:
                results.put(None)  # the end: everything before it has been sent
                current.value = FINISHED
                return
            current.value = index
            if faults.get(index) == "crash":
                # What was judged before it is delivered first (the queue's feeder thread
                # would die with the process), so the test can count every case.
                results.close()
                results.join_thread()
                os.abort()
            if faults.get(index) == "hang":
                time.sleep(3600)
            kind, blob = fuzzer.case_for(seed, index)
            verdict = fuzzer.judge(kind, blob, workdir)
            signature = (kind, *verdict)
            saved = None
            if save_new and signature not in seen:
                seen[signature] = True
                saved = fuzzer.save(kind, fuzzer.minimize(kind, blob, workdir), Path(corpus))
            results.put((kind, verdict[0], saved))
            index += 1


def _drain(results, report: Report, wait: float = 0.0) -> bool:
    """Counts every result the worker has sent (waiting up to `wait` for the first); True once
    its end mark has come."""
    try:
        item = results.get(timeout=wait) if wait else results.get_nowait()
        while True:
            if item is None:
                return True
            kind, category, saved = item
            report.execs += 1
            report.outcomes[(kind, category)] += 1
            if saved:
                report.saved.append(saved)
            if category != oracle.OK:
                report.failures.append((kind, category, saved))
            item = results.get_nowait()
    except queue.Empty:
        pass
    return False


def run(
    seconds: float = float("inf"),
    seed: int = 0,
    case_timeout: float = 10.0,
    corpus: Path | None = None,
    target: str = __name__,
    cases: int | None = None,
) -> Report:
    """Fuzzes for `seconds` of wall time; with `corpus`, new outcomes are minimized into it.
    `target` is the module of the cases and the judge (see `_worker`). With `cases`, the run is
    cases 0 .. cases-1 of `seed` (leave `seconds` unbounded): the same cases on every machine."""
    fuzzer = importlib.import_module(target)
    ctx = mp.get_context("spawn")
    report = Report()
    manager = ctx.Manager()
    seen = manager.dict()
    if corpus is not None:
        corpus.mkdir(parents=True, exist_ok=True)
    start, deadline = 0, time.monotonic() + seconds
    began = time.monotonic()
    while time.monotonic() < deadline:
        current, results = ctx.Value("q", STARTING), ctx.Queue()
        args = (seed, start, current, results, seen, str(corpus), corpus is not None, target, cases)
        worker = ctx.Process(target=_worker, args=args, daemon=True)
        worker.start()
        last_progress, last_index = time.monotonic(), STARTING
        ended = False
        while True:
            ended = _drain(results, report, wait=0.5) or ended
            now = time.monotonic()
            # Start-up (imports, on a loaded machine) is no case: the timeout starts at the first.
            if current.value != last_index or current.value == STARTING:
                last_progress, last_index = now, current.value
            dead = not worker.is_alive()
            hung = now - last_progress > case_timeout
            if dead or hung or now >= deadline:
                break
        if worker.is_alive():
            worker.kill()
        worker.join()
        ended = ended or _drain(results, report)
        last_index = current.value  # the case it died or stalled on, however recent
        if last_index == FINISHED:
            # A finished worker's results are all in the pipe, the end mark last; a queue read
            # may still miss them for a moment after the process has gone.
            while not ended:
                ended = _drain(results, report, wait=1.0)
            break
        if now >= deadline and not (dead or hung):
            break
        if last_index == STARTING:
            raise RuntimeError(f"fuzz worker died before its first case (exit {worker.exitcode})")
        kind, blob = fuzzer.case_for(seed, last_index)
        category = HANG if hung else CRASH
        report.outcomes[(kind, category)] += 1
        report.execs += 1
        name = fuzzer.save(kind, blob, corpus) if corpus is not None else None
        report.failures.append((kind, category, name))
        start = last_index + 1
    manager.shutdown()
    report.seconds = time.monotonic() - began
    return report


def replay(corpus: Path = CORPUS) -> list[tuple[str, str]]:
    """Judges every corpus file in-process; returns (file, category) for each that fails."""
    bad = []
    with tempfile.TemporaryDirectory(prefix="e3replay-") as tmp:
        for path in sorted(corpus.iterdir()):
            category = judge(kind_of(path.name), path.read_bytes(), Path(tmp))[0]
            if category != oracle.OK:
                bad.append((path.name, category))
    documents.cleanup()
    return bad
