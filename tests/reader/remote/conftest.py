"""Fixtures for the remote tests: the local Hub (`hub`), the checkpoints it serves (the demo
drafters and target, a sharded drafter, a sparse target declaring hundreds of GB), and an
environment pointing `huggingface_hub` at it (`HF_ENDPOINT`, an empty cache, no token)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from eagle3_inspect.synthetic.demo import DIMS, TARGET_ARCH, write_demo
from eagle3_inspect.synthetic.drafters import build_drafter
from eagle3_inspect.synthetic.targets import target_config
from eagle3_inspect.synthetic.writer import header_bytes
from tests.reader.remote.hub_server import HubServer

GB = 1 << 30
# The sparse target: two shards of 24 BF16 expert blocks of 6 GiB each: 288 GiB declared.
HUGE_BLOCK = (3072, 1024, 1024)
HUGE_BLOCKS_PER_SHARD = 24


@dataclass(frozen=True)
class Published:
    """The local folders and their repos on the local Hub."""

    drafter: Path  # the demo's correct drafter: one file + config.json
    broken: Path  # the demo's broken drafter
    sharded: Path  # the correct drafter in three shards + index
    target: Path  # the demo's small target: two shards + index + config
    huge: Path  # the sparse target: headers only, hundreds of GB declared
    commits: dict[str, str]  # repo id -> its main commit


def write_huge_target(out: Path) -> Path:
    """A target whose shards declare ~288 GiB but hold only their headers (sparse files)."""
    out.mkdir(parents=True)
    config = target_config(
        hidden_size=DIMS["H"],
        vocab_size=DIMS["Vt"],
        num_hidden_layers=DIMS["target_layers"],
        architecture=TARGET_ARCH,
        multimodal=True,
    )
    (out / "config.json").write_text(json.dumps(config, indent=2))
    block = 2 * HUGE_BLOCK[0] * HUGE_BLOCK[1] * HUGE_BLOCK[2]
    small = [
        ("model.embed_tokens.weight", (DIMS["Vt"], DIMS["H"])),
        ("lm_head.weight", (DIMS["Vt"], DIMS["H"])),
    ]
    weight_map = {}
    for shard in range(2):
        name = f"model-{shard + 1:05d}-of-00002.safetensors"
        entries = [(small[shard][0], "BF16", small[shard][1], 2 * DIMS["Vt"] * DIMS["H"])]
        for i in range(HUGE_BLOCKS_PER_SHARD):
            layer = shard * HUGE_BLOCKS_PER_SHARD + i
            entries.append((f"model.layers.{layer}.mlp.experts.w", "BF16", HUGE_BLOCK, block))
        header = header_bytes(entries)
        with (out / name).open("wb") as f:
            f.write(header)
            f.truncate(len(header) + sum(e[3] for e in entries))
        weight_map |= {e[0]: name for e in entries}
    index = {"metadata": {"total_size": 0}, "weight_map": weight_map}
    (out / "model.safetensors.index.json").write_text(json.dumps(index))
    return out


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


@pytest.fixture(autouse=True)
def seam_stand_in(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """TEMPORARY, until h/seam lands `Checkpoint.from_source`: materialise a listing into a local
    folder (headers always; data only for files under 64 MiB) and open that. Deleted on merge."""
    from eagle3_inspect.reader.checkpoint import Checkpoint

    if hasattr(Checkpoint, "from_source"):
        return
    import struct

    counter = iter(range(1 << 30))

    def from_source(cls, listing):
        folder = tmp_path / f"stand-in-{next(counter)}"
        folder.mkdir()
        for f in listing.files:
            with (folder / f.name).open("wb") as out:
                if f.size < 64 << 20:
                    out.write(f.read(0, f.size))
                    continue
                prefix = f.read(0, 8)
                out.write(prefix + f.read(8, struct.unpack("<Q", prefix)[0]))
                out.truncate(f.size)
        for text in (listing.index, listing.config):
            if text is not None:
                (folder / text[0]).write_text(text[1])
        only = listing.files[0].name if len(listing.files) == 1 and not listing.index else ""
        ckpt = cls(folder / only if only else folder)
        ckpt.path = listing.path
        return ckpt

    monkeypatch.setattr(Checkpoint, "from_source", classmethod(from_source), raising=False)
