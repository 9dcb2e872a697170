"""A `--filter` that matches no tensor is an error, not a pass (issue 24 item 5): `diff A B
--filter 'nomatch*'` used to print "identical: 0 matched" and exit 0, scan alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle3_inspect.synthetic.demo import write_demo


@pytest.mark.parametrize("command", ["scan", "diff"])
def test_a_filter_matching_nothing_exits_2(tmp_path: Path, run_cli, command: str) -> None:
    demo = write_demo(tmp_path / "demo")
    sides = [str(demo.correct)] + ([str(demo.broken)] if command == "diff" else [])
    code, out, err = run_cli(command, *sides, "--filter", "nomatch*", "--format", "concise")
    assert code == 2, out
    assert err.strip() == (
        f"eagle3-inspect: error: --filter 'nomatch*' matches no tensor of {' or '.join(sides)}"
    )
    code, out, _ = run_cli(command, *sides, "--filter", "fc.*", "--format", "concise")
    assert code == (1 if command == "diff" else 0) and "fc.weight" in out
