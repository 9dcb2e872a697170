"""tools/refresh_profile.py (issue 25, item 5): its comparisons, held to small hand-made inputs
and the committed truth, and its CLI's exit 2 for a wheel that is not there. No torch, no
wheels, no network."""

from __future__ import annotations

import copy
import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
PROFILES = ROOT / "python/eagle3_inspect/rules/en/profiles"


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    sys.path.insert(0, str(ROOT / "tools"))  # the tool puts its own helpers on the path
    return importlib.import_module("refresh_profile")


@pytest.fixture(scope="module")
def truth() -> dict[str, Any]:
    return dict(json.loads((ROOT / "tools/engine_truth/engine_truth.json").read_text()))


def _records(truth: dict[str, Any], key: str) -> dict[str, dict[str, Any]]:
    return {n: e["results"][key] for n, e in truth["drafters"].items() if key in e["results"]}


def test_baseline_is_the_newest_profiles_newest_checked_version(
    tool: ModuleType, truth: dict[str, Any]
) -> None:
    versions = truth["engine_versions"]
    path, base = tool.newest_profile("vllm", versions["vllm"])
    assert (path.name, base) == ("vllm-0.33.toml", "0.33.0")
    path, base = tool.newest_profile("sglang", versions["sglang"])
    assert (path.name, base) == ("sglang-0.5.20.toml", "0.5.23")
    with pytest.raises(tool.RefreshError, match="no checked version"):
        tool.newest_profile("vllm", ["0.0.1"])


def test_capture_changes_name_classes_that_start_or_stop_capturing(tool: ModuleType) -> None:
    old = {"target_architectures": ["A", "B"], "aux_layer_conventions": {"B": "input-of"}}
    assert tool.capture_changes("sglang", old, copy.deepcopy(old)) == []
    new = {"target_architectures": ["B", "C"], "aux_layer_conventions": {}}
    changes = tool.capture_changes("sglang", old, new)
    seen = [(c.subject, c.what, c.old, c.new) for c in changes]
    assert seen == [
        ("A", "captures", True, False),
        ("C", "captures", False, True),
        ("B", "aux_layer_convention", "input-of", "output-of"),
    ]
    assert {c.review for c in changes} == {"profiles/sglang.capture.toml (generated)"}


def _contract(reads: list[dict[str, Any]]) -> dict[str, Any]:
    function = {"at": "m.py:Model.__init__", "reads": reads}
    return {"models": {"Model": {"functions": [function]}}, "adapters": {}}


def test_contract_changes_ignore_moved_lines_and_name_new_fields(tool: ModuleType) -> None:
    read = {"field": "hidden_size", "access": "attr", "use": "shape", "line": 10}
    old = _contract([read])
    moved = _contract([{**read, "line": 99, "use_line": 98}])
    assert tool.contract_changes("vllm", old, moved) == []
    extra = {"field": "fc_norm", "access": "getattr", "default": "False", "use": "flag"}
    changes = tool.contract_changes("vllm", old, _contract([read, {**extra, "line": 12}]))
    assert [(c.subject, c.what) for c in changes] == [
        ("models.Model", "fields"),
        ("models.Model", "reads"),
    ]
    assert (changes[0].old, changes[0].new) == ([], ["fc_norm"])
    assert len(changes[1].new) == 1 and '"fc_norm"' in changes[1].new[0]
    gone = tool.contract_changes("vllm", old, {"models": {}, "adapters": {}})
    assert [(c.subject, c.what, c.old, c.new) for c in gone] == [
        ("models.Model", "entry", True, False)
    ]


def test_committed_contract_and_load_truth_equal_themselves(
    tool: ModuleType, truth: dict[str, Any]
) -> None:
    contract = tomllib.loads((PROFILES / "contracts/vllm-0.33.0.toml").read_text())
    table = contract["versions"]["0.33.0"]
    assert tool.contract_changes("vllm", table, copy.deepcopy(table)) == []
    records = _records(truth, "vllm@0.33.0")
    assert len(records) > 40
    assert tool.load_changes(records, copy.deepcopy(records)) == []


def test_load_changes_report_measured_fields_with_their_section(
    tool: ModuleType, truth: dict[str, Any]
) -> None:
    old = _records(truth, "vllm@0.33.0")
    new = copy.deepcopy(old)
    loaded = next(n for n, r in old.items() if r["verdict"] == "LOADED" and r["fc_in_features"])
    new[loaded]["fc_in_features"] += 64
    new[loaded]["dropped"] = [*new[loaded]["dropped"], "fc.bias"]
    new[loaded]["evidence"] = {"harness": "evidence texts are not compared"}
    refused = next(n for n, r in old.items() if r["verdict"] == "REFUSED")
    new[refused]["why"]["exception"] = "something else"
    changes = {(c.subject, c.what): c for c in tool.load_changes(old, new)}
    assert set(changes) == {
        (loaded, "fc_in_features"),
        (loaded, "dropped"),
        (refused, "why.exception"),
    }
    assert "fc_aux_count" in changes[(loaded, "fc_in_features")].review
    assert "names" in changes[(loaded, "dropped")].review


def test_set_order_in_engine_messages_is_not_a_change(tool: ModuleType) -> None:
    why = "ValueError: no parameter 'x'. The available parameters are: {'b', 'a'}"
    old = {"d": {"verdict": "LOAD-ERROR", "why": {"exception": why}}}
    new = {
        "d": {"verdict": "LOAD-ERROR", "why": {"exception": why.replace("'b', 'a'", "'a', 'b'")}}
    }
    assert tool.load_changes(old, new) == []


@pytest.mark.parametrize("spec", ["vllm==0.0.1", "vllm", "tensorrt==1.0"])
def test_cli_exits_2_with_one_line_when_it_cannot_run(
    tool: ModuleType, spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert tool.main([spec, "--cache", str(tmp_path), "--no-load"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1 and err.startswith("refresh_profile: ")


def test_the_last_step_depends_on_where_the_version_falls(tool: ModuleType) -> None:
    def last(version: str, changed: bool) -> str:
        return tool.next_commands("vllm", version, "vllm-0.33.toml", changed, "0.33.0")[-2]

    assert "new python/eagle3_inspect/rules/en/profiles/vllm-0.34.0.toml" in last("0.34.0", True)
    assert last("0.34.0", False).startswith('add "0.34.0" to checked_versions')
    # An older version is not a new profile, nor the newest profile's max_version.
    older = last("0.32.0", True)
    assert "older than the baseline 0.33.0" in older and "max_version = " not in older
