"""scan's listing off a terminal (issue 24 item 4): piped (`concise`, the default there) it used
to print only the summary line and `--format jsonl` nothing for a clean checkpoint; `--hash`
never showed the hash in `full` and ran the statistics pass without saying so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from eagle3_inspect.cli.main import main
from eagle3_inspect.synthetic.demo import write_demo


def test_piped_scan_prints_one_line_per_tensor(tmp_path: Path) -> None:
    demo = write_demo(tmp_path / "demo")
    piped = subprocess.run(
        [sys.executable, "-m", "eagle3_inspect", "scan", str(demo.correct)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert piped.returncode == 0, piped.stderr
    lines = piped.stdout.splitlines()
    listed = [line for line in lines if ":fc.weight: BF16 [" in line]
    assert len(listed) == 1 and listed[0].endswith("KiB")
    assert len(lines) == 15 + 1 and lines[-1].startswith("PASS: ")


def test_jsonl_prints_tensor_records_and_a_summary(tmp_path: Path) -> None:
    demo = write_demo(tmp_path / "demo")
    result = CliRunner().invoke(main, ["scan", str(demo.correct), "--format", "jsonl"])
    objects = [json.loads(line) for line in result.stdout.splitlines()]
    tensors = [o for o in objects if o["schema"] == "eagle3-inspect/tensor/1"]
    assert len(tensors) == 15 and {"name", "dtype", "shape", "file", "offset"} <= set(tensors[0])
    assert objects[-1]["schema"] == "eagle3-inspect/scan-summary/1"
    assert objects[-1]["tensors"] == 15 and objects[-1]["exit_code"] == 0


def test_hash_is_shown_in_full_and_says_it_runs_the_stats_pass(tmp_path: Path) -> None:
    demo = write_demo(tmp_path / "demo")
    doc = json.loads(
        CliRunner().invoke(main, ["scan", str(demo.correct), "--hash", "--json"]).stdout
    )
    digest = next(t for t in doc["tensors"] if t["name"] == "fc.weight")["stats"]["hash"]
    runner = CliRunner(env={"COLUMNS": "300"})
    full = runner.invoke(main, ["scan", str(demo.correct), "--hash", "--format", "full"]).stdout
    assert digest in full
    concise = runner.invoke(main, ["scan", str(demo.correct), "--hash", "--format", "concise"])
    assert f"hash={digest}" in concise.stdout
    helptext = " ".join(runner.invoke(main, ["scan", "--help"]).stdout.split())
    assert "implies --stats" in helptext
