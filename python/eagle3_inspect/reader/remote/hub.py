"""A Hub model (`hf://`) as a `SourceListing`, with `huggingface_hub` for what the Hub defines:
the endpoint (`HF_ENDPOINT`), the token, the model-info answer (revision ->
commit, the file list with sizes), the file URLs and the local cache. Files the cache already
holds for that commit are read from disk; the rest by range requests through our transport."""

from __future__ import annotations

import os
import re
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

from eagle3_inspect._native import MAX_SHARDS, VERSION, choose_weight_files
from eagle3_inspect.echo import clip
from eagle3_inspect.errors import MissingDependencyError, RemoteSourceError
from eagle3_inspect.reader.remote.files import local_file, remote_file
from eagle3_inspect.reader.remote.http import Transport
from eagle3_inspect.reader.remote.location import WEIGHT_SUFFIXES, HubLocation
from eagle3_inspect.reader.remote.model_info import RepoFile, read_model_info
from eagle3_inspect.reader.remote.traffic import Traffic
from eagle3_inspect.reader.source import SourceFile, SourceListing
from eagle3_inspect.reader.untrusted import read_regular, resolves_inside

CONFIG = "config.json"
# The model-info answer lists every file of the repo: generous, but bounded.
MAX_INFO_BYTES = 64 << 20
MAX_TEXT_BYTES = 64 << 20  # config.json / index: the reader applies its own, smaller, caps
REFS_CAP = 4 << 10  # a cache `refs/*` file holds a 40-byte commit id
# A revision as the cache names snapshot folders (the local reader's rule too).
REVISION = re.compile(r"^[A-Za-z0-9._-]+$")


def _hub() -> Any:
    """The pieces of huggingface_hub used here, imported explicitly (its package attributes are
    lazy)."""
    try:
        from huggingface_hub import constants, get_token, hf_hub_url, try_to_load_from_cache
    except ImportError as exc:
        raise MissingDependencyError(
            "hf:// paths need huggingface_hub: pip install 'eagle3-inspect[hub]'"
        ) from exc
    return SimpleNamespace(
        constants=constants,
        hf_hub_url=hf_hub_url,
        try_to_load_from_cache=try_to_load_from_cache,
        get_token=get_token,
    )


def _endpoint(hub: Any) -> str:
    # Read at call time: huggingface_hub reads HF_ENDPOINT once, at its import.
    return (os.environ.get("HF_ENDPOINT") or hub.constants.ENDPOINT).rstrip("/")


def _cache_dir(hub: Any) -> str:
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    if os.environ.get("HF_HOME"):
        return os.path.join(os.environ["HF_HOME"], "hub")
    return str(hub.constants.HF_HUB_CACHE)


def _headers(hub: Any) -> dict[str, str]:
    """The user agent and the token huggingface_hub resolves (`HF_TOKEN`, `hf auth login`).
    Not `build_hf_headers`: its user-agent code fetches an agent registry from the endpoint and
    writes it under HF_HOME, a request this tool would neither count nor want."""
    headers = {"User-Agent": f"eagle3-inspect/{VERSION}"}
    token = None if hub.constants.HF_HUB_DISABLE_IMPLICIT_TOKEN else hub.get_token()
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return headers


def _offline(hub: Any) -> bool:
    value = os.environ.get("HF_HUB_OFFLINE", "").strip().upper()
    return value in {"1", "ON", "YES", "TRUE"} or bool(hub.constants.HF_HUB_OFFLINE)


def offline_listing(hub: Any, location: HubLocation) -> SourceListing:
    """With HF_HUB_OFFLINE: the cached snapshot of the revision, read from disk (no request); a
    partial snapshot shows as the usual IX001 findings for the shards it lacks. The cache is held
    to the local reader's rules: `refs/*` read up to 4 KiB and naming a plain revision, and every
    file resolving inside the `models--org--name` folder (else IX010, one line, nothing read)."""
    cache = _cache_dir(hub)
    repo_dir = os.path.join(cache, "models--" + location.repo_id.replace("/", "--"))
    revision = location.revision or "main"
    ref = os.path.join(repo_dir, "refs", revision)
    commit = revision
    boundary = os.path.realpath(repo_dir)
    if os.path.isfile(ref):
        if not resolves_inside(ref, boundary):
            raise RemoteSourceError(ref, "the link leads outside the cache repository (IX010)")
        commit = read_regular(ref, REFS_CAP).decode("utf-8", errors="replace").strip()
    if not REVISION.match(commit) or commit in (".", ".."):
        raise RemoteSourceError(ref, f"names the snapshot {clip(repr(commit), 80)}, not a revision")
    folder = os.path.join(repo_dir, "snapshots", commit, location.subfolder)
    if not os.path.isdir(folder):
        raise RemoteSourceError(
            location.given, f"HF_HUB_OFFLINE is set and {cache} holds no snapshot of it"
        )
    names = sorted(n for n in os.listdir(folder) if os.path.isfile(os.path.join(folder, n)))
    for name in names:
        if not resolves_inside(os.path.join(folder, name), boundary):
            raise RemoteSourceError(
                os.path.join(folder, name),
                f"the link leads outside the cache repository {boundary} (IX010); not read",
            )
    weights, index, _ = choose_weight_files(names)
    files = [local_file(n, os.path.join(folder, n)) for n in weights]

    def text(name: str) -> tuple[str, str] | None:
        if name not in names:
            return None
        file = local_file(name, os.path.join(folder, name))
        if file.size > MAX_TEXT_BYTES:
            raise RemoteSourceError(f"{location.root}/{name}", "larger than 64 MiB")
        return name, file.read(0, file.size).decode("utf-8", errors="replace")

    return SourceListing(
        location.given, location.root, files, text(index) if index else None, text(CONFIG)
    )


def hub_listing(location: HubLocation, traffic: Traffic) -> SourceListing:
    """Lists `location` (one model-info request) and builds its sources."""
    hub = _hub()
    if _offline(hub):
        return offline_listing(hub, location)
    endpoint = _endpoint(hub)
    headers = _headers(hub)
    transport = Transport(traffic, headers, auth_origin=endpoint)
    revision = location.revision or "main"
    api = f"{endpoint}/api/models/{location.repo_id}/revision/{quote(revision, safe='')}"
    reply = transport.get(f"{api}?blobs=true", max_bytes=MAX_INFO_BYTES)
    info = read_model_info(reply.body, api, MAX_INFO_BYTES)
    commit = info.commit
    prefix = f"{location.subfolder}/" if location.subfolder else ""
    sizes = {
        f.path[len(prefix) :]: f.size
        for f in info.files
        if f.path.startswith(prefix) and "/" not in f.path[len(prefix) :]
    }
    weights, index, _ = choose_weight_files(sorted(sizes))
    if not weights and index is None and CONFIG not in sizes:
        raise RemoteSourceError(api, _nothing_here(location, commit, info.files))
    if len(weights) > MAX_SHARDS:
        kind = ".safetensors" if weights[0].endswith(".safetensors") else "torch weights"
        raise RemoteSourceError(
            location.root,
            f"holds {len(weights)} {kind} files, more than the {MAX_SHARDS} one checkpoint may "
            "have; refusing to open them",
        )
    cache = _cache_dir(hub)

    def source(name: str) -> SourceFile:
        cached = hub.try_to_load_from_cache(
            location.repo_id, prefix + name, cache_dir=cache, revision=commit
        )
        if isinstance(cached, str) and os.path.getsize(cached) == sizes[name]:
            return local_file(name, cached)
        url = hub.hf_hub_url(location.repo_id, prefix + name, revision=commit, endpoint=endpoint)
        size = sizes[name]
        if size is None:
            raise RemoteSourceError(api, f"model info gives no size for {prefix + name}")
        return remote_file(name, size, url, transport)

    def text(name: str) -> tuple[str, str] | None:
        if name not in sizes:
            return None
        file = source(name)
        data = file.read(0, file.size) if file.size <= MAX_TEXT_BYTES else b""
        if file.size > MAX_TEXT_BYTES:
            raise RemoteSourceError(location.root + "/" + name, "larger than 64 MiB")
        return name, data.decode("utf-8", errors="replace")

    files = [source(n) for n in weights]
    return SourceListing(
        location.given, location.root, files, text(index) if index else None, text(CONFIG)
    )


def _nothing_here(location: HubLocation, commit: str, files: list[RepoFile]) -> str:
    """The message for a folder with neither weights nor config, naming the subfolders that have
    weights (a drafter is often published under one)."""
    prefix = f"{location.subfolder}/" if location.subfolder else ""
    below = sorted(
        {
            f.path[len(prefix) :].rsplit("/", 1)[0]
            for f in files
            if f.path.startswith(prefix) and f.path.endswith(WEIGHT_SUFFIXES)
        }
    )
    message = f"no weights files or config.json in {location.root} at commit {commit}"
    if below:
        message += "; weights are under: " + ", ".join(f"{location.root}/{b}" for b in below[:5])
    return message
