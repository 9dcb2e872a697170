"""Untrusted JSON, bounded (issue 22, item 3): a config.json nested 100,000 deep is a finding
(IX009) or one line for scan, validate, fix and `--target`, never a RecursionError; an index so
nested is IX007. Each case ran into a traceback on main."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eagle3_inspect.synthetic.demo import write_demo

DEEP = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"


def _cli(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "eagle3_inspect", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return write_demo(tmp_path_factory.mktemp("demo"))


@pytest.fixture
def deep(demo, tmp_path: Path) -> Path:
    drafter = tmp_path / "deep"
    drafter.mkdir()
    for file in demo.correct.iterdir():
        (drafter / file.name).write_bytes(file.read_bytes())
    (drafter / "config.json").write_text(DEEP)
    return drafter


def _no_traceback(run: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in run.stderr and "RecursionError" not in run.stderr, run.stderr[-500:]
    assert run.stderr.count("\n") <= 2, run.stderr[-500:]


@pytest.mark.parametrize("command", ["scan", "validate"])
def test_a_deeply_nested_config_is_ix009(deep: Path, command: str) -> None:
    run = _cli(command, deep, "--format", "jsonl")
    _no_traceback(run)
    assert run.returncode == 1
    found = [json.loads(line) for line in run.stdout.splitlines()]
    ix009 = [f for f in found if f.get("code") == "IX009"]
    assert len(ix009) == 1 and "127" in ix009[0]["message"], found
    assert ix009[0]["file"].endswith("config.json")


def test_fix_refuses_a_deeply_nested_config_in_one_line(deep: Path, tmp_path: Path) -> None:
    run = _cli("fix", deep, "--engine", "sglang@0.5.11", "--out", tmp_path / "dst")
    _no_traceback(run)
    assert run.returncode == 2 and "IX009" in run.stderr
    assert not (tmp_path / "dst").exists()


def test_a_deeply_nested_target_config_is_one_line(demo, deep: Path) -> None:
    run = _cli("validate", demo.correct, "--target", deep)
    _no_traceback(run)
    assert run.returncode == 2
    assert "config.json" in run.stderr and "127" in run.stderr


def test_a_deeply_nested_index_is_ix007(demo, tmp_path: Path) -> None:
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "model.safetensors").write_bytes((demo.correct / "model.safetensors").read_bytes())
    index = '{"weight_map": {}, "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    (ckpt / "model.safetensors.index.json").write_text(index)
    run = _cli("scan", ckpt, "--json")
    _no_traceback(run)
    ix007 = [f for f in json.loads(run.stdout)["findings"] if f["code"] == "IX007"]
    assert len(ix007) == 1 and "127" in ix007[0]["message"]


@pytest.mark.parametrize("value", [1e308, "256", {"x": 1}, -1, 2**70], ids=repr)
def test_a_vocab_size_that_is_no_count_is_no_traceback(demo, tmp_path: Path, value) -> None:
    """Found by the config fuzzer: validate passed such a vocab_size to the native d2t analysis
    (a TypeError or OverflowError on main)."""
    drafter = tmp_path / "drafter"
    drafter.mkdir()
    for file in demo.correct.iterdir():
        (drafter / file.name).write_bytes(file.read_bytes())
    config = json.loads((drafter / "config.json").read_text())
    config["vocab_size"] = value
    (drafter / "config.json").write_text(json.dumps(config))
    run = _cli("validate", drafter, "--format", "concise")
    _no_traceback(run)
    assert run.returncode in (0, 1), run.stderr
