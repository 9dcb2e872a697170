"""`resolve`: hf:// and http(s):// paths become listings whose files read the same bytes as the
local copies, by range requests that the local Hub counts, or from the HF cache without any."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle3_inspect.errors import InvalidArgumentError, RemoteSourceError
from eagle3_inspect.reader.remote import Traffic, resolve
from eagle3_inspect.reader.remote.http import Transport, _origin
from eagle3_inspect.reader.remote.location import HubLocation, is_remote, parse

hub_client = pytest.importorskip("huggingface_hub")


def same_bytes(listing, folder: Path) -> None:
    for file in listing.files:
        local = (folder / file.name).read_bytes()
        assert file.size == len(local)
        assert file.read(0, 8) == local[:8]
        assert file.read(100, 50) == local[100:150]


@pytest.mark.parametrize(
    ("path", "repo", "revision", "sub"),
    [
        ("hf://org/name", "org/name", None, ""),
        ("hf://org/name@v1.0", "org/name", "v1.0", ""),
        ("hf://org/name@main/sub/dir/", "org/name", "main", "sub/dir"),
        ("hf://org/name/sub", "org/name", None, "sub"),
        ("hf://org/name@refs/pr/3/sub", "org/name", "refs/pr/3", "sub"),
    ],
)
def test_hub_paths_parse(path, repo, revision, sub):
    assert parse(path) == HubLocation(path, repo, revision, sub)


@pytest.mark.parametrize(
    "path",
    ["hf://org", "hf://org/name@", "hf://org/na me", "hf://org/name/../x", "https://h/x.txt"],
)
def test_bad_remote_paths_are_refused(path):
    with pytest.raises(InvalidArgumentError):
        parse(path)


def test_only_remote_strings_are_remote(tmp_path):
    assert is_remote("hf://a/b") and is_remote("https://h/m.safetensors")
    assert not is_remote(str(tmp_path)) and not is_remote(tmp_path)


def test_hub_single_file_drafter(hub, published):
    traffic = Traffic("hf://demo/drafter")
    listing = resolve("hf://demo/drafter", traffic)
    assert [f.name for f in listing.files] == ["model.safetensors"]
    assert listing.index is None
    assert listing.config == ("config.json", (published.drafter / "config.json").read_text())
    assert listing.root == "hf://demo/drafter"
    same_bytes(listing, published.drafter)
    # The listing, config.json, then two reads: the first redirected from resolve to the CDN,
    # the second sent straight to the CDN location.
    assert traffic.requests == 2 + 2 + 1 == len(hub.requests())  # no uncounted request
    assert len(hub.requests("/resolve/")) == 2  # config.json and the first read
    assert traffic.bytes_fetched == hub.bytes_served()


def test_hub_sharded_drafter_by_tag_and_by_commit(hub, published):
    commit = published.commits["demo/sharded"]
    for rev in ("v1.0", commit):
        listing = resolve(f"hf://demo/sharded@{rev}")
        assert len(listing.files) == 3
        assert listing.index is not None
        assert listing.index[1] == (published.sharded / listing.index[0]).read_text()
        same_bytes(listing, published.sharded)
    assert all(commit in s.path for s in hub.requests("/resolve/"))


def test_hub_branch_selects_its_commit(hub, published):
    listing = resolve("hf://demo/drafter@broken-branch")
    same_bytes(listing, published.broken)


def test_hub_subfolder(hub, published):
    listing = resolve("hf://demo/nested/eagle3")
    assert listing.root == "hf://demo/nested/eagle3"
    assert [f.name for f in listing.files] == ["model.safetensors"]
    same_bytes(listing, published.drafter)
    with pytest.raises(RemoteSourceError, match=r"weights are under: hf://demo/nested/eagle3$"):
        resolve("hf://demo/nested")  # nothing at the top but a README


def test_cached_files_are_read_from_disk(hub, published, monkeypatch, tmp_path):
    cache = tmp_path / "hf-cache"
    hub_client.hf_hub_download(
        "demo/drafter", "model.safetensors", endpoint=hub.url, cache_dir=cache, token=False
    )
    hub.clear()
    listing = resolve("hf://demo/drafter")
    same_bytes(listing, published.drafter)
    assert hub.requests("model.safetensors") == []  # 0 requests for the cached file
    assert len(hub.requests()) == 2  # the listing and config.json


def test_the_token_goes_to_the_hub_and_not_to_the_cdn(hub, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_secret")
    listing = resolve("hf://demo/drafter")
    listing.files[0].read(0, 8)
    to_hub = [s for s in hub.requests() if s.host.startswith("127.0.0.1")]
    to_cdn = [s for s in hub.requests() if s.host.startswith("localhost")]
    assert to_hub and to_cdn
    assert all(s.authorization == "Bearer hf_secret" for s in to_hub)
    assert all(s.authorization is None for s in to_cdn)


def test_url_of_an_index_lists_its_shards(hub, published):
    traffic = Traffic("u")
    listing = resolve(f"{hub.url}/files/web/target/model.safetensors.index.json", traffic)
    assert sorted(f.name for f in listing.files) == sorted(
        p.name for p in published.target.glob("*.safetensors")
    )
    assert listing.config is not None
    same_bytes(listing, published.target)
    prefix_reads = len(hub.requests())
    for file in listing.files:
        file.read(0, 8)  # kept from the size probe
    assert len(hub.requests()) == prefix_reads


def test_url_of_a_single_file(hub, published):
    listing = resolve(f"{hub.url}/files/web/drafter/model.safetensors")
    assert listing.index is None and listing.config is not None
    same_bytes(listing, published.drafter)


def test_url_without_config_has_none(hub, published):
    folder = hub.root / "web" / "bare"
    folder.mkdir(exist_ok=True)
    (folder / "model.safetensors").write_bytes(
        (published.drafter / "model.safetensors").read_bytes()
    )
    listing = resolve(f"{hub.url}/files/web/bare/model.safetensors")
    assert listing.config is None


def test_unknown_repo_and_revision_are_one_line_errors(hub):
    with pytest.raises(RemoteSourceError, match=r"HTTP 404 not found \[RepoNotFound\]"):
        resolve("hf://demo/nothing")
    with pytest.raises(RemoteSourceError, match=r"RevisionNotFound"):
        resolve("hf://demo/drafter@no-such-branch")


def test_a_refused_cdn_location_goes_back_through_resolve(hub, published):
    listing = resolve("hf://demo/drafter")
    file = listing.files[0]
    local = (published.drafter / "model.safetensors").read_bytes()
    assert file.read(0, 8) == local[:8]
    hub.clear()
    hub.inject("/cdn/", "status", status=403, times=1)  # a signed CDN URL that expired
    assert file.read(8, 16) == local[8:24]
    assert [(s.path.split("/")[1], s.status) for s in hub.requests()] == [
        ("cdn", 403),
        ("demo", 302),
        ("cdn", 206),
    ]


def test_concurrent_reads_from_many_threads_get_their_own_bytes(hub, published):
    from concurrent.futures import ThreadPoolExecutor

    listing = resolve("hf://demo/sharded")
    files = {f.name: f for f in listing.files}
    local = {n: (published.sharded / n).read_bytes() for n in files}
    jobs = [(n, (i * 97) % (len(local[n]) - 64), 1 + i % 64) for i in range(200) for n in files]

    def read(job):
        name, offset, length = job
        return files[name].read(offset, length) == local[name][offset : offset + length]

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(read, jobs))


def test_the_token_is_not_sent_over_a_downgrade_or_to_another_port():
    t = Transport(Traffic("x"), {"Authorization": "Bearer t"}, auth_origin="https://hub.example")
    assert t.auth_origin == ("https", "hub.example", 443)
    assert _origin("https://HUB.example:443/a") == t.auth_origin
    assert _origin("http://hub.example/a") != t.auth_origin
    assert _origin("https://hub.example:8443/a") != t.auth_origin
