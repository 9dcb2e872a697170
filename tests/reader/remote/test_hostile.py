"""Hostile servers, against the local Hub (issue 22, items 2, 3, 5 and 7): a reply dripped a byte
at a time is cut off by the request's total deadline (on main it was never cut: each byte came
within the per-read timeout); model-info answers with wrong types are one line naming the URL
(TypeErrors on main); an index naming 300,000 shards is refused before any shard is requested
(300,002 requests on main); an empty file answered with 416 `bytes */0` is ST001 as it is
locally; a redirect to a bad port names the URL. Deadlines are kept short through the
environment; the tests wait on the server's events, with wall-clock margins only as hang guards."""

from __future__ import annotations

import json

import pytest

from eagle3_inspect.errors import RemoteSourceError
from eagle3_inspect.reader.remote import resolve

pytest.importorskip("huggingface_hub")
SHARD = "model-00001-of-00002.safetensors"


@pytest.fixture
def short_deadline(hub, monkeypatch):
    """Two seconds for the headers and a body's grace (the local server answers in ms), one
    attempt, the default minimum rate."""
    monkeypatch.setenv("E3_REMOTE_TIMEOUT", "2")
    monkeypatch.setenv("E3_REMOTE_RETRIES", "1")
    return hub


def _huge_shard(hub):
    listing = resolve("hf://big/target")
    hub.clear()
    return next(f for f in listing.files if f.name == SHARD)


def test_a_body_dripped_a_byte_at_a_time_is_cut_off(short_deadline):
    hub = short_deadline
    file = _huge_shard(hub)
    drip = hub.inject("/cdn/", "drip", delay=0.02)  # 1,024 bytes: 20 s, each byte in 20 ms
    with pytest.raises(RemoteSourceError, match=r"timed out: no complete reply within 2\.\d+ s"):
        file.read(0, 1024)
    assert drip.cut.wait(60), "the client never hung up"
    assert drip.dripped < 1024


def test_a_status_line_dripped_a_byte_at_a_time_is_cut_off(short_deadline):
    hub = short_deadline
    drip = hub.inject("/api/models/", "drip_head", delay=0.005)  # 4,150 bytes: 20 s
    with pytest.raises(RemoteSourceError, match=r"/api/models/demo/drafter.*timed out"):
        resolve("hf://demo/drafter")
    assert drip.cut.wait(60), "the client never hung up"


def test_a_slow_but_steady_body_is_not_cut_off(hub, monkeypatch):
    """The deadline grows with the size at the minimum rate: 300 bytes at 20 bytes/s get 15 s
    beyond the 2 s grace; dripped at 100 bytes/s they take 3 s and arrive whole."""
    monkeypatch.setenv("E3_REMOTE_TIMEOUT", "2")
    monkeypatch.setenv("E3_REMOTE_RETRIES", "1")
    monkeypatch.setenv("E3_REMOTE_MIN_RATE", "20")
    file = _huge_shard(hub)
    hub.inject("/cdn/", "drip", delay=0.01)
    assert len(file.read(0, 300)) == 300


def _info(**fields) -> bytes:
    sha = "a" * 40
    siblings = [{"rfilename": "model.safetensors", "size": 600432}]
    return json.dumps({"sha": sha, "siblings": siblings, **fields}).encode()


HOSTILE_INFO = {
    "sha-number": (_info(sha=12345), "sha is a number"),
    "sha-path": (_info(sha="../../etc"), "not a 40-hex commit id"),
    "size-string": (_info(siblings=[{"rfilename": "m.safetensors", "size": "600432"}]), "size"),
    "size-1e308": (_info(siblings=[{"rfilename": "m.safetensors", "size": 1e308}]), "size"),
    "size-nan": (
        b'{"sha": "' + b"a" * 40 + b'", "siblings": [{"rfilename": "m.safetensors", "size": NaN}]}',
        "size is nan",
    ),
    "size-negative": (_info(siblings=[{"rfilename": "m.safetensors", "size": -1}]), "size"),
    "sibling-string": (_info(siblings=["model.safetensors"]), "siblings[0] is a string"),
    "siblings-object": (_info(siblings={"a": 1}), "siblings is an object"),
    "name-number": (_info(siblings=[{"rfilename": 7, "size": 1}]), "rfilename is a number"),
    "nested-100k": (b'{"sha": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nests 100001"),
    "not-an-object": (b"[1, 2]", "an array, not a JSON object"),
    "not-json": (b"{'sha': 1}", "not valid JSON"),
}


@pytest.mark.parametrize("case", HOSTILE_INFO, ids=HOSTILE_INFO.keys())
def test_a_hostile_model_info_answer_is_one_line_naming_the_url(hub, run_cli, case):
    body, words = HOSTILE_INFO[case]
    hub.inject("/api/models/", "answer", data=body)
    with pytest.raises(RemoteSourceError, match="/api/models/demo/drafter") as caught:
        resolve("hf://demo/drafter")
    assert words in str(caught.value) and "\n" not in str(caught.value)
    code, out, err = run_cli("scan", "hf://demo/drafter")
    assert (code, out, err.count("\n")) == (2, "", 1), err
    assert "Traceback" not in err


def test_a_hub_repo_of_too_many_shards_is_refused_before_any_shard_request(hub):
    siblings = [{"rfilename": f"m-{i:05d}.safetensors", "size": 8} for i in range(20_000)]
    hub.inject("/api/models/", "answer", data=_info(siblings=siblings))
    with pytest.raises(RemoteSourceError, match=r"20000 \.safetensors files, more than the 16384"):
        resolve("hf://demo/drafter")
    assert len(hub.requests()) == 1  # the model-info answer only


def test_an_index_naming_300k_shards_is_refused_in_two_requests(hub, run_cli):
    web = hub.root / "web" / "big-index"
    web.mkdir(parents=True)
    weight_map = {f"t{i}": f"model-{i:06d}.safetensors" for i in range(300_000)}
    (web / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    code, out, err = run_cli("scan", f"{hub.url}/files/web/big-index/model.safetensors.index.json")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "300000 .safetensors files, more than the 16384" in err
    assert len(hub.requests()) == 2  # config.json (404) and the index; no shard


def test_an_empty_remote_file_is_st001_as_it_is_locally(hub, run_cli, tmp_path):
    web = hub.root / "web" / "empty"
    web.mkdir(parents=True)
    (web / "model.safetensors").write_bytes(b"")
    local = tmp_path / "model.safetensors"
    local.write_bytes(b"")
    code, out, _ = run_cli("scan", f"{hub.url}/files/web/empty/model.safetensors", "--json")
    remote = json.loads(out)["findings"]
    _, out, _ = run_cli("scan", str(local), "--json")
    assert code == 1
    assert [(f["code"], f["message"]) for f in remote] == [
        (f["code"], f["message"]) for f in json.loads(out)["findings"]
    ]
    assert remote[0]["code"] == "ST001"


def test_a_redirect_to_a_bad_port_names_the_url(hub, run_cli):
    bad = "http://127.0.0.1:99999/x.safetensors"
    hub.inject("/files/web/drafter/model.safetensors", "redirect", location=bad)
    code, _, err = run_cli("scan", f"{hub.url}/files/web/drafter/model.safetensors")
    assert code == 2 and err.count("\n") == 1, err
    assert bad in err and "redirected to by" in err and "Port out of range" in err
