"""fix never touches SRC and never leaves a partial DST: existing or overlapping destinations,
a read-only destination, a full one (RLIMIT_FSIZE in a subprocess), a process killed between
two shards, and corrupt input each end with SRC byte-identical, no DST and a one-line error."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from eagle3_inspect.commands.fix import fix
from eagle3_inspect.errors import InvalidArgumentError
from tests.commands.fix.helpers import ENGINE, mislabelled, tree_digest
from tests.signals import INSTALL_SIGINT_HANDLER


def _cli(*args: str, preexec=None, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "eagle3_inspect", "fix", *args],
        capture_output=True,
        text=True,
        preexec_fn=preexec,
        env=env,
        timeout=300,
    )


def _one_error_line(result: subprocess.CompletedProcess) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert len(lines) == 1 and lines[0].startswith("eagle3-inspect: "), result.stderr
    return lines[0]


def _leftovers(parent: Path) -> list[Path]:
    return sorted(parent.glob(".*fix-tmp*"))


def test_existing_dst_is_kept_without_force_and_replaced_with_it(tmp_path: Path) -> None:
    src = mislabelled(tmp_path)
    dst = tmp_path / "dst"
    dst.mkdir()
    (dst / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        fix(src, engine=ENGINE, out=dst)
    assert (dst / "keep.txt").read_text() == "mine"
    report = fix(src, engine=ENGINE, out=dst, force=True)
    assert report.status == "fixed"
    assert not (dst / "keep.txt").exists() and (dst / "model.safetensors").exists()
    assert _leftovers(tmp_path) == []


def test_dst_overlapping_src_is_refused_even_with_force(tmp_path: Path) -> None:
    src = mislabelled(tmp_path)
    digest = tree_digest(src)
    for dst in (src, src / "inside", tmp_path):
        with pytest.raises(InvalidArgumentError):
            fix(src, engine=ENGINE, out=dst, force=True)
    assert tree_digest(src) == digest


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    src = mislabelled(tmp_path)
    report = fix(src, engine=ENGINE, out=tmp_path / "dst", dry_run=True)
    assert report.status == "planned" and report.changes
    assert not (tmp_path / "dst").exists() and _leftovers(tmp_path) == []


def test_sharded_layout_and_index_are_kept(tmp_path: Path) -> None:
    import json

    src = mislabelled(tmp_path, shards=2)
    report = fix(src, engine=ENGINE, out=tmp_path / "dst")
    assert report.status == "fixed"
    shards = sorted(p.name for p in src.glob("*.safetensors"))
    assert sorted(p.name for p in (tmp_path / "dst").glob("*.safetensors")) == shards
    index = json.loads((tmp_path / "dst" / "model.safetensors.index.json").read_text())
    renames = {c["from"]: c["to"] for c in report.changes if c["kind"] == "rename"}
    old = json.loads((src / "model.safetensors.index.json").read_text())["weight_map"]
    assert index["weight_map"] == {renames.get(k, k): v for k, v in old.items()}
    sizes = sum((tmp_path / "dst" / s).stat().st_size for s in shards)
    assert index["metadata"]["total_size"] == sizes


def _make_read_only(directory: Path):
    """Makes `directory` refuse new entries; returns the undo. root ignores permission bits,
    so as root the directory is made immutable (chattr +i) instead."""
    if os.geteuid() != 0:
        directory.chmod(0o555)
        return lambda: directory.chmod(0o755)
    subprocess.run(["chattr", "+i", str(directory)], check=True)
    return lambda: subprocess.run(["chattr", "-i", str(directory)], check=True)


def test_read_only_destination(tmp_path: Path) -> None:
    src = mislabelled(tmp_path)
    parent = tmp_path / "ro"
    parent.mkdir()
    digest = tree_digest(src)
    undo = _make_read_only(parent)
    try:
        result = _cli(str(src), "--engine", ENGINE, "--out", str(parent / "dst"))
        line = _one_error_line(result)
        # Refused when the command line is parsed (issue 24 item 6), before anything is read.
        assert "--out" in line and "is not writable" in line, line
        assert not (parent / "dst").exists() and _leftovers(parent) == []
    finally:
        undo()
    assert tree_digest(src) == digest


def test_full_destination_via_rlimit_fsize(tmp_path: Path) -> None:
    src = mislabelled(tmp_path)
    digest = tree_digest(src)

    def limit() -> None:
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (32 * 1024, 32 * 1024))

    result = _cli(str(src), "--engine", ENGINE, "--out", str(tmp_path / "dst"), preexec=limit)
    line = _one_error_line(result)
    assert "too large" in line.lower(), line
    assert not (tmp_path / "dst").exists() and _leftovers(tmp_path) == []
    assert tree_digest(src) == digest


KILL_AFTER_FIRST_SHARD = textwrap.dedent(
    """
    import os, signal, sys
    from eagle3_inspect.commands.fix import output
    real = output.write_safetensors
    def write_then_die(dest, *args):
        real(dest, *args)
        os.kill(os.getpid(), signal.SIGKILL)
    output.write_safetensors = write_then_die
    from eagle3_inspect.commands.fix import fix
    fix(sys.argv[1], engine=sys.argv[2], out=sys.argv[3])
    """
)


def test_killed_midway_leaves_no_dst_and_the_next_run_cleans_up(tmp_path: Path) -> None:
    src = mislabelled(tmp_path, shards=2)
    digest = tree_digest(src)
    dst = tmp_path / "dst"
    script = [sys.executable, "-c", KILL_AFTER_FIRST_SHARD, str(src), ENGINE, str(dst)]
    result = subprocess.run(script, capture_output=True, timeout=300)
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert not dst.exists()
    assert len(_leftovers(tmp_path)) == 1, "the killed run's staging directory"
    assert (tmp_path / ".dst.fix-lock").exists(), "its lock file, no longer held by anyone"
    assert tree_digest(src) == digest
    assert fix(src, engine=ENGINE, out=dst).status == "fixed"
    assert _leftovers(tmp_path) == [] and not (tmp_path / ".dst.fix-lock").exists()


def test_corrupt_source_is_refused_with_its_finding_code(tmp_path: Path) -> None:
    src = mislabelled(tmp_path)
    shard = src / "model.safetensors"
    shard.write_bytes(shard.read_bytes()[:-100])
    digest = tree_digest(src)
    result = _cli(str(src), "--engine", ENGINE, "--out", str(tmp_path / "dst"))
    line = _one_error_line(result)
    assert line.startswith("eagle3-inspect: refused: ST"), line
    # The line names the shard and where in it, as validate's finding does.
    assert f"in {shard}" in line and "at byte " in line, line
    assert not (tmp_path / "dst").exists()
    assert tree_digest(src) == digest


def test_missing_source_is_one_line(tmp_path: Path) -> None:
    result = _cli(str(tmp_path / "nope"), "--engine", ENGINE, "--out", str(tmp_path / "dst"))
    assert "nope" in _one_error_line(result)


def test_ctrl_c_midway_cleans_up_its_staging_directory(tmp_path: Path) -> None:
    src = mislabelled(tmp_path, shards=2)
    digest = tree_digest(src)
    dst = tmp_path / "dst"
    kill = KILL_AFTER_FIRST_SHARD.replace("signal.SIGKILL", "signal.SIGINT")
    script = INSTALL_SIGINT_HANDLER + kill  # not inherited from a background job's shell
    result = subprocess.run(
        [sys.executable, "-c", script, str(src), ENGINE, str(dst)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode != 0 and "KeyboardInterrupt" in result.stderr, result.stderr
    assert not dst.exists() and _leftovers(tmp_path) == []
    assert tree_digest(src) == digest
