"""fix's verification: every byte is checked while it is written and nothing is read twice. The
write reads each tensor back from the file it wrote and compares it with its source, under the
name and at the range the package's reader finds; `verify` matches those records to the plan
and gives `validate` the statistics of the bytes read back. A write that put the wrong bytes
under a name, or records that do not match the plan, is "unverified"; a fixed run reads SRC's
tensor data once and DST's not at all after the write."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from eagle3_inspect import _native
from eagle3_inspect.commands.fix import fix, output
from eagle3_inspect.reader import checkpoint
from eagle3_inspect.writer import WrittenFile
from tests.commands.fix.helpers import ENGINE, mislabelled


@pytest.fixture
def src(tmp_path: Path) -> Path:
    return mislabelled(tmp_path, shards=2)


def test_a_fixed_run_reads_no_tensor_data_after_the_write(
    src: Path, tmp_path: Path, monkeypatch
) -> None:
    passes: list[str] = []
    real_stats = checkpoint.compute_stats

    def counted_stats(native, names, **kw):
        passes.append(f"stats of {None if names is None else list(names)}")
        return real_stats(native, names, **kw)

    monkeypatch.setattr(checkpoint, "compute_stats", counted_stats)
    monkeypatch.setattr(_native, "diff_pairs", lambda *a, **k: passes.append("diff") or [])
    report = fix(src, engine=ENGINE, out=tmp_path / "dst")
    assert report.status == "fixed", report.verification
    assert report.verification["diff"]["equal_tensors"] > 0
    # validate of DST took its statistics from the write: no pass, no diff of the data.
    assert passes == []


def _swap_two_sources(real):
    """A writer that copies the bytes of one tensor under another's name (same dtype and shape)."""

    def swapped(dest, copied, *rest):
        by_name = {c[0]: c for c in copied}
        pair = [n for n in by_name if n.endswith(("k_proj.weight", "v_proj.weight"))]
        if len(pair) == 2:
            (ka, fa, sa), (kb, fb, sb) = by_name[pair[0]], by_name[pair[1]]
            by_name[pair[0]], by_name[pair[1]] = (ka, fb, sb), (kb, fa, sa)
        return real(dest, list(by_name.values()), *rest)

    return swapped


def test_bytes_of_the_wrong_source_under_a_name_are_not_verified(
    src: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(output, "write_safetensors", _swap_two_sources(output.write_safetensors))
    report = fix(src, engine=ENGINE, out=tmp_path / "dst")
    assert report.status == "unverified"
    problems = report.verification["diff"]["problems"]
    assert any("k_proj.weight" in p and "was written from" in p for p in problems), problems
    assert not (tmp_path / "dst").exists()


def test_a_tensor_read_back_different_is_not_verified(
    src: Path, tmp_path: Path, monkeypatch
) -> None:
    real = output.write_safetensors

    def corrupted(dest, *args):
        written: WrittenFile = real(dest, *args)
        first = dataclasses.replace(written.tensors[0], problem="its bytes differ at byte 7")
        return dataclasses.replace(written, tensors=(first, *written.tensors[1:]))

    monkeypatch.setattr(output, "write_safetensors", corrupted)
    report = fix(src, engine=ENGINE, out=tmp_path / "dst")
    assert report.status == "unverified"
    assert any("its bytes differ at byte 7" in p for p in report.verification["diff"]["problems"])


def test_the_write_reports_statistics_of_what_it_read_back(src: Path, tmp_path: Path) -> None:
    from eagle3_inspect.reader.checkpoint import Checkpoint
    from eagle3_inspect.writer import write_safetensors

    ckpt = Checkpoint(src)
    name = sorted(ckpt.tensors)[0]
    info = ckpt.tensors[name]
    written = write_safetensors(tmp_path / "one.safetensors", [("x", info.file, name)], [], None)
    assert [t.name for t in written.tensors] == ["x"] and written.tensors[0].problem is None
    assert written.tensors[0].source_file == info.file
    again = Checkpoint(tmp_path / "one.safetensors").stats()
    assert dict(written.stats) == dict(again)
    assert dict(ckpt.stats([name]))[name] == again["x"]
