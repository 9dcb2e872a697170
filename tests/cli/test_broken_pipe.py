"""One SIGPIPE rule (issue 24 item 7): a reader that has gone (`| head`) ends the command
quietly with the exit code of the report it was printing. Before, `rules` and `diff --format
jsonl` printed "error: [Errno 32] Broken pipe" and exit 2, `scan --format full` exit 1
(rich's own handler), `rules --format full` exit 0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from eagle3_inspect.synthetic.demo import write_demo

CASES = [
    (["rules"], 0),
    (["rules", "--format", "full"], 0),
    (["diff", "{correct}", "{broken}", "--format", "jsonl"], 1),
    (["scan", "{correct}", "--format", "full"], 0),
    (["validate", "{broken}", "--format", "concise"], 1),
    (["validate", "{broken}", "--format", "full"], 1),
]


@pytest.mark.parametrize(("args", "code"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_a_closed_pipe_is_quiet_and_keeps_the_reports_exit_code(
    tmp_path: Path, args: list[str], code: int
) -> None:
    demo = write_demo(tmp_path / "demo")
    argv = [a.format(correct=demo.correct, broken=demo.broken) for a in args]
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line: every write meets EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-m", "eagle3_inspect", *argv],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (code, "")
