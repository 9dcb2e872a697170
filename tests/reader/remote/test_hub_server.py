"""The local Hub is faithful enough for the real `huggingface_hub` client: model info with the
file list, file metadata through the LFS redirect, a download into the cache, ranged reads."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import pytest

hub_client = pytest.importorskip("huggingface_hub")


def test_model_info_lists_files_with_sizes_and_the_commit(hub, published):
    info = hub_client.HfApi(endpoint=hub.url).model_info(
        "demo/sharded", revision="v1.0", files_metadata=True
    )
    assert info.sha == published.commits["demo/sharded"]
    sizes = {s.rfilename: s.size for s in info.siblings}
    assert (
        sizes["model-00001-of-00003.safetensors"]
        == (published.sharded / "model-00001-of-00003.safetensors").stat().st_size
    )
    assert "model.safetensors.index.json" in sizes and "config.json" in sizes


def test_file_metadata_follows_the_lfs_redirect(hub, published):
    url = hub_client.hf_hub_url("big/target", "model-00001-of-00002.safetensors", endpoint=hub.url)
    meta = hub_client.get_hf_file_metadata(url, token=False)
    assert meta.commit_hash == published.commits["big/target"]
    assert meta.size == (published.huge / "model-00001-of-00002.safetensors").stat().st_size
    assert meta.size > 100 * (1 << 30)
    assert hub.bytes_served() < 2048  # metadata only


def test_download_lands_in_the_cache(hub, tmp_path, published):
    path = hub_client.hf_hub_download(
        "demo/drafter", "config.json", endpoint=hub.url, cache_dir=tmp_path / "c", token=False
    )
    assert Path(path).read_text() == (published.drafter / "config.json").read_text()


def test_ranges_are_honoured_and_counted(hub):
    url = f"{hub.cdn}/cdn/big/target/{next(iter(hub.repos['big/target'].commits))}/"
    request = urllib.request.Request(
        url + "model-00002-of-00002.safetensors", headers={"Range": "bytes=0-7"}
    )
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 206
        assert len(answer.read()) == 8
        assert answer.headers["Content-Range"].startswith("bytes 0-7/")
    assert hub.bytes_served("model-00002") == 8
