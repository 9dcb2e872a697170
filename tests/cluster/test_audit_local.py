"""Many checkpoints without a cluster: JSON Lines, one report per checkpoint, a summary line,
`--resume`; and `--ray` without the extra installed."""

from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner

from eagle3_inspect.cli.main import main
from eagle3_inspect.synthetic.demo import write_demo


def _run(*args: str) -> tuple[int, list[dict]]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, [json.loads(line) for line in result.stdout.splitlines()]


def test_several_paths_give_a_report_per_line_and_a_summary(tmp_path):
    demo = write_demo(tmp_path / "demo")
    code, lines = _run("scan", str(demo.correct), str(demo.broken), str(tmp_path / "absent"))
    reports, summary = lines[:-1], lines[-1]
    assert [r["schema"] for r in reports] == [
        "eagle3-inspect/scan/1",
        "eagle3-inspect/scan/1",
        "eagle3-inspect/scan-error/1",
    ]
    assert reports[0] == json.loads(
        CliRunner().invoke(main, ["scan", "--json", str(demo.correct)]).stdout
    )
    assert summary["schema"] == "eagle3-inspect/audit-summary/1"
    assert (summary["checkpoints"], summary["failed"], summary["skipped"]) == (3, 1, 0)
    assert code == 1  # one could not be scanned


def test_a_glob_and_a_list_file_name_the_checkpoints(tmp_path):
    demo = write_demo(tmp_path / "demo")
    listing = tmp_path / "list.txt"
    listing.write_text(f"# drafters\n{demo.target}\n\n")
    code, lines = _run("scan", str(tmp_path / "demo" / "drafter-*"), "--from-file", str(listing))
    paths = [r["path"] for r in lines[:-1]]
    assert paths == [str(demo.broken), str(demo.correct), str(demo.mislabelled), str(demo.target)]
    assert code == 0  # header findings of these four are warnings at most
    as_json = ["scan", "--format", "json", str(demo.correct), str(demo.broken)]
    assert "--format jsonl" in CliRunner().invoke(main, as_json).stderr
    html = tmp_path / "r.html"
    refused = CliRunner().invoke(main, ["scan", "--html", str(html), str(demo.correct), "x"])
    assert refused.exit_code == 2 and "--html takes one checkpoint" in refused.stderr
    assert not html.exists()


def test_resume_skips_what_the_file_already_has_and_appends(tmp_path):
    demo = write_demo(tmp_path / "demo")
    out = tmp_path / "audit.jsonl"
    first = [str(demo.correct), str(demo.broken)]
    assert _run("scan", *first, "--resume", str(out)) == (0, [])
    out.write_text(out.read_text() + '{"schema": "eagle3-inspect/scan/1", "pa')  # a torn line
    _run("scan", *first, str(demo.target), "--resume", str(out))
    lines = out.read_text().splitlines()
    records = [json.loads(line) for line in lines if line.endswith("}")]
    scanned = [r["path"] for r in records if r["schema"] == "eagle3-inspect/scan/1"]
    assert scanned == [*first, str(demo.target)]  # each once
    summaries = [r for r in records if r["schema"] == "eagle3-inspect/audit-summary/1"]
    assert [(s["scanned"], s["skipped"]) for s in summaries] == [(2, 0), (1, 2)]


def test_ray_without_the_extra_is_one_line_and_exit_2(tmp_path):
    demo = write_demo(tmp_path / "demo")
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "from eagle3_inspect.cli.main import main\n"
        f"main(['scan', '--ray', 'auto', {str(demo.correct)!r}], prog_name='eagle3-inspect')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "eagle3-inspect: error: scan: --ray needs Ray: pip install 'eagle3-inspect[ray]'"
    ]
