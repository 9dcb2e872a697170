"""`--resume OUT.jsonl` takes only a file this tool wrote (issue 22, item 4). On main a FIFO blocked
for ever, `/dev/zero` was read without limit, a torn last line ending inside a multibyte
character or a binary file gave a bare codec error, a line whose `path` was a list gave a
TypeError, and `scan --resume ck/model.safetensors P` appended JSON lines to a weights file."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eagle3_inspect.synthetic.demo import write_demo

RECORD = '{"schema": "eagle3-inspect/scan/1", "path": '


def _scan(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "eagle3_inspect", "scan", *map(str, args)]
    # The timeout is a hang guard only: a FIFO must be refused at once, not waited on.
    return subprocess.run(command, capture_output=True, timeout=300)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return write_demo(tmp_path_factory.mktemp("demo"))


def _one_line_naming(run: subprocess.CompletedProcess[bytes], name: str) -> str:
    err = run.stderr.decode()
    assert run.returncode == 2, (run.returncode, err)
    assert err.count("\n") == 1 and name in err and "Traceback" not in err, err
    return err


def test_a_fifo_is_refused_without_blocking(demo, tmp_path: Path) -> None:
    fifo = tmp_path / "out.jsonl"
    os.mkfifo(fifo)
    _one_line_naming(_scan(demo.correct, "--resume", fifo), "not a regular file")


def test_dev_zero_is_refused_before_a_byte_is_read(demo) -> None:
    _one_line_naming(_scan(demo.correct, "--resume", "/dev/zero"), "/dev/zero")


def test_a_torn_last_line_inside_a_multibyte_character_is_ignored(demo, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes((RECORD + '"caf\u00e9').encode()[:-1])  # torn inside the 2-byte \u00e9
    run = _scan(demo.correct, demo.broken, "--resume", out)
    assert run.returncode == 0, run.stderr  # header findings of both are warnings at most
    lines = out.read_bytes().split(b"\n")
    records = [json.loads(line) for line in lines[1:] if line]
    scanned = [r["path"] for r in records if r["schema"] == "eagle3-inspect/scan/1"]
    assert scanned == [str(demo.correct), str(demo.broken)]


@pytest.mark.parametrize(
    "content",
    [os.urandom(4096), b"\x00\x01\x02\x03", b"not json at all\n", b'{"a": 1}\n'],
    ids=["random-bytes", "binary", "text", "other-json"],
)
def test_a_file_of_another_format_is_refused_and_left_as_it_was(
    demo, tmp_path: Path, content: bytes
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(content)
    _one_line_naming(_scan(demo.correct, "--resume", out), "out.jsonl")
    assert out.read_bytes() == content


def test_a_checkpoint_given_as_the_resume_file_is_never_written(demo, tmp_path: Path) -> None:
    weights = tmp_path / "ck" / "model.safetensors"
    weights.parent.mkdir()
    weights.write_bytes((demo.correct / "model.safetensors").read_bytes())
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()
    _one_line_naming(_scan("--resume", weights, demo.correct), "model.safetensors")
    assert hashlib.sha256(weights.read_bytes()).hexdigest() == digest


@pytest.mark.parametrize("path", ['["a", "b"]', '{"x": 1}', "12"], ids=["list", "dict", "number"])
def test_a_record_whose_path_is_not_a_string_is_one_line(demo, tmp_path: Path, path: str) -> None:
    out = tmp_path / "out.jsonl"
    text = RECORD + path + ', "summary": {}}\n'
    out.write_text(text)
    err = _one_line_naming(_scan(demo.correct, "--resume", out), "line 1")
    assert "path" in err
    assert out.read_text() == text


def test_records_written_by_earlier_runs_are_skipped(demo, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    assert _scan(demo.correct, "--resume", out).returncode == 0
    assert _scan(demo.correct, demo.target, "--resume", out).returncode == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    scanned = [r["path"] for r in records if r["schema"] == "eagle3-inspect/scan/1"]
    assert scanned == [str(demo.correct), str(demo.target)]
