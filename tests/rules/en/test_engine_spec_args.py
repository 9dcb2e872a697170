"""`--engine ''` and `--engine NAME@` are rejected (issue 10): InvalidArgumentError from the API,
one line on stderr and exit 2 from the CLI."""

from __future__ import annotations

import subprocess
import sys

import pytest

import eagle3_inspect
from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.rules.en import resolve_engines

BAD_SPECS = ["", " ", "sglang@", "sglang@ ", "vllm@,sglang", ","]


@pytest.mark.parametrize("spec", BAD_SPECS)
def test_resolve_rejects_empty_and_versionless_specs(spec: str) -> None:
    with pytest.raises(InvalidArgumentError):
        resolve_engines(spec)


def test_good_specs_still_resolve() -> None:
    assert resolve_engines("sglang")
    assert resolve_engines("all")


@pytest.mark.parametrize("spec", ["", "sglang@"])
def test_validate_api_rejects(tmp_path, spec: str) -> None:
    (tmp_path / "x.safetensors").write_bytes(b"\x02\0\0\0\0\0\0\0{}")
    with pytest.raises(InvalidArgumentError):
        eagle3_inspect.validate(tmp_path / "x.safetensors", engine=spec, stats=False)


@pytest.mark.parametrize("spec", ["", "sglang@"])
def test_validate_cli_rejects_in_one_line(tmp_path, spec: str) -> None:
    (tmp_path / "x.safetensors").write_bytes(b"\x02\0\0\0\0\0\0\0{}")
    cmd = [sys.executable, "-m", "eagle3_inspect", "validate", str(tmp_path), "--engine", spec]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "engine" in done.stderr
