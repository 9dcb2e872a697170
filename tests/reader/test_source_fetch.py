"""Data passes over ranged files: at most one batch of bytes held at once (peak RSS of a fresh
Linux process, with the batch limit lowered through the test hook so a few MiB stand for
256 MiB), and reads issued `min(threads, tensors in a batch)` at a time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from eagle3_inspect import _native
from eagle3_inspect.reader.checkpoint import Checkpoint
from tests.reader.sources import Zeros

MiB = 1 << 20
REPO = Path(__file__).resolve().parents[2]

# In a fresh process: open 64 tensors of 2 MiB of zeros (128 MiB, synthesised by the reader: the
# answers are calloc'd and never touched, so only the bytes the pass holds count), run one pass,
# report the growth of the peak resident set over the pass.
CHILD = """
import json, sys
from eagle3_inspect import _native
from eagle3_inspect.reader.checkpoint import Checkpoint
from tests.reader.sources import Zeros

_native._set_fetch_batch_bytes(int(sys.argv[1]))
zeros = Zeros(count=64, nbytes=2 << 20)
ckpt = Checkpoint.from_source(zeros.listing())
pass_ = {"stats": lambda: ckpt.stats(hashes=True),
         "floor": lambda: _native.sum_words(ckpt._native)}[sys.argv[2]]
def peak():  # this process's own high-water mark (getrusage's survives exec: the parent's)
    with open("/proc/self/status") as status:
        return next(int(l.split()[1]) * 1024 for l in status if l.startswith("VmHWM:"))

ckpt.stats(zeros.names[:1])  # code and pools warmed up before the baseline
before = peak()
pass_()
print(json.dumps({"grown": peak() - before, "calls": zeros.calls}))
"""


def peak_growth(limit: int, kind: str) -> int:
    # Every allocation over 128 KiB its own mapping, returned on free: the resident set then
    # follows the bytes alive, not what malloc's arenas keep for reuse.
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(128 << 10)}
    run = subprocess.run(
        [sys.executable, "-c", CHILD, str(limit), kind],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    out = json.loads(run.stdout)
    assert out["calls"] == 64 + 1
    return out["grown"]


@pytest.mark.parametrize("kind", ["stats", "floor"])
def test_a_pass_holds_at_most_one_batch(kind):
    limit = 8 * MiB
    bounded = peak_growth(limit, kind)
    # The same pass with the whole checkpoint in one batch: what an unbounded fetch holds.
    unbounded = peak_growth(1 << 30, kind)
    assert unbounded > 8 * limit, unbounded  # the measurement sees a whole-checkpoint batch
    assert bounded < 3 * limit, (bounded, unbounded)


@pytest.fixture
def batch_limit():
    """Sets the fetch batch limit for one test and restores the default after it."""
    previous = []
    yield lambda n: previous.append(_native._set_fetch_batch_bytes(n))
    _native._set_fetch_batch_bytes(previous[0] if previous else 0)


class Rendezvous:
    """Each read waits (10 s at most) until `expected` reads are in at once, then all go; each
    then stays in a little longer, so a read beyond the bound would overlap and be seen."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.live = 0
        self.went = False
        self.cond = threading.Condition()

    def enter(self) -> None:
        with self.cond:
            self.live += 1
            if self.live >= self.expected:
                self.went = True
                self.cond.notify_all()
            self.cond.wait_for(lambda: self.went, timeout=10)
            self.live -= 1
        time.sleep(0.02)


@pytest.mark.parametrize(
    ("threads", "per_batch", "expected"),
    [(None, 16, 8), (3, 16, 3), (8, 2, 2), (2, 16, 2)],
    ids=["default-8", "3-threads", "batch-of-2", "2-threads"],
)
def test_reads_run_min_threads_and_batch_at_once(batch_limit, threads, per_batch, expected):
    nbytes = 64 << 10
    batch_limit(per_batch * nbytes)
    rendezvous = Rendezvous(expected)
    zeros = Zeros(count=64, nbytes=nbytes, hold=rendezvous.enter)
    ckpt = Checkpoint.from_source(zeros.listing())
    ckpt.stats(threads=threads)
    assert zeros.calls == 64
    assert zeros.peak == expected > 1
