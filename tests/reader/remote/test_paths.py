"""Remote paths end to end: revisions (branch, tag, commit), subfolders, the local HF cache,
`eagle3_inspect.open`, remote on both sides of diff, a shard the index names but the server
lacks (IX001, as locally), and hf:// without huggingface_hub."""

from __future__ import annotations

import shutil
import sys

import pytest

import eagle3_inspect
from eagle3_inspect.errors import MissingDependencyError
from eagle3_inspect.reader.remote import traffic_of

hub_client = pytest.importorskip("huggingface_hub")


def test_open_reads_a_hub_model(hub, published):
    ckpt = eagle3_inspect.open("hf://demo/sharded")
    assert ckpt.path == "hf://demo/sharded"
    assert set(ckpt.tensors) == set(eagle3_inspect.open(published.sharded).tensors)
    assert traffic_of(ckpt).requests == len(hub.requests())


@pytest.mark.parametrize("revision", ["main", "v1.0", "commit"])
def test_every_kind_of_revision_reads_that_commit(hub, published, revision):
    commit = published.commits["demo/drafter"]
    rev = commit if revision == "commit" else revision
    ckpt = eagle3_inspect.open(f"hf://demo/drafter@{rev}")
    assert set(ckpt.tensors) == set(eagle3_inspect.open(published.drafter).tensors)
    assert all(commit in s.path for s in hub.requests("/resolve/"))


def test_a_branch_holding_another_commit(hub, published):
    report = eagle3_inspect.diff("hf://demo/drafter@broken-branch", published.broken)
    assert report.identical
    assert not eagle3_inspect.diff("hf://demo/drafter@main", published.broken).ok


def test_a_subfolder(hub, published):
    report = eagle3_inspect.diff("hf://demo/nested/eagle3", published.drafter)
    assert report.identical


def test_remote_on_both_sides_of_diff(hub):
    report = eagle3_inspect.diff("hf://demo/drafter", "hf://demo/drafter@broken-branch")
    assert not report.ok
    sides = [s["side"] for s in report.to_dict()["remote"]["sources"]]
    assert sides == ["a", "b"]


def test_a_file_in_the_hf_cache_costs_no_request(hub, published, tmp_path):
    hub_client.hf_hub_download(
        "demo/sharded",
        "model-00002-of-00003.safetensors",
        endpoint=hub.url,
        cache_dir=tmp_path / "hf-cache",
        token=False,
    )
    hub.clear()
    report = eagle3_inspect.scan("hf://demo/sharded", stats=True)
    assert report.stats is not None and len(report.stats) == len(report.tensors)
    assert hub.requests("model-00002") == []
    assert hub.requests("model-00001") and hub.requests("model-00003")
    here = eagle3_inspect.scan(published.sharded, stats=True)
    assert {n: s.to_dict() for n, s in report.stats.items()} == {
        n: s.to_dict() for n, s in here.stats.items()
    }


def test_a_shard_missing_on_the_server_is_ix001_as_locally(hub, published, tmp_path):
    web = hub.root / "web" / "missing-shard"
    shutil.copytree(published.sharded, web)
    (web / "model-00002-of-00003.safetensors").unlink()
    local = tmp_path / "local"
    shutil.copytree(web, local)
    remote = eagle3_inspect.scan(f"{hub.url}/files/web/missing-shard/model.safetensors.index.json")
    here = eagle3_inspect.scan(local / "model.safetensors.index.json")
    codes = sorted(f.code for f in remote.findings)
    assert "IX001" in codes
    assert codes == sorted(f.code for f in here.findings)


def test_hf_paths_without_huggingface_hub_say_what_to_install(hub, monkeypatch):
    for name in list(sys.modules):
        if name == "huggingface_hub" or name.startswith("huggingface_hub."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    with pytest.raises(MissingDependencyError, match=r"eagle3-inspect\[hub\]"):
        eagle3_inspect.open("hf://demo/drafter")


def test_offline_reads_the_cached_snapshot_without_a_request(hub, published, tmp_path, monkeypatch):
    for name in ("config.json", "model.safetensors"):
        hub_client.hf_hub_download(
            "demo/drafter",
            name,
            revision="v1.0",
            endpoint=hub.url,
            cache_dir=tmp_path / "hf-cache",
            token=False,
        )
    hub.clear()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    report = eagle3_inspect.diff("hf://demo/drafter@v1.0", published.drafter)
    assert report.identical
    assert hub.requests() == []
    with pytest.raises(eagle3_inspect.errors.RemoteSourceError, match="HF_HUB_OFFLINE"):
        eagle3_inspect.open("hf://demo/sharded")


def test_a_pull_request_ref_with_a_subfolder(hub, published, tmp_path):
    folder = tmp_path / "pr"
    shutil.copytree(published.sharded, folder / "eagle3")
    if "refs/pr/1" not in hub.repos["demo/nested"].refs:
        hub.add_repo("demo/nested", folder, refs=("refs/pr/1",))
    report = eagle3_inspect.diff("hf://demo/nested@refs/pr/1/eagle3", published.sharded)
    assert report.identical
    assert report.a.root == "hf://demo/nested@refs/pr/1/eagle3"
