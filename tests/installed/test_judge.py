"""The worker protocol, run for real: a subprocess of this Python, its result file, and every
way it can fail without a verdict (NOT-RUN, with the reason), never an exception."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from eagle3_inspect.installed.judge import judge
from eagle3_inspect.installed.probe import InstalledEngine
from eagle3_inspect.reader.opening import open_checkpoint
from eagle3_inspect.reader.tensorinfo import TensorInfo

DRAFTER = Path(__file__).resolve().parents[1] / "corpus" / "speculators-0.9.0-default"


def engine(python: str = sys.executable) -> InstalledEngine:
    return InstalledEngine("sglang", "0.5.99", "/nowhere/sglang", python)


@pytest.fixture(scope="module")
def ckpt():
    return open_checkpoint(DRAFTER)


def test_a_worker_that_cannot_import_torch_is_not_run_with_the_reason(
    ckpt, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shadow = tmp_path / "torch"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise ImportError('torch shadowed by the test')\n")
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p)
    monkeypatch.setenv("PYTHONPATH", path)
    verdict = judge(engine(), ckpt.config, ckpt.tensors, profile="sglang@0.5.23")
    assert verdict.outcome == "NOT-RUN"
    assert "ImportError: torch shadowed by the test" in verdict.reason
    assert verdict.profile == "sglang@0.5.23" and verdict.scale == 8


def test_a_worker_that_dies_is_not_run_with_its_last_stderr_line(ckpt, tmp_path: Path) -> None:
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\necho 'first line' >&2\necho 'Segmentation fault' >&2\nexit 139\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    verdict = judge(engine(str(python)), ckpt.config, ckpt.tensors)
    assert verdict.outcome == "NOT-RUN"
    assert verdict.reason == "the worker exited with status 139: Segmentation fault"


def test_a_worker_past_its_timeout_is_not_run(ckpt, tmp_path: Path) -> None:
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\nexec sleep 60\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    verdict = judge(engine(str(python)), ckpt.config, ckpt.tensors, timeout=0.5)
    assert verdict.outcome == "NOT-RUN"
    assert verdict.reason == "the worker did not finish within 0.5 s"


def test_stand_ins_too_large_to_allocate_are_not_run() -> None:
    """Sizes with no common power-of-two factor keep the drafter's shapes: past the cap the
    worker is never started."""
    config = {"hidden_size": 100003, "vocab_size": 100003}
    shape = (100003, 100003)
    info = TensorInfo("embed_tokens.weight", "BF16", shape, 2 * 100003**2, "m.safetensors", 8)
    verdict = judge(engine(), config, {info.name: info})
    assert verdict.outcome == "NOT-RUN" and verdict.scale == 1
    assert "10,000,600,009 elements" in verdict.reason
