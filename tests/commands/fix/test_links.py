"""Links in a plain SRC directory (issue 22, item 1): one containment rule for the reader and for
fix's copying. A link that leaves SRC is refused before any work (IX010, one line naming the
link; nothing written, nothing from outside in any DST); a link to a directory is never entered
(a loop `ln -s . SRC/self` is copied as the link it is); a link to a file inside is the file;
FIFOs are never opened. Each case reproduces what main did: copied an outside `sub/id_rsa` into
DST, failed on `/etc` with a Python list as the message, recursed into `self` until a
RecursionError."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eagle3_inspect.commands.fix import fix
from eagle3_inspect.errors import InvalidCheckpointError
from tests.commands.fix.helpers import ENGINE, mislabelled, tree_digest


def _cli(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "eagle3_inspect", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "sub" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    return outside


def _nothing_written(tmp_path: Path) -> bool:
    return not (tmp_path / "dst").exists() and not list(tmp_path.glob(".dst.fix-*"))


def test_a_directory_link_out_of_src_is_refused_and_nothing_leaks(tmp_path: Path) -> None:
    src = mislabelled(tmp_path)
    (src / "linked").symlink_to(_outside(tmp_path))
    digest = tree_digest(src)
    run = _cli("fix", src, "--engine", ENGINE, "--out", tmp_path / "dst")
    assert run.returncode == 2, run.stdout + run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and "linked" in lines[0] and "IX010" in lines[0], run.stderr
    assert _nothing_written(tmp_path)
    assert not list(tmp_path.rglob("dst*/**/id_rsa"))
    assert tree_digest(src) == digest
    dry = _cli("fix", src, "--engine", ENGINE, "--out", tmp_path / "dst", "--dry-run")
    assert dry.returncode == 2 and "IX010" in dry.stderr  # refused before planning too


def test_a_link_to_etc_is_one_clear_line_not_a_list(tmp_path: Path) -> None:
    src = mislabelled(tmp_path)
    (src / "etc").symlink_to("/etc")
    run = _cli("fix", src, "--engine", ENGINE, "--out", tmp_path / "dst")
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "[(" not in run.stderr, run.stderr
    assert "etc" in run.stderr and "outside the checkpoint" in run.stderr
    assert _nothing_written(tmp_path)


def test_a_link_loop_is_copied_as_a_link_not_recursed(tmp_path: Path) -> None:
    src = mislabelled(tmp_path)
    (src / "self").symlink_to(".")
    (src / "extra" / "deeper").mkdir(parents=True)
    (src / "extra" / "deeper" / "notes.txt").write_text("kept")
    (src / "extra" / "up").symlink_to("..")  # back to SRC: a loop one level down
    (src / "tokenizer.json").write_text('{"model": "bpe"}')
    (src / "tok-link.json").symlink_to("tokenizer.json")  # a link to a file inside: the file
    os.mkfifo(src / "pipe")  # never opened (an open would block the run)
    report = fix(src, engine=ENGINE, out=tmp_path / "dst")
    assert report.status == "fixed"
    dst = tmp_path / "dst"
    assert os.readlink(dst / "self") == "."
    assert os.readlink(dst / "extra" / "up") == ".."
    assert (dst / "extra" / "deeper" / "notes.txt").read_text() == "kept"
    assert not (dst / "tok-link.json").is_symlink()
    assert json.loads((dst / "tok-link.json").read_text()) == {"model": "bpe"}
    assert not (dst / "pipe").exists()
    assert sorted(report.side_files) == ["extra", "self", "tok-link.json", "tokenizer.json"]


def test_a_file_link_out_of_src_and_a_deep_link_out_are_refused(tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    src = mislabelled(tmp_path)
    (src / "a" / "b").mkdir(parents=True)
    (src / "a" / "b" / "key").symlink_to(outside / "sub" / "id_rsa")
    with pytest.raises(InvalidCheckpointError, match=r"a/b/key.*IX010"):
        fix(src, engine=ENGINE, out=tmp_path / "dst")
    assert _nothing_written(tmp_path)


def test_a_deep_tree_of_side_files_is_walked_without_recursion(tmp_path: Path) -> None:
    src = mislabelled(tmp_path)
    deep = src / "d"
    for _ in range(300):  # deeper than a recursive walk of a few frames per level would go
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "leaf.txt").write_text("leaf")
    assert fix(src, engine=ENGINE, out=tmp_path / "dst").status == "fixed"
    copied = tmp_path / "dst" / deep.relative_to(src) / "leaf.txt"
    assert copied.read_text() == "leaf"


def test_the_reader_holds_a_plain_directory_to_the_same_rule(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.safetensors").write_bytes(b"SECRETSS" + b"x" * 64)
    src = mislabelled(tmp_path)
    (src / "model-2.safetensors").symlink_to(outside / "secret.safetensors")
    run = _cli("scan", "--json", src)
    findings = json.loads(run.stdout)["findings"]
    escapes = [f for f in findings if f["code"] == "IX010"]
    assert len(escapes) == 1 and escapes[0]["file"].endswith("model-2.safetensors"), findings
    assert "SECRETSS" not in run.stdout
    assert str(int.from_bytes(b"SECRETSS", "little")) not in run.stdout
