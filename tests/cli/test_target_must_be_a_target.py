"""`--target` must look like a target model (issue 24 item 3): a Python file, `{}` or an empty
folder used to give three E3108 warnings, PASS and exit 0 with every target check (EN006 among
them) skipped, while a config.json with a syntax error gave exit 2. Now all four are exit 2 with
one line naming the path."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle3_inspect.synthetic.demo import write_demo


def _not_targets(root: Path) -> dict[str, Path]:
    root.mkdir()
    (root / "empty").mkdir()
    (root / "broken").mkdir()
    (root / "broken" / "config.json").write_text('{"architectures": [', encoding="utf-8")
    (root / "train.py").write_text("print('hello')\n", encoding="utf-8")
    (root / "config.json").write_text("{}", encoding="utf-8")
    return {
        "python file": root / "train.py",
        "empty object": root / "config.json",
        "empty folder": root / "empty",
        "syntax error": root / "broken",
    }


@pytest.mark.parametrize("kind", ["python file", "empty object", "empty folder", "syntax error"])
@pytest.mark.parametrize("command", ["validate", "fix"])
def test_a_target_that_is_not_one_is_an_error(
    tmp_path: Path, run_cli, kind: str, command: str
) -> None:
    demo = write_demo(tmp_path / "demo")
    target = _not_targets(tmp_path / "not")[kind]
    args = [command, str(demo.correct), "--target", str(target), "--format", "concise"]
    if command == "fix":
        args += ["--engine", "sglang@0.5.11", "--out", str(tmp_path / "dst")]
    code, out, err = run_cli(*args)
    assert code == 2, out
    assert err.count("\n") == 1 and str(target) in err and "PASS" not in out
    assert not (tmp_path / "dst").exists()


def test_a_real_target_still_passes(tmp_path: Path, run_cli) -> None:
    demo = write_demo(tmp_path / "demo")
    code, out, _ = run_cli("validate", str(demo.correct), "--target", str(demo.target))
    assert code == 0, out
