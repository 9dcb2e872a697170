"""`eagle3-inspect fix`: JSON schema, exit codes (0 fixed / planned, 2 refused with one stderr
line naming the code), and the human report."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from eagle3_inspect.cli.main import main
from eagle3_inspect.synthetic.demo import ENGINE, write_demo


def test_json_plan_fix_and_refusal(tmp_path: Path) -> None:
    files = write_demo(tmp_path / "demo")
    runner = CliRunner()
    args = ["fix", str(files.mislabelled), "--engine", ENGINE, "--out", str(tmp_path / "dst")]
    planned = runner.invoke(main, [*args, "--dry-run", "--json"])
    assert planned.exit_code == 0, planned.output
    doc = json.loads(planned.output)
    assert doc["schema"] == "eagle3-inspect/fix/1" and doc["status"] == "planned"
    assert {c["kind"] for c in doc["changes"]} == {"rename", "d2t"}
    assert not (tmp_path / "dst").exists()
    done = runner.invoke(main, [*args, "--json"])
    assert done.exit_code == 0, done.output
    doc = json.loads(done.output)
    assert doc["status"] == "fixed" and doc["verification"]["ok"]
    assert doc["verification"]["diff"]["problems"] == []
    again = runner.invoke(main, args)
    assert again.exit_code == 2 and "already exists" in again.stderr
    refused = runner.invoke(
        main, ["fix", str(files.broken), "--engine", ENGINE, "--out", str(tmp_path / "x")]
    )
    assert refused.exit_code == 2
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("eagle3-inspect: refused: E3009: "), lines
    assert "REFUSED" in refused.stdout


def test_engine_must_name_one_version(tmp_path: Path) -> None:
    files = write_demo(tmp_path / "demo")
    result = CliRunner().invoke(
        main, ["fix", str(files.mislabelled), "--engine", "all", "--out", str(tmp_path / "d")]
    )
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


def test_a_finding_no_conversion_can_fix_is_not_success(tmp_path: Path) -> None:
    """Issue 24 item 2: a drafter that already loads but whose target the engine cannot capture
    from used to print NOTHING TO DO and exit 0, so `fix && deploy` shipped it."""
    files = write_demo(tmp_path / "demo")
    args = ["fix", str(files.correct), "--engine", "sglang@0.5.9", "--target", str(files.target)]
    result = CliRunner().invoke(
        main, [*args, "--out", str(tmp_path / "dst"), "--format", "concise"]
    )
    assert result.exit_code == 1, result.output
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("NOT SERVABLE: ") and "EN006" in last and "sglang@0.5.10" in last
    assert "NOTHING TO DO" not in result.stdout and not (tmp_path / "dst").exists()
    doc = json.loads(
        CliRunner().invoke(main, [*args, "--out", str(tmp_path / "dst"), "--json"]).stdout
    )
    assert doc["status"] == "nothing-to-do" and doc["ok"] is False
    assert [f["code"] for f in doc["expected_findings"]] == ["EN006"]
