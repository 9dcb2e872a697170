"""validate with `NAME@installed`, end to end through the worker protocol: the "installed
engine" here is a stand-in interpreter that answers with the record the engine's own code gave
for this drafter (tools/engine_truth/engine_truth.json, at stand-in scale), so what is checked
is the plumbing: the report, its JSON twin and its human line, beside the profile's findings."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest
from rich.console import Console

import eagle3_inspect
from eagle3_inspect.cli.render.validate import render_validate
from eagle3_inspect.installed import spec
from eagle3_inspect.installed.probe import InstalledEngine

ROOT = Path(__file__).resolve().parents[2]
TRUTH = json.loads((ROOT / "tools/engine_truth/engine_truth.json").read_text())
NAME = "speculators-0.9.0-default"
DRAFTER = ROOT / "tests/corpus" / NAME

ANSWER = """#!{python}
import json, sys
record = json.loads({record!r})
if isinstance(record.get("fc_in_features"), int):
    record["fc_in_features"] //= {scale}
request = json.loads(sys.stdin.read())
assert request["engine"] == {engine!r}
assert request["config"]["draft_vocab_size"] * {scale} == {draft}
if request["mode"] == "forward":
    assert request["aux_states"] == len(record.get("aux_layer_ids") or [0, 0, 0])
    record = json.loads({forward!r})
open(sys.argv[3], "w").write(json.dumps({{"record": record}}))
"""
RAN = {"verdict": "RAN", "steps": 2, "positions": 6, "aux_states": 3, "finite": True}
RAISED = {
    "verdict": "FORWARD-ERROR",
    "why": {
        "exception": "RuntimeError: mat1 and mat2 shapes cannot be multiplied",
        "raised_at": "x.py:1",
    },
}


def installed_as(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, engine: str, version: str, forward=RAN
) -> dict:
    record = TRUTH["drafters"][f"corpus/{NAME}"]["results"][f"{engine}@{version}"]
    python = tmp_path / f"{engine}-python"
    draft = json.loads((DRAFTER / "config.json").read_text())["draft_vocab_size"]
    text = ANSWER.format(
        python=sys.executable,
        record=json.dumps(record),
        scale=8,
        engine=engine,
        draft=draft,
        forward=json.dumps(forward),
    )
    python.write_text(text)
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    found = InstalledEngine(engine, version, f"/site/{engine}", str(python))
    monkeypatch.setattr(spec, "find_installed", lambda name: found)
    return record


def test_a_loaded_verdict_beside_its_profile(monkeypatch, tmp_path: Path) -> None:
    record = installed_as(monkeypatch, tmp_path, "vllm", "0.33.0")
    report = eagle3_inspect.validate(DRAFTER, engine="vllm@installed", stats=False)
    assert report.engines == ["vllm@0.33.0"]
    (verdict,) = report.installed
    assert verdict.outcome == "LOADED" == record["verdict"]
    assert verdict.fc_in_features == record["fc_in_features"]
    assert verdict.aux_layer_ids == tuple(record["aux_layer_ids"])
    assert not [f for f in report.findings if f.engine == "vllm@installed"]  # t2d is benign
    doc = report.to_dict()
    assert doc["installed"][0]["outcome"] == "LOADED"
    assert doc["installed"][0]["profile"] == "vllm@0.33.0"
    assert doc["installed"][0]["dropped"] == record["dropped"]
    console = Console(record=True, width=400)
    render_validate(report, console)
    text = console.export_text()
    head = "installed: vllm 0.33.0 at /site/vllm (beside profile vllm@0.33.0): "
    facts = f"aux ids read {record['aux_layer_ids']}; fc input 192; dropped 1; "
    facts += "draft forward ran 2 steps, finite logits"
    assert f"{head}LOADED ({facts})" in text
    from eagle3_inspect.html.views.validate import engine_verdicts

    html = str(engine_verdicts(report))
    assert "vllm@0.33.0" in html and "vllm@installed (0.33.0): LOADED" in html


def test_a_refusal_is_an_error_tagged_installed(monkeypatch, tmp_path: Path) -> None:
    record = installed_as(monkeypatch, tmp_path, "sglang", "0.5.23")
    assert record["verdict"] == "REFUSED"
    report = eagle3_inspect.validate(DRAFTER, engine="sglang@installed", stats=False)
    mine = [f for f in report.findings if f.engine == "sglang@installed"]
    assert [f.code for f in mine] == ["EN008"]
    assert mine[0].message.startswith("sglang@installed (0.5.23) raises before loading: ")
    assert record["why"]["exception"][:50] in mine[0].message
    assert not report.ok and report.exit_code == 1
    profile = [f for f in report.findings if f.engine == "sglang@0.5.23"]
    assert "EN004" in {f.code for f in profile} or "EN008" in {f.code for f in profile}


def test_a_forward_that_raises_is_en024(monkeypatch, tmp_path: Path) -> None:
    installed_as(monkeypatch, tmp_path, "vllm", "0.33.0", forward=RAISED)
    report = eagle3_inspect.validate(DRAFTER, engine="vllm@installed", stats=False)
    mine = [f for f in report.findings if f.engine == "vllm@installed"]
    assert [f.code for f in mine] == ["EN024"]
    assert mine[0].message == (
        "vllm@installed (0.33.0)'s draft forward raises: RuntimeError: mat1 and mat2 shapes "
        "cannot be multiplied (at x.py:1)"
    )
    assert report.to_dict()["installed"][0]["forward"]["verdict"] == "FORWARD-ERROR"


def test_a_partial_checkpoint_is_not_judged(monkeypatch, tmp_path: Path) -> None:
    """A shard that does not parse (ST003): the engine is not run on the tensors that are left."""
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_bytes((DRAFTER / "config.json").read_bytes())
    (broken / "model.safetensors").write_bytes((DRAFTER / "model.safetensors").read_bytes()[:100])
    found = InstalledEngine("sglang", "0.5.23", "/site/sglang", "/no/python/needed")
    monkeypatch.setattr(spec, "find_installed", lambda name: found)
    report = eagle3_inspect.validate(broken, engine="sglang@installed", stats=False)
    (verdict,) = report.installed
    assert verdict.outcome == "NOT-RUN" and "partial checkpoint (ST003)" in verdict.reason
    mine = [f for f in report.findings if f.engine == "sglang@installed"]
    assert [f.code for f in mine] == ["EN012"]
