"""Fixtures for the remote tests: the local Hub (`hub`), the checkpoints it serves (the demo
drafters and target, a sharded drafter, a sparse target declaring hundreds of GB), and an
environment pointing `huggingface_hub` at it (`HF_ENDPOINT`, an empty cache, no token)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from eagle3_inspect.synthetic.demo import DIMS, write_demo
from eagle3_inspect.synthetic.drafters import build_drafter
from tests.reader.remote.checkpoints import Published, write_huge_target
from tests.reader.remote.hub_server import HubServer


@pytest.fixture(scope="session")
def published(tmp_path_factory: pytest.TempPathFactory) -> Published:
    base = tmp_path_factory.mktemp("published")
    demo = write_demo(base / "demo")
    drafter = build_drafter(dialect="midlayer", config_style="sglang", **DIMS)
    sharded = drafter.write(base / "sharded", shards=3)
    huge = write_huge_target(base / "huge")
    return Published(demo.correct, demo.broken, sharded, demo.target, huge, {})


@pytest.fixture(scope="session")
def hub_session(
    tmp_path_factory: pytest.TempPathFactory, published: Published
) -> Iterator[HubServer]:
    server = HubServer(tmp_path_factory.mktemp("hub")).start()
    for repo, folder in (
        ("demo/drafter", published.drafter),
        ("demo/broken", published.broken),
        ("demo/sharded", published.sharded),
        ("demo/target", published.target),
        ("big/target", published.huge),
    ):
        published.commits[repo] = server.add_repo(repo, folder, refs=("main", "v1.0"))
    # A second commit of the drafter on a branch, and the drafter under a subfolder.
    server.add_repo("demo/drafter", published.broken, refs=("broken-branch",))
    nested = tmp_path_factory.mktemp("nested")
    (nested / "eagle3").mkdir()
    for file in published.drafter.iterdir():
        (nested / "eagle3" / file.name).write_bytes(file.read_bytes())
    (nested / "README.md").write_text("a repo with the drafter in a subfolder\n")
    server.add_repo("demo/nested", nested)
    # Plain HTTP hosting (https:// URLs are the same code path): /files/web/...
    web = server.root / "web"
    for name, folder in (("drafter", published.drafter), ("target", published.target)):
        (web / name).mkdir(parents=True)
        for file in folder.iterdir():
            (web / name / file.name).write_bytes(file.read_bytes())
    yield server
    server.stop()


@pytest.fixture
def hub(hub_session: HubServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> HubServer:
    """The local Hub with fresh counters and no faults; the environment points at it."""
    hub_session.clear()
    monkeypatch.setenv("HF_ENDPOINT", hub_session.url)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_TOKEN_PATH", str(tmp_path / "no-token"))
    monkeypatch.setenv("E3_REMOTE_BACKOFF", "0.01")  # retries without waiting seconds in tests
    return hub_session
