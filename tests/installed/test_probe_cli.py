"""`--engine NAME@installed` without what it needs: one line naming what to install, exit 2,
before any work; with other names, or in fix, a precise usage error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from eagle3_inspect.errors import InvalidArgumentError, MissingDependencyError
from eagle3_inspect.installed.probe import find_installed
from eagle3_inspect.installed.spec import split_spec

DRAFTER = Path(__file__).resolve().parents[1] / "corpus" / "speculators-0.9.0-default"

# Runs the CLI in a fresh interpreter whose finder cannot see the named top-level packages
# (whatever this machine has installed) and sees the others as plain directories.
HIDING = """
import importlib.machinery, importlib.util, sys
hidden, present = set(sys.argv[1].split(",")) - {""}, set(sys.argv[2].split(",")) - {""}
real = importlib.util.find_spec
def find_spec(name, *args):
    if name in hidden:
        return None
    if name in present:
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = ["/opt/fake/" + name]
        return spec
    return real(name, *args)
importlib.util.find_spec = find_spec
from eagle3_inspect.cli import run
sys.argv = ["eagle3-inspect", *sys.argv[3:]]
run()
"""


def cli(hidden: str, present: str, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", HIDING, hidden, present, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    ("hidden", "present", "named"),
    [
        ("torch,transformers,sglang", "", "torch, transformers, sglang"),
        ("torch", "transformers,sglang", "torch"),
        ("sglang", "torch,transformers", "sglang"),
    ],
)
def test_missing_pieces_are_one_line_and_exit_2(hidden: str, present: str, named: str) -> None:
    done = cli(hidden, present, "validate", str(DRAFTER), "--engine", "sglang@installed")
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"eagle3-inspect: error: sglang@installed needs {named} ")
    assert f"pip install {named.replace(', ', ' ')} " in lines[0]


def test_the_json_twin_exits_2_with_nothing_on_stdout() -> None:
    done = cli(
        "torch",
        "transformers,vllm",
        "validate",
        str(DRAFTER),
        "--engine",
        "vllm@installed",
        "--format",
        "json",
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "vllm@installed needs torch " in done.stderr


def test_fix_names_validate_as_the_place_for_installed() -> None:
    done = cli("", "", "fix", str(DRAFTER), "--engine", "sglang@installed", "--out", "/tmp/x")
    assert done.returncode == 2
    assert "only `validate --engine` runs" in done.stderr


def test_other_engines_are_refused_by_name() -> None:
    with pytest.raises(InvalidArgumentError, match="runs sglang and vllm only"):
        find_installed("trtllm")


def test_the_api_raises_missing_dependency(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    import eagle3_inspect

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "torch" else real(n, *a)
    )
    with pytest.raises(MissingDependencyError, match=r"^sglang@installed needs torch"):
        eagle3_inspect.validate(DRAFTER, engine="vllm@0.33.0,sglang@installed", stats=False)


def test_split_spec_keeps_profiles_and_dedupes_installed() -> None:
    assert split_spec("sglang@installed, vllm@0.33.0,SGLANG@Installed,vllm@installed") == (
        "vllm@0.33.0",
        ["sglang", "vllm"],
    )
    assert split_spec("all") == ("all", [])
