"""fix from every kind of SRC the reader resolves: one `.safetensors` file (config.json beside
it), a sharded directory with an index (or the index file itself: side files are copied as for
the directory), and a Hugging Face cache repository or one of its
snapshots (files linked into `blobs/`). Each writes the same fixed drafter, never modifies SRC
(every file under it hashed before and after, blobs and refs included) and refuses a DST inside
SRC, or SRC inside DST, in every form."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from eagle3_inspect.commands.fix import fix
from eagle3_inspect.errors import InvalidArgumentError, InvalidCheckpointError
from tests.commands.fix.helpers import ENGINE, load_all, mislabelled, tree_digest
from tests.hf_cache import hf_cache_repo


def _hf_cache(plain: Path, root: Path) -> Path:
    """`plain`'s files as a Hugging Face cache repository (snapshot `abc123`)."""
    return hf_cache_repo(root, {f.name: f for f in plain.iterdir()})


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("sources")
    single = mislabelled(root / "single")
    sharded = mislabelled(root / "sharded", shards=2)
    (sharded / "tokenizer.json").write_text('{"model": "bpe"}')
    repo = _hf_cache(sharded, root / "hub")
    return {
        "single-file": single / "model.safetensors",
        "sharded-dir": sharded,
        "index-file": sharded / "model.safetensors.index.json",
        "hf-repo": repo,
        "hf-snapshot": repo / "snapshots" / "abc123",
    }


def _owner(kind: str, path: Path) -> Path:
    """The tree SRC is made of: a single file's directory, an HF repo for a snapshot too."""
    owners = {"single-file": path.parent, "index-file": path.parent}
    return owners.get(kind, path.parent.parent if kind == "hf-snapshot" else path)


KINDS = ["single-file", "sharded-dir", "index-file", "hf-repo", "hf-snapshot"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("reference") / "dst"
    src = mislabelled(out.parent / "src")
    assert fix(src, engine=ENGINE, out=out).status == "fixed"
    return {"tensors": load_all(out), "config": json.loads((out / "config.json").read_text())}


@pytest.mark.parametrize("kind", KINDS)
def test_fix_from_each_kind_of_source(sources, reference, tmp_path: Path, kind: str) -> None:
    src = sources[kind]
    owner = _owner(kind, src)
    digest = tree_digest(owner)
    dst = tmp_path / "dst"
    report = fix(src, engine=ENGINE, out=dst)
    assert report.status == "fixed", report.to_dict()
    assert report.verification["ok"] and report.verification["diff"]["problems"] == []
    assert load_all(dst) == reference["tensors"]
    assert json.loads((dst / "config.json").read_text()) == reference["config"]
    written = sorted(p.name for p in dst.iterdir())
    if kind == "single-file":
        assert written == ["config.json", "model.safetensors"] and report.side_files == []
    else:
        shards = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
        index = "model.safetensors.index.json"
        assert written == sorted(["config.json", index, "tokenizer.json", *shards])
        assert report.side_files == ["tokenizer.json"]
        assert (dst / "tokenizer.json").read_text() == '{"model": "bpe"}'
    # DST holds files, never links back into the source (an HF snapshot is all links).
    assert not any(p.is_symlink() for p in dst.rglob("*"))
    assert tree_digest(owner) == digest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dst"]


def _inside(kind: str, src: Path) -> list[Path]:
    """DSTs that lie inside SRC, or that SRC lies inside, for this kind of source."""
    owner = _owner(kind, src)
    out = [src, owner / "fixed", owner.parent]
    if kind.startswith("hf-"):
        repo = owner
        out += [repo / "fixed", repo / "blobs" / "fixed", repo / "snapshots" / "abc123" / "x"]
        out += [repo / "snapshots" / "fixed", repo / "refs" / "fixed"]
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_dst_inside_or_around_src_is_refused(sources, kind: str) -> None:
    src = sources[kind]
    owner = _owner(kind, src)
    digest = tree_digest(owner)
    for dst in _inside(kind, src):
        with pytest.raises(InvalidArgumentError, match="overlaps the source checkpoint"):
            fix(src, engine=ENGINE, out=dst, force=True)
        with pytest.raises(InvalidArgumentError):
            fix(src, engine=ENGINE, out=dst, dry_run=True)
    assert tree_digest(owner) == digest


def test_dst_next_to_an_hf_repo_is_allowed(sources, tmp_path: Path) -> None:
    """Only the repository is SRC: a sibling of it in the hub cache is a fine DST."""
    repo = sources["hf-repo"]
    dst = repo.parent / "fixed-drafter"
    try:
        assert fix(sources["hf-snapshot"], engine=ENGINE, out=dst).status == "fixed"
    finally:
        shutil.rmtree(dst, ignore_errors=True)


@pytest.mark.parametrize("nested", [False, True], ids=["side-file", "in-side-directory"])
def test_hf_snapshot_side_file_linking_outside_the_repo_is_not_copied(
    tmp_path: Path, nested: bool
) -> None:
    repo = _hf_cache(mislabelled(tmp_path / "plain"), tmp_path / "hub")
    snap = repo / "snapshots" / "abc123"
    secret = tmp_path / "secret.txt"
    secret.write_text("not part of the drafter")
    where = snap / "extra" if nested else snap
    where.mkdir(exist_ok=True)
    os.symlink(secret, where / "tokenizer.json")
    digest = tree_digest(repo)
    with pytest.raises(InvalidCheckpointError, match="IX010") as info:
        fix(repo, engine=ENGINE, out=tmp_path / "dst")
    assert str(where / "tokenizer.json") in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hub", "plain", "secret.txt"]
    assert tree_digest(repo) == digest
