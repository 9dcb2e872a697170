"""What is echoed from untrusted input is capped (issue 22, item 7): a config whose
`architectures` string is megabytes long is shown by its two ends and its length in every
finding message and fix change line; on main a 15 MB string made `validate --format concise`
print 45 MB (E3017 once, EN004 twice) and fix's concise output 15 MB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eagle3_inspect.echo import MAX_ECHO, clip
from eagle3_inspect.synthetic.demo import write_demo

HUGE = "A" * 3_000_000


def _cli(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "eagle3_inspect", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def drafter(tmp_path_factory) -> Path:
    demo = write_demo(tmp_path_factory.mktemp("demo"))
    config = json.loads((demo.correct / "config.json").read_text())
    config["architectures"] = [HUGE]
    (demo.correct / "config.json").write_text(json.dumps(config))
    return demo.correct


@pytest.mark.parametrize("fmt", ["concise", "full", "github"])
def test_validate_echoes_a_huge_config_value_clipped(drafter: Path, fmt: str) -> None:
    run = _cli("validate", drafter, "--engine", "sglang@0.5.11", "--format", fmt)
    assert run.returncode == 1, run.stderr
    assert len(run.stdout) < 20_000, len(run.stdout)
    assert "characters not shown" in run.stdout


def test_validate_json_messages_are_clipped(drafter: Path) -> None:
    run = _cli("validate", drafter, "--engine", "sglang@0.5.11", "--json")
    findings = json.loads(run.stdout)["findings"]
    assert {"E3017", "EN004"} <= {f["code"] for f in findings}
    assert max(len(f["message"]) for f in findings) <= MAX_ECHO + 60


def test_fix_change_lines_show_the_value_clipped(drafter: Path, tmp_path: Path) -> None:
    run = _cli("fix", drafter, "--engine", "sglang@0.5.11", "--out", tmp_path / "dst")
    assert run.returncode == 0, run.stderr
    assert len(run.stdout) < 5_000 and "characters not shown" in run.stdout


def test_clip_keeps_both_ends_and_one_line() -> None:
    assert clip("short") == "short"
    text = "head " + "x" * 5000 + " tail\nnext"
    clipped = clip(text, 100)
    assert clipped.startswith("head ") and clipped.endswith(" tail next")
    assert "[4915 characters not shown]" in clipped and "\n" not in clipped
