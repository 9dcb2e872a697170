"""Big indexes and many files (issue 22, items 5 and 6): the cost per index entry is bounded
(findings for the first 1,000 of each code and file, then one that counts the rest: on main a
1,000,000-entry index the shard lacks gave a million IX002 findings, 51 s and 1.67 GB in scan),
at most MAX_SHARDS shard files are opened, named or listed (refused in one line before any is
opened), and no descriptor is held per file (on main 2,000 shards under a limit of 256 open
files ended in "[Errno 24] Too many open files")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from eagle3_inspect import _native
from eagle3_inspect.synthetic.writer import write_safetensors

FOLD = "more IX002 findings like the ones above for this file are not listed"


def _cli(*args: str | os.PathLike[str], nofile: int | None = None):
    command = [sys.executable, "-m", "eagle3_inspect", *map(str, args)]
    limit = None
    if nofile is not None:

        def limit() -> None:
            import resource

            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    return subprocess.run(command, capture_output=True, text=True, timeout=600, preexec_fn=limit)


def test_a_million_entries_the_shard_lacks_are_a_thousand_and_one_findings(tmp_path: Path):
    write_safetensors(tmp_path / "model.safetensors", {"t0": np.zeros(1, np.float32)})
    weight_map = {f"t{i}": "model.safetensors" for i in range(1_000_000)}
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    run = _cli("scan", tmp_path, "--format", "concise")
    assert run.returncode == 1, run.stderr
    lines = run.stdout.splitlines()
    ix002 = [line for line in lines if " IX002 " in line]
    assert len(ix002) == 1001 and len(lines) < 1010, len(lines)
    assert ix002[-1].endswith(f"998999 {FOLD} (the first 1000 are)"), ix002[-1]


def test_an_index_naming_more_shards_than_the_cap_is_one_line(tmp_path: Path):
    n = _native.MAX_SHARDS + 1
    weight_map = {f"t{i}": f"model-{i:06d}.safetensors" for i in range(n)}
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    run = _cli("scan", tmp_path)
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert f"names {n} .safetensors files, more than the {_native.MAX_SHARDS}" in run.stderr


def test_a_directory_of_more_shards_than_the_cap_is_one_line(tmp_path: Path):
    n = _native.MAX_SHARDS + 1
    for i in range(n):
        os.close(os.open(tmp_path / f"m{i:06d}.safetensors", os.O_CREAT | os.O_WRONLY, 0o644))
    run = _cli("scan", tmp_path, nofile=256)
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert f"holds {n} .safetensors files" in run.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_NOFILE in the child")
def test_two_thousand_shards_open_under_a_limit_of_256_descriptors(tmp_path: Path):
    write_safetensors(tmp_path / "m0000.safetensors", {"t0000": np.ones(2, np.float32)})
    first = (tmp_path / "m0000.safetensors").read_bytes()
    for i in range(1, 2000):
        # Same layout, another name: "t0000" -> "t%04d" keeps every offset.
        (tmp_path / f"m{i:04d}.safetensors").write_bytes(first.replace(b"t0000", b"t%04d" % i))
    run = _cli("scan", tmp_path, "--json", "--stats", nofile=256)
    assert run.returncode == 0, run.stderr[-500:]
    report = json.loads(run.stdout)
    assert len(report["files"]) == 2000 and len(report["tensors"]) == 2000
    assert {f["code"] for f in report["findings"]} <= {"IX008"}  # many files, no index
