"""Every injected failure ends in one clear error (or a retry that recovers), never in a silent
full download or a hang: 401/403, 404, 429 with Retry-After, truncated bodies, a server that
ignores Range, a slow server, too many redirects."""

from __future__ import annotations

import time

import pytest

from eagle3_inspect.errors import RemoteSourceError
from eagle3_inspect.reader.remote import Traffic, resolve

pytest.importorskip("huggingface_hub")
SHARD = "model-00001-of-00002.safetensors"


def huge_shard(hub):
    listing = resolve("hf://big/target")
    hub.clear()
    return next(f for f in listing.files if f.name == SHARD)


@pytest.mark.parametrize(("status", "words"), [(401, "HF_TOKEN"), (403, "gated")])
def test_auth_failures_name_the_url_and_the_fix(hub, status, words):
    hub.inject("/api/models/", "status", status=status)
    with pytest.raises(
        RemoteSourceError, match=rf"/api/models/demo/drafter.*HTTP {status}.*{words}"
    ):
        resolve("hf://demo/drafter")
    assert len(hub.requests()) == 1  # not retried


def test_a_missing_shard_is_a_404_error(hub):
    file = huge_shard(hub)
    hub.inject(SHARD, "status", status=404)
    with pytest.raises(RemoteSourceError, match=r"resolve/.*model-00001.*HTTP 404") as caught:
        file.read(0, 8)
    assert caught.value.status == 404


def test_429_waits_for_retry_after_and_recovers(hub):
    file = huge_shard(hub)
    hub.inject("/cdn/", "429", retry_after="1", times=1)
    started = time.monotonic()
    assert len(file.read(0, 8)) == 8
    assert time.monotonic() - started >= 1.0  # the server's Retry-After was honoured
    assert [s.status for s in hub.requests("/cdn/")] == [429, 206]


def test_429_for_good_is_an_error_after_bounded_retries(hub, monkeypatch):
    monkeypatch.setenv("E3_REMOTE_RETRIES", "3")
    file = huge_shard(hub)
    hub.inject("/cdn/", "429", retry_after="0")
    with pytest.raises(RemoteSourceError, match=r"HTTP 429 rate limited \(Retry-After: 0\)"):
        file.read(0, 8)
    assert len(hub.requests("/cdn/")) == 3


def test_a_retry_after_beyond_a_minute_fails_at_once(hub):
    file = huge_shard(hub)
    hub.inject("/cdn/", "429", retry_after="3600")
    with pytest.raises(RemoteSourceError, match="3600"):
        file.read(0, 8)
    assert len(hub.requests("/cdn/")) == 1


def test_a_truncated_body_is_retried(hub):
    file = huge_shard(hub)
    hub.inject("/cdn/", "truncate", times=1)
    assert len(file.read(0, 64)) == 64
    assert len(hub.requests("/cdn/")) == 2


def test_a_body_truncated_every_time_is_an_error(hub):
    file = huge_shard(hub)
    hub.inject("/cdn/", "truncate")
    with pytest.raises(RemoteSourceError, match=r"truncated response: 32 of 64 bytes"):
        file.read(0, 64)


def test_a_server_ignoring_range_is_refused_without_downloading(hub):
    traffic = Traffic("hf://big/target")
    listing = resolve("hf://big/target", traffic)
    file = next(f for f in listing.files if f.name == SHARD)
    before = traffic.bytes_fetched
    hub.inject("/cdn/", "ignore_range")
    with pytest.raises(RemoteSourceError, match=r"ignored the Range request.*refusing"):
        file.read(0, 8)
    assert traffic.bytes_fetched == before  # not one body byte read
    # The server could push at most what the socket buffers took before the client hung up.
    assert hub.bytes_served("/cdn/") < 64 << 20 < file.size // 1000


def test_a_plain_url_ignoring_range_is_refused_at_the_probe(hub):
    hub.inject("/files/web/drafter/model.safetensors", "ignore_range")
    with pytest.raises(RemoteSourceError, match="ignored the Range"):
        resolve(f"{hub.url}/files/web/drafter/model.safetensors")


def test_a_slow_server_times_out(hub, monkeypatch):
    monkeypatch.setenv("E3_REMOTE_TIMEOUT", "1")
    monkeypatch.setenv("E3_REMOTE_RETRIES", "2")
    file = huge_shard(hub)
    hub.inject("/cdn/", "slow", delay=5)
    with pytest.raises(RemoteSourceError, match="timed out"):
        file.read(0, 8)
    # Each attempt timed out (without the timeout the reply would arrive after 5 s and pass).
    assert len(hub.requests("/cdn/")) == 2


def test_a_body_that_stalls_times_out(hub, monkeypatch):
    monkeypatch.setenv("E3_REMOTE_TIMEOUT", "1")
    monkeypatch.setenv("E3_REMOTE_RETRIES", "2")
    file = huge_shard(hub)
    hub.inject("/cdn/", "stall", delay=5)
    with pytest.raises(RemoteSourceError, match="timed out"):
        file.read(0, 64)
    assert len(hub.requests("/cdn/")) == 2


def test_a_server_error_is_retried_then_reported(hub, monkeypatch):
    monkeypatch.setenv("E3_REMOTE_RETRIES", "2")
    hub.inject("/api/models/", "status", status=503, times=1)
    assert resolve("hf://demo/drafter").files  # recovered on the second attempt
    hub.inject("/api/models/", "status", status=500)
    with pytest.raises(RemoteSourceError, match="HTTP 500"):
        resolve("hf://demo/drafter")


def test_a_shard_that_cannot_be_fetched_at_open_is_ix001(hub, monkeypatch, run_cli):
    monkeypatch.setenv("E3_REMOTE_RETRIES", "1")
    hub.inject("model-00002-of-00003", "status", status=404)
    code, out, _err = run_cli("scan", "hf://demo/sharded", "--format", "concise")
    assert code == 1
    ix001 = [line for line in out.splitlines() if " IX001 " in line]
    assert len(ix001) == 1
    assert ix001[0].startswith("hf://demo/sharded/model-00002-of-00003.safetensors")
    assert "HTTP 404" in ix001[0]


def test_a_tensor_read_failing_mid_pass_is_one_line_exit_2(hub, monkeypatch, run_cli):
    monkeypatch.setenv("E3_REMOTE_RETRIES", "2")
    # The open goes through (prefix and header of each of the 3 shards: 6 CDN reads); every
    # data read after it fails.
    hub.inject("/cdn/demo/sharded", "status", status=500, after=6)
    code, _out, err = run_cli("validate", "hf://demo/sharded")
    assert code == 2
    assert err.count("\n") == 1
    assert "HTTP 500" in err and "byte offset" in err and "model-0000" in err


def test_an_unknown_host_fails_at_once(hub):
    traffic = Traffic("u")
    with pytest.raises(RemoteSourceError, match=r"no-such-host\.invalid.*network error"):
        resolve("https://no-such-host.invalid/m/model.safetensors", traffic)
    assert traffic.requests == 1  # not retried: another attempt would fail the same way
