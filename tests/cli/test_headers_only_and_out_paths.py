"""`validate --headers-only` (the old `--no-stats`) runs no data pass, so shows no "stats"
progress bar; a `fix --out` where nothing can be created names that path, never the lock file
fix keeps beside it (issue 24 item 13)."""

from __future__ import annotations

import contextlib
import importlib
from pathlib import Path
from typing import Any

import pytest

from eagle3_inspect.synthetic.demo import write_demo

# The module (`eagle3_inspect.cli.main` the attribute is the click group).
cli_main = importlib.import_module("eagle3_inspect.cli.main")


@pytest.mark.parametrize(
    ("flag", "label"), [("--headers-only", None), ("--no-stats", None), (None, "stats")]
)
def test_no_data_pass_no_progress_bar(
    tmp_path: Path, run_cli, monkeypatch, flag: str | None, label: str | None
) -> None:
    demo = write_demo(tmp_path / "demo")
    asked: list[Any] = []

    def progress_for(name: str | None, fmt: str) -> contextlib.AbstractContextManager[Any]:
        asked.append(name)
        return contextlib.nullcontext(None)

    monkeypatch.setattr(cli_main, "progress_for", progress_for)
    args = ["validate", str(demo.correct), "--format", "concise"] + ([flag] if flag else [])
    assert run_cli(*args)[0] == 0
    assert asked == [label]


def test_progress_for_without_a_label_is_no_bar_even_on_a_terminal(monkeypatch) -> None:
    monkeypatch.setattr(cli_main.sys.stderr, "isatty", lambda: True, raising=False)
    assert isinstance(cli_main.progress_for(None, "full"), contextlib.nullcontext)


def test_an_out_where_nothing_can_be_created_names_it(tmp_path: Path, run_cli) -> None:
    demo = write_demo(tmp_path / "demo")
    code, out, err = run_cli(
        "fix", str(demo.mislabelled), "--engine", "sglang@0.5.11", "--out", "/proc/nope"
    )
    assert code == 2, out
    assert err.count("\n") == 1 and "/proc/nope" in err
    assert "fix-lock" not in err and ".nope" not in err
