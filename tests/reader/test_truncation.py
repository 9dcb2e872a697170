"""A shard truncated while its data is read gives an IX011 finding, never a SIGBUS death, for
both the API (the interpreter survives) and the CLI (exit 1 with the finding)."""

from __future__ import annotations

import json
import os
import random
import struct
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import eagle3_inspect

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX mmap faults")

TENSORS = 4
TENSOR_BYTES = 16 << 20


def sparse_shard(path) -> tuple[int, int]:
    """A valid file of TENSORS BF16 tensors whose data is a hole; returns (data_start, size)."""
    entries = {
        f"w{i}": {
            "dtype": "BF16",
            "shape": [TENSOR_BYTES // 2],
            "data_offsets": [i * TENSOR_BYTES, (i + 1) * TENSOR_BYTES],
        }
        for i in range(TENSORS)
    }
    header = json.dumps(entries)
    header += " " * (-(8 + len(header)) % 8)
    data_start = 8 + len(header)
    size = data_start + TENSORS * TENSOR_BYTES
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header.encode())
        f.truncate(size)
    return data_start, size


def check_outcome(stats: dict, findings: list) -> bool:
    """Either every tensor's statistics, or IX011 findings for exactly the missing ones."""
    changed = {f.tensor for f in findings if f.code == "IX011"}
    assert all(f.file and f.offset is not None for f in findings if f.code == "IX011")
    assert set(stats) | changed == {f"w{i}" for i in range(TENSORS)}
    assert not set(stats) & changed
    return bool(changed)


def test_truncation_before_the_data_pass_is_a_finding(tmp_path):
    path = tmp_path / "m.safetensors"
    data_start, _ = sparse_shard(path)
    ckpt = eagle3_inspect.open(path)
    cut = data_start + TENSOR_BYTES + 5000  # inside w1, not on a page boundary
    os.truncate(path, cut)
    report = eagle3_inspect.scan(ckpt, stats=True)
    ix011 = {f.tensor: f for f in report.findings if f.code == "IX011"}
    assert sorted(ix011) == ["w1", "w2", "w3"]
    assert ix011["w1"].offset >= cut - 4096 and ix011["w1"].file == str(path)
    assert sorted(report.stats) == ["w0"]
    assert not report.ok


def test_truncation_during_api_stats_never_kills_the_interpreter(tmp_path):
    rng = random.Random(10)
    outcomes = []
    for i in range(24):
        path = tmp_path / f"m{i}.safetensors"
        data_start, size = sparse_shard(path)
        ckpt = eagle3_inspect.open(path)
        cut = rng.randrange(data_start, size)
        # Half the runs truncate before the pass starts, half at a random moment during it.
        delay = 0.0 if i % 2 == 0 else rng.uniform(0.0, 0.05)
        timer = threading.Timer(delay, os.truncate, (path, cut))
        timer.start()
        if delay == 0.0:
            timer.join()
        stats = ckpt.stats(threads=2)
        timer.join()
        outcomes.append(check_outcome(stats, ckpt.findings))
    assert any(outcomes[0::2]), "truncating before the pass must give a finding"


CHILD = textwrap.dedent("""
    import os, sys
    from eagle3_inspect.reader import checkpoint
    from eagle3_inspect.cli import main

    path, cut = sys.argv[1], int(sys.argv[2])
    opened = checkpoint.Checkpoint.__init__

    def open_then_truncate(self, p):
        opened(self, p)
        os.truncate(path, cut)

    checkpoint.Checkpoint.__init__ = open_then_truncate
    sys.argv = ["eagle3-inspect", "scan", "--stats", "--json", path]
    main()
""")


def test_cli_truncated_after_open_exits_1_with_the_finding(tmp_path):
    path = tmp_path / "m.safetensors"
    data_start, _ = sparse_shard(path)
    cut = data_start + 3 * TENSOR_BYTES + 123
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(cut)], capture_output=True, text=True
    )
    assert child.returncode == 1, (child.returncode, child.stderr)
    found = json.loads(child.stdout)["findings"]
    assert [(f["code"], f["tensor"]) for f in found] == [("IX011", "w3")]


def test_cli_truncated_at_random_moments_never_dies_of_a_signal(tmp_path):
    rng = random.Random(11)
    for i in range(20):
        path = tmp_path / f"m{i}.safetensors"
        data_start, size = sparse_shard(path)
        child = subprocess.Popen(
            [sys.executable, "-m", "eagle3_inspect", "scan", "--stats", "--json", str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        threading.Event().wait(rng.uniform(0.0, 0.6))
        os.truncate(path, rng.randrange(data_start, size))
        out, err = child.communicate(timeout=120)
        assert child.returncode in (0, 1), (child.returncode, err)
        if child.returncode == 1:
            # Truncated during the pass: IX011; before the open: an ST finding about the header.
            found = json.loads(out)["findings"]
            assert any(f["severity"] == "error" for f in found), found


def test_a_fault_outside_guarded_mappings_still_kills_the_process(tmp_path):
    """The handler only recovers its own mappings: any other SIGBUS keeps its default action."""
    path = tmp_path / "other.bin"
    path.write_bytes(b"\1" * (1 << 20))
    shard = tmp_path / "m.safetensors"
    sparse_shard(shard)
    script = textwrap.dedent(f"""
        import mmap, os, eagle3_inspect
        ckpt = eagle3_inspect.open({str(shard)!r})  # installs the handler
        with open({str(path)!r}, "rb") as f:
            view = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        os.truncate({str(path)!r}, 0)
        print(view[512 * 1024])
    """)
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert child.returncode == -7, (child.returncode, child.stderr)  # SIGBUS


def test_diff_over_a_truncated_file_reports_ix011(tmp_path):
    a, b = tmp_path / "a.safetensors", tmp_path / "b.safetensors"
    data_start, _ = sparse_shard(a)
    sparse_shard(b)
    ca, cb = eagle3_inspect.open(a), eagle3_inspect.open(b)
    os.truncate(b, data_start + 2 * TENSOR_BYTES + 10)
    report = eagle3_inspect.diff(ca, cb)
    changed = sorted(f.tensor for f in cb.findings if f.code == "IX011")
    assert changed == ["w2", "w3"]
    status = {p.name: p.status for p in report.pairs}
    assert status == {"w0": "equal", "w1": "equal", "w2": "differ", "w3": "differ"}


def test_a_numpy_view_of_a_file_that_shrinks_reads_zeros_not_sigbus(tmp_path):
    """Checkpoint.tensor() views stay guarded while the view lives: bytes past the new end read
    as zeros, and the next stats() over the tensor reports IX011."""
    path = tmp_path / "m.safetensors"
    data_start, _ = sparse_shard(path)
    ckpt = eagle3_inspect.open(path)
    view = ckpt.tensor("w3")
    del ckpt  # the view alone keeps the mapping (and its guard) alive
    os.truncate(path, data_start + 3 * TENSOR_BYTES)
    assert not view.astype("float32").any()
    reopened_before = eagle3_inspect.open(path)  # the truncated file: now an ST finding
    assert reopened_before.errors


def test_vocab_analysis_over_a_truncated_file_reports_ix011(tmp_path):
    from eagle3_inspect.synthetic.writer import write_safetensors

    path = tmp_path / "m.safetensors"
    d2t = (np.arange(8192, dtype=np.int64) * 3) - np.arange(8192, dtype=np.int64)
    write_safetensors(path, {"d2t": d2t})
    ckpt = eagle3_inspect.open(path)
    os.truncate(path, ckpt.tensors["d2t"].offset + 100)
    mapping = ckpt.vocab_mapping(target_vocab=30000)
    assert [(f.code, f.tensor) for f in mapping.findings if f.code == "IX011"] == [("IX011", "d2t")]
