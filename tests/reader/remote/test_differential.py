"""Differential: the same checkpoint local and on the (local) Hub gives the same findings, tensor
tables and statistics; only the path strings differ. Damaged copies included."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import eagle3_inspect
from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.synthetic.demo import ENGINE
from tests.reader.remote.test_commands import findings_without_paths, tensor_table

pytest.importorskip("huggingface_hub")


def truncated(folder: Path, out: Path) -> Path:
    shutil.copytree(folder, out)
    weights = out / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) - 1000])
    return out


def bad_header(folder: Path, out: Path) -> Path:
    shutil.copytree(folder, out)
    weights = out / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[8:12] = b"}}}}"
    weights.write_bytes(bytes(data))
    return out


def bad_config(folder: Path, out: Path) -> Path:
    shutil.copytree(folder, out)
    (out / "config.json").write_text("{not json")
    return out


CASES = {
    "correct": lambda p, _t: p.drafter,
    "broken": lambda p, _t: p.broken,
    "sharded": lambda p, _t: p.sharded,
    "target": lambda p, _t: p.target,
    "truncated": lambda p, t: truncated(p.drafter, t / "truncated"),
    "bad-header": lambda p, t: bad_header(p.drafter, t / "bad-header"),
    "bad-config": lambda p, t: bad_config(p.drafter, t / "bad-config"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_local_and_remote_agree(hub, published, tmp_path, case):
    folder = CASES[case](published, tmp_path)
    repo = f"diff/{case}"
    if repo not in hub.repos:
        hub.add_repo(repo, folder)
    remote_path = f"hf://{repo}"
    remote, here = eagle3_inspect.scan(remote_path), eagle3_inspect.scan(folder)
    assert tensor_table(remote) == tensor_table(here)
    assert findings_without_paths(remote.findings, remote_path) == findings_without_paths(
        here.findings, folder
    )
    if case == "target":
        # A target model is not a drafter: validate refuses it, remotely as locally.
        for path in (remote_path, folder):
            with pytest.raises(InvalidArgumentError, match="this is a target model, not a drafter"):
                eagle3_inspect.validate(path, engine=ENGINE, stats=False)
        return
    for stats in (False, True):
        a = eagle3_inspect.validate(remote_path, engine=ENGINE, stats=stats)
        b = eagle3_inspect.validate(folder, engine=ENGINE, stats=stats)
        assert findings_without_paths(a.findings, remote_path) == findings_without_paths(
            b.findings, folder
        )
        assert a.layout.to_dict() == b.layout.to_dict()
        assert (a.vocab is None) == (b.vocab is None)
        if a.vocab is not None and b.vocab is not None:
            va, vb = a.vocab.to_dict(), b.vocab.to_dict()
            assert {**va, "findings": None} == {**vb, "findings": None}
            assert findings_without_paths(a.vocab.findings, remote_path) == (
                findings_without_paths(b.vocab.findings, folder)
            )
