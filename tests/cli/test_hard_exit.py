"""The program leaves the process as soon as its report is printed (`cli/hard_exit.py`): the
output and exit code are the in-process run's, nothing registered to run at exit runs, and the
API or a test calling `main` in-process is never ended."""

from __future__ import annotations

import subprocess
import sys

import pytest

from eagle3_inspect.cli import hard_exit
from eagle3_inspect.synthetic.demo import write_demo

PROGRAM = (
    "import atexit, sys\n"
    "atexit.register(lambda: sys.stderr.write('ATEXIT-RAN'))\n"
    "from eagle3_inspect.cli import {entry}\n"
    "sys.argv = ['eagle3-inspect', *sys.argv[1:]]\n"
    "{entry}()\n"
)


def _program(entry: str, *args: str) -> subprocess.CompletedProcess[str]:
    code = PROGRAM.format(entry=entry)
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)


@pytest.mark.parametrize("command", ["scan", "validate", "diff"])
def test_the_program_prints_everything_then_ends_without_the_teardown(tmp_path, run_cli, command):
    demo = write_demo(tmp_path / "demo")
    paths = [str(demo.correct), str(demo.broken)] if command == "diff" else [str(demo.broken)]
    args = [command, "--json", *paths]
    hard = _program("run", *args)
    soft = _program("main", *args)
    code, out, _ = run_cli(*args)
    assert hard.returncode == soft.returncode == code == (command != "scan")
    assert hard.stdout == soft.stdout == out and out.rstrip().endswith("}")
    assert "ATEXIT-RAN" not in hard.stderr and "ATEXIT-RAN" in soft.stderr
    assert not hard_exit.enabled  # in-process: never


def test_a_failure_still_exits_through_the_usual_path():
    failed = _program("run", "scan", "/nonexistent/x.safetensors")
    assert failed.returncode == 2 and failed.stderr.count("eagle3-inspect: error:") == 1
    assert "ATEXIT-RAN" in failed.stderr
