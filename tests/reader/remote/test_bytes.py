"""Each command fetches only what it needs, to the byte: `scan` the length prefix and header of
each file; `validate --no-stats` adds d2t and t2d; `--stats` and `diff` read the tensors."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

import eagle3_inspect
from eagle3_inspect.synthetic.demo import ENGINE

pytest.importorskip("huggingface_hub")


def header_bytes(folder: Path) -> int:
    """8 + header length, summed over the folder's safetensors files."""
    total = 0
    for file in folder.glob("*.safetensors"):
        with file.open("rb") as f:
            total += 8 + struct.unpack("<Q", f.read(8))[0]
    return total


def data_bytes(folder: Path, names: set[str] | None = None) -> int:
    ckpt = eagle3_inspect.open(folder)
    return sum(t.nbytes for n, t in ckpt.tensors.items() if names is None or n in names)


@pytest.mark.parametrize(
    ("repo", "local"), [("demo/drafter", "drafter"), ("demo/sharded", "sharded")]
)
def test_scan_fetches_headers_only(hub, published, repo, local):
    folder = getattr(published, local)
    eagle3_inspect.scan(f"hf://{repo}")
    assert hub.bytes_served("/cdn/") == header_bytes(folder)
    # Per file: the prefix (redirected once, then straight to the CDN) and the header.
    files = len(list(folder.glob("*.safetensors")))
    assert len(hub.requests("/cdn/")) == 2 * files
    assert len(hub.requests("/resolve/")) == files + 1 + (files > 1)  # + config (+ index)


def test_validate_no_stats_adds_d2t_and_t2d(hub, published):
    eagle3_inspect.validate("hf://demo/drafter", engine=ENGINE, stats=False)
    vocab = data_bytes(published.drafter, {"d2t", "t2d"})
    assert vocab > 0
    assert hub.bytes_served("/cdn/") == header_bytes(published.drafter) + vocab


def test_stats_and_diff_read_every_tensor_once(hub, published):
    eagle3_inspect.scan("hf://demo/sharded", stats=True)
    everything = header_bytes(published.sharded) + data_bytes(published.sharded)
    assert hub.bytes_served("/cdn/") == everything
    hub.clear()
    report = eagle3_inspect.diff(published.sharded, "hf://demo/sharded")
    assert report.identical
    served = hub.bytes_served("/cdn/")
    assert header_bytes(published.sharded) + data_bytes(published.sharded) <= served
    section = report.to_dict()["remote"]
    assert section["bytes_fetched"] == hub.bytes_served()


def test_validate_against_the_huge_target_is_under_one_percent(hub, published):
    report = eagle3_inspect.validate(
        "hf://demo/drafter", target="hf://big/target", engine=ENGINE, stats=False
    )
    section = report.to_dict()["remote"]
    declared = sum(
        p.stat().st_size for p in (*published.drafter.iterdir(), *published.huge.iterdir())
    )
    assert section["bytes_fetched"] < declared / 100
    target = next(s for s in section["sources"] if s["path"] == "hf://big/target")
    assert hub.bytes_served("/cdn/big/target") == header_bytes(published.huge)
    assert target["bytes_fetched"] < 64 << 10


def test_data_passes_read_in_parallel_and_report_progress(hub, published):
    ckpt = eagle3_inspect.open("hf://demo/sharded")
    hub.clear()
    hub.inject("/cdn/", "slow", delay=0.2)  # every data read takes a while: overlap shows
    calls: list[tuple[int, int]] = []
    stats = ckpt.stats(threads=4, progress=lambda done, total: calls.append((done, total)))
    assert len(stats) == len(ckpt.tensors)
    assert hub.max_in_flight > 1
    assert calls and calls[-1][0] == calls[-1][1] == data_bytes(published.sharded)
