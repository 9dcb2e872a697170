"""I/O hardening: special files refused without blocking, size caps, paths from file contents
held inside the checkpoint (IX010), the thread cap, IX001 for an index of only missing shards, and
non-UTF-8 file names that round-trip through `--json`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import eagle3_inspect
from eagle3_inspect import _native
from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.synthetic.writer import write_safetensors

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX special files")


def cli(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
    """The CLI in a child with a hang guard (a blocked read would otherwise hang the test run)."""
    command = [sys.executable, "-m", "eagle3_inspect", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def codes(out: str) -> list[str]:
    return [f["code"] for f in json.loads(out)["findings"]]


def shard(path, name="w") -> None:
    write_safetensors(path, {name: np.ones(4, dtype=np.float32)})


def test_a_fifo_named_like_a_shard_is_refused_not_waited_on(tmp_path):
    shard(tmp_path / "a.safetensors")
    os.mkfifo(tmp_path / "b.safetensors")
    run = cli("scan", "--json", tmp_path)
    assert run.returncode == 1, run.stderr
    found = json.loads(run.stdout)["findings"]
    assert any(f["code"] == "IX001" and "FIFO" in f["message"] for f in found), found


def test_a_fifo_or_device_as_config_is_refused(tmp_path):
    shard(tmp_path / "model.safetensors")
    os.mkfifo(tmp_path / "config.json")
    run = cli("scan", "--json", tmp_path)
    assert run.returncode == 1 and "IX009" in codes(run.stdout), run.stderr
    os.unlink(tmp_path / "config.json")
    os.symlink("/dev/zero", tmp_path / "config.json")
    run = cli("scan", "--json", tmp_path)
    # A link out of the checkpoint is not followed at all (IX010); read, the device is refused.
    assert run.returncode == 1 and "IX010" in codes(run.stdout), run.stderr
    with pytest.raises(eagle3_inspect.errors.InvalidCheckpointError, match="device"):
        _native.read_config_text(str(tmp_path / "config.json"))


def test_an_index_over_its_size_cap_is_not_read(tmp_path):
    shard(tmp_path / "model-1.safetensors")
    index = tmp_path / "model.safetensors.index.json"
    with open(index, "wb") as f:
        f.truncate((64 << 20) + 1)  # a hole: no disk used
    run = cli("scan", "--json", tmp_path)
    found = json.loads(run.stdout)["findings"]
    assert any(f["code"] == "IX007" and "limit" in f["message"] for f in found), found


def test_index_entries_outside_the_checkpoint_are_ix010_and_never_read(tmp_path):
    outside = tmp_path / "outside.safetensors"
    outside.write_bytes(b"SECRETSS" + b"x" * 64)  # its first 8 bytes once leaked as a length
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    shard(ckpt / "model-1.safetensors")
    weight_map = {"w": "model-1.safetensors", "v": "../outside.safetensors", "u": "/etc/hostname"}
    (ckpt / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    run = cli("scan", "--json", ckpt)
    assert run.returncode == 1
    assert codes(run.stdout).count("IX010") == 2, run.stdout
    assert "SECRETSS" not in run.stdout and str(int.from_bytes(b"SECRETSS", "little")) not in (
        run.stdout
    )
    # The API gives the same verdict in-process, each finding naming the index file.
    escapes = [f for f in eagle3_inspect.open(ckpt).findings if f.code == "IX010"]
    assert len(escapes) == 2 and all(f.file and f.file.endswith("index.json") for f in escapes)


def test_hf_refs_main_leading_outside_is_ix010(tmp_path):
    repo = tmp_path / "models--org--name"
    snap = repo / "snapshots" / "0123abcd"
    snap.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "blobs").mkdir()
    shard(repo / "blobs" / "b1")
    (snap / "model.safetensors").symlink_to("../../blobs/b1")
    (repo / "refs" / "main").write_text("../../..")
    other = tmp_path / "model.safetensors"  # what `../../..` would have scanned
    shard(other, "other")
    run = cli("scan", "--json", repo)
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    assert "IX010" in codes(run.stdout)
    assert [t["name"] for t in report["tensors"]] == ["w"]


def test_an_index_of_only_missing_shards_is_ix001_exit_1(tmp_path):
    weight_map = {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    run = cli("scan", "--json", tmp_path)
    assert run.returncode == 1, run.stderr
    assert codes(run.stdout) == ["IX001", "IX001"]


def test_threads_above_the_cap_are_refused_at_once(tmp_path):
    path = tmp_path / "model.safetensors"
    shard(path)
    run = cli("scan", "--stats", "--threads", "100000", path)
    assert run.returncode == 2
    assert str(_native.MAX_THREADS) in run.stderr
    ckpt = eagle3_inspect.open(path)
    with pytest.raises(InvalidArgumentError, match="at most"):
        ckpt.stats(threads=_native.MAX_THREADS + 1)
    assert ckpt.stats(threads=_native.MAX_THREADS)["w"].numel == 4


def test_non_utf8_file_names_round_trip_through_json(tmp_path):
    name = os.fsdecode(b"model-\xff\xfe.safetensors")
    path = os.path.join(os.fsdecode(tmp_path), name)
    shard(path)
    run = subprocess.run(
        [sys.executable, "-m", "eagle3_inspect", "scan", "--json", path],
        capture_output=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)  # valid JSON: the undecodable bytes are \\udcXX escapes
    printed = report["files"][0]["path"]
    assert os.fsencode(printed) == os.fsencode(path)
    assert eagle3_inspect.open(printed).tensors["w"].shape == (4,)
