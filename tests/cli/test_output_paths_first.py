"""Every output path is checked before any work (issue 24 item 6): a bad `--html` directory
used to be found after the whole data pass, as "[Errno 2] No such file or directory" without
naming `--html`, with the stdout report lost too."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle3_inspect.commands import scan as scan_module
from eagle3_inspect.synthetic.demo import ENGINE, write_demo


@pytest.mark.parametrize(
    ("command", "flag"),
    [("scan", "--html"), ("validate", "--html"), ("diff", "--html"), ("fix", "--out")],
)
def test_a_bad_output_path_is_refused_before_reading(
    tmp_path: Path, run_cli, monkeypatch, command: str, flag: str
) -> None:
    demo = write_demo(tmp_path / "demo")
    opened: list[str] = []
    real_open = scan_module.open_checkpoint

    def spy(path, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(str(path))
        return real_open(path, **kwargs)

    monkeypatch.setattr(scan_module, "open_checkpoint", spy)
    args = [command, str(demo.correct)]
    args += {"diff": [str(demo.broken)], "fix": ["--engine", ENGINE]}.get(command, [])
    bad = tmp_path / "missing" / "out"
    code, out, err = run_cli(*args, flag, str(bad), "--format", "concise")
    assert code == 2 and out == "" and opened == []
    assert err.count("\n") == 1 and flag in err and str(tmp_path / "missing") in err


def test_resume_file_in_a_missing_directory_is_refused_first(tmp_path: Path, run_cli) -> None:
    demo = write_demo(tmp_path / "demo")
    bad = tmp_path / "missing" / "audit.jsonl"
    code, out, err = run_cli("scan", str(demo.correct), str(demo.broken), "--resume", str(bad))
    assert code == 2 and out == "" and "--resume" in err
