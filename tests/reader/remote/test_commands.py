"""scan, validate and diff on remote checkpoints give the local findings (paths aside) and say
what they fetched; the sparse 288 GiB target costs headers only."""

from __future__ import annotations

import json

import pytest

import eagle3_inspect
from eagle3_inspect.synthetic.demo import ENGINE

pytest.importorskip("huggingface_hub")


def findings_without_paths(findings, *roots: str):
    """Findings as comparable tuples, with each root replaced by a marker."""
    out = []
    for f in findings:
        where = f.file or ""
        for root in roots:
            where = where.replace(str(root), "<root>")
        message = f.message
        for root in roots:
            message = message.replace(str(root), "<root>")
        out.append((f.code, f.severity.value, f.tensor, f.offset, where, message))
    return sorted(out)


def tensor_table(report):
    """The tensor rows with the file given by name only (the root differs by design)."""
    root = report.checkpoint.root
    return [{**t.to_dict(), "file": t.file.replace(root, "<root>")} for t in report.tensors]


@pytest.mark.parametrize(
    ("repo", "local"), [("demo/drafter", "drafter"), ("demo/sharded", "sharded")]
)
def test_scan_remote_equals_local(hub, published, repo, local):
    folder = getattr(published, local)
    remote = eagle3_inspect.scan(f"hf://{repo}")
    here = eagle3_inspect.scan(folder)
    assert tensor_table(remote) == tensor_table(here)
    assert findings_without_paths(remote.findings, f"hf://{repo}") == findings_without_paths(
        here.findings, folder
    )
    section = remote.to_dict()["remote"]
    assert section["requests"] == len(hub.requests()) and section["requests"] > 0
    assert section["bytes_fetched"] == hub.bytes_served()
    assert "remote" not in here.to_dict()


def test_validate_remote_drafter_and_target_equals_local(hub, published):
    kwargs = {"engine": ENGINE, "stats": False}
    remote = eagle3_inspect.validate("hf://demo/broken", target="hf://demo/target", **kwargs)
    here = eagle3_inspect.validate(published.broken, target=published.target, **kwargs)
    assert remote.findings  # the broken drafter has findings: the comparison means something
    assert findings_without_paths(remote.findings, "hf://demo/broken") == findings_without_paths(
        here.findings, published.broken
    )
    section = remote.to_dict()["remote"]
    assert [s["path"] for s in section["sources"]] == ["hf://demo/broken", "hf://demo/target"]
    assert section["bytes_fetched"] == hub.bytes_served()


def test_validate_against_the_huge_target_reads_headers_only(hub, published):
    kwargs = {"engine": ENGINE, "stats": False}
    remote = eagle3_inspect.validate("hf://demo/drafter", target="hf://big/target", **kwargs)
    here = eagle3_inspect.validate(published.drafter, target=published.huge, **kwargs)
    assert findings_without_paths(remote.findings, "hf://demo/drafter") == findings_without_paths(
        here.findings, published.drafter
    )
    declared = sum(p.stat().st_size for p in published.huge.iterdir()) + sum(
        p.stat().st_size for p in published.drafter.iterdir()
    )
    assert declared > 250 << 30
    assert hub.bytes_served() < declared / 100
    assert hub.bytes_served("big/target") < 64 << 10  # config, index and two headers


def test_diff_local_against_remote(hub, published):
    report = eagle3_inspect.diff(published.drafter, "hf://demo/drafter")
    assert report.identical
    section = report.to_dict()["remote"]
    assert [s["side"] for s in section["sources"]] == ["b"]
    changed = eagle3_inspect.diff("hf://demo/drafter", published.broken)
    assert not changed.ok


def test_https_urls_of_a_file_and_of_an_index(hub, published):
    single = eagle3_inspect.scan(f"{hub.url}/files/web/drafter/model.safetensors")
    assert set(single.checkpoint.tensors) == set(
        eagle3_inspect.scan(published.drafter).checkpoint.tensors
    )
    index = eagle3_inspect.scan(f"{hub.url}/files/web/target/model.safetensors.index.json")
    assert set(index.checkpoint.tensors) == set(
        eagle3_inspect.scan(published.target).checkpoint.tensors
    )


def test_cli_validate_remote_json(hub, run_cli, published):
    code, out, err = run_cli(
        "validate",
        "hf://demo/drafter",
        "--target",
        "hf://big/target",
        "--engine",
        ENGINE,
        "--no-stats",
        "--json",
    )
    assert code in (0, 1), err
    doc = json.loads(out)
    assert doc["remote"]["bytes_fetched"] == hub.bytes_served()
    code, out, err = run_cli("scan", "hf://demo/sharded", "--format", "concise")
    line = out.splitlines()[-1]
    assert line.startswith("remote: fetched ")
    pytest.importorskip("matplotlib")
    code, page, err = run_cli("scan", "hf://demo/sharded", "--format", "html")
    assert code == 0, err
    assert "Where the bytes were read" in page and "remote: fetched " in page


def test_cli_remote_failure_is_one_line_exit_2(hub, run_cli):
    hub.inject("/api/models/", "status", status=401)
    code, _out, err = run_cli("scan", "hf://demo/drafter")
    assert code == 2
    assert err.count("\n") == 1 and "HTTP 401" in err and "/api/models/demo/drafter" in err


def test_a_target_given_by_its_config_url_reads_the_config_only(hub, published):
    kwargs = {"engine": ENGINE, "stats": False}
    url = f"{hub.url}/files/web/target/config.json"
    remote = eagle3_inspect.validate(published.drafter, target=url, **kwargs)
    here = eagle3_inspect.validate(
        published.drafter, target=published.target / "config.json", **kwargs
    )
    assert remote.target is not None and remote.target.hidden_size == here.target.hidden_size
    assert findings_without_paths(remote.findings) == findings_without_paths(here.findings)
    assert [s.path.rsplit("/", 1)[1] for s in hub.requests()] == ["config.json"]
