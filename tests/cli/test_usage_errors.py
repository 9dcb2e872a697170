"""Every click usage error, in every command, is one line on stderr with exit 2 (issue 10)."""

from __future__ import annotations

import subprocess
import sys

import pytest

USAGE_ERRORS = [
    ["scan", "--bogus", "x"],
    ["scan"],
    ["scan", "x", "--threads", "0"],
    ["validate", "x", "--fail-on", "never"],
    ["validate"],
    ["validate", "x", "--threads", "many"],
    ["diff", "a"],
    ["diff", "a", "b", "--rtol", "loose"],
    ["rules", "--bogus"],
    ["demo", "--out"],
    ["nosuchcommand"],
    ["--bogus"],
]


def run(args: list[str]) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "eagle3_inspect", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args", USAGE_ERRORS, ids=" ".join)
def test_usage_error_is_one_line_with_exit_2(args: list[str]) -> None:
    done = run(args)
    assert done.returncode == 2, done
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("eagle3-inspect"), lines[0]
    assert "error" in lines[0].lower()


def test_help_and_version_still_exit_0() -> None:
    for args in (["--help"], ["scan", "--help"], ["--version"]):
        done = run(args)
        assert done.returncode == 0, done
        assert done.stdout.strip()
