"""Installed verdicts -> findings, held to the committed load truth: for every record the
engines' own code produced (tools/engine_truth/engine_truth.json), the findings are errors
exactly when `harm` calls the record harmful, and name what the record names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eagle3_inspect.findings import Severity
from eagle3_inspect.installed.findings import installed_findings
from eagle3_inspect.installed.harm import compared, engine_says_harm
from eagle3_inspect.installed.probe import InstalledEngine
from eagle3_inspect.installed.spec import profile_beside
from eagle3_inspect.installed.verdict import from_record

ROOT = Path(__file__).resolve().parents[2]
TRUTH = json.loads((ROOT / "tools/engine_truth/engine_truth.json").read_text())
CORPUS = ROOT / "tests/corpus"


def cases():
    for name, entry in TRUTH["drafters"].items():
        if not name.startswith("corpus/"):
            continue
        config = json.loads((CORPUS / name.removeprefix("corpus/") / "config.json").read_text())
        for key, record in entry["results"].items():
            if record["engine"] in ("sglang", "vllm"):
                yield name, key, config, entry["tensors"], record


CASES = list(cases())


def test_the_truth_has_every_outcome() -> None:
    assert len(CASES) > 500
    assert {r["verdict"] for *_, r in CASES} >= {"LOADED", "REFUSED", "LOAD-ERROR"}


@pytest.mark.parametrize("scale", [1, 8])
def test_errors_exactly_where_the_record_is_harmful(scale: int) -> None:
    for name, key, config, tensors, record in CASES:
        engine, _, version = key.partition("@")
        installed = InstalledEngine(engine, version, f"/site/{engine}", "python")
        shrunk = dict(record)
        if isinstance(record.get("fc_in_features"), int):
            shrunk["fc_in_features"] = record["fc_in_features"] // scale
        verdict = from_record(installed, scale, shrunk, profile=key)
        assert verdict.fc_in_features == record.get("fc_in_features")
        found = installed_findings(verdict, config, tensors)
        assert all(f.engine == f"{engine}@installed" for f in found)
        errors = [f for f in found if f.severity is Severity.ERROR]
        if not compared(record):
            assert [f.code for f in found] == ["EN012"], (name, key)
            continue
        harmful, why = engine_says_harm(record, config, tensors)
        assert bool(errors) == harmful, (name, key, why, found)
        if record["verdict"] in ("REFUSED", "LOAD-ERROR"):
            assert [f.code for f in found] == ["EN008"]
            assert record["why"]["exception"][:60] in found[0].message
        elif harmful:
            named = {f.tensor for f in found if f.code == "EN001"}
            assert named <= set(record["dropped"])


def test_the_profile_beside_is_the_installed_version_or_the_newest_older() -> None:
    def beside(engine: str, version: str) -> str:
        return profile_beside(InstalledEngine(engine, version, "/x", "python")).label

    assert beside("sglang", "0.5.14") == "sglang@0.5.14"
    assert beside("vllm", "0.33.0") == "vllm@0.33.0"
    newest_sglang = profile_beside(InstalledEngine("sglang", "99.0.0", "/x", "python"))
    assert newest_sglang.engine == "sglang" and newest_sglang.label != "sglang@99.0.0"
    assert beside("sglang", "0.5.23.dev4+g1234") == "sglang@0.5.23"


def test_a_name_the_harness_lacks_is_no_verdict() -> None:
    """vLLM 0.34's default_weight_loader first met the harness without its new copy_weight_
    helper: a NameError from the harness's own gap is NOT-RUN, never a load error."""
    record = {
        "engine": "vllm",
        "verdict": "LOAD-ERROR",
        "why": {
            "stage": "load_weights",
            "exception": "NameError: name 'copy_weight_' is not defined",
        },
    }
    verdict = from_record(InstalledEngine("vllm", "0.34.0", "/x", "python"), 8, record, None)
    assert verdict.outcome == "NOT-RUN"
    assert "copy_weight_" in verdict.reason
    (found,) = installed_findings(verdict, {}, {})
    assert found.code == "EN012" and found.severity is Severity.INFO


def test_ids_the_installed_engine_does_not_read_are_a_warning() -> None:
    """vLLM 0.34 (refresh_profile) reads aux ids only through its V2 runner, which ignores
    eagle_config's: a record with no ids read while the config states some is EN010, naming
    where the ids are and which reader found none."""
    record = {
        "engine": "vllm",
        "verdict": "LOADED",
        "dropped": [],
        "never_loaded": [],
        "aux_layer_ids": None,
        "evidence": {"aux_layer_ids": "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py"},
    }
    config = {"eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 3, 4]}}
    verdict = from_record(InstalledEngine("vllm", "0.34.0", "/x", "python"), 8, record, None)
    (found,) = installed_findings(verdict, config, {})
    assert (found.code, found.severity) == ("EN010", Severity.WARNING)
    assert found.config_key == "eagle_config.eagle_aux_hidden_state_layer_ids"
    assert "eagle3_utils.py" in found.message and "[1, 3, 4]" in found.message
    assert installed_findings(verdict, {}, {}) == []
