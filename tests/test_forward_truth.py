"""The committed forward and capture truth (issue 25, tools/engine_truth/forward/) holds together,
and what is generated from it is current: docs/computes-as-trained.md and the rules' run data
(rules/en/forward_runs.toml). No torch, no engines: only the committed JSON is read."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
TRUTH = ROOT / "tools" / "engine_truth"


def _table() -> ModuleType:
    spec = importlib.util.spec_from_file_location("forward_table", TRUTH / "forward" / "table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["forward_table"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def truth() -> tuple[dict, dict]:
    forward = json.loads((TRUTH / "forward_truth.json").read_text())
    capture = json.loads((TRUTH / "capture_truth.json").read_text())
    return forward, capture


@pytest.fixture(scope="module")
def attribution() -> dict:
    return dict(json.loads((TRUTH / "forward_attribution.json").read_text()))


def test_generated_doc_readme_and_rules_data_are_current(
    truth: tuple[dict, dict], attribution: dict
) -> None:
    table = _table()
    forward, capture = truth
    doc = table.DOC.read_text()
    assert table.document(forward, capture, attribution, doc) == doc, "run table.py --write"
    readme = table.README.read_text()
    assert table.readme(forward, capture, readme) == readme, "run table.py --write"
    data = table.rules_toml(
        table.rules_data(forward, capture), table.flag_runs(forward, attribution)
    )
    assert table.RULES.read_text() == data, "run table.py --write"


def test_attribution_runs_are_the_plan_s_single_changes(
    truth: tuple[dict, dict], attribution: dict
) -> None:
    """Every committed re-run is a change of changes.toml (one field or tensor prefix, one side)
    over a drafter of the forward run, and its "before" is that run's committed comparison."""
    import tomllib

    forward, _ = truth
    plan = tomllib.loads((TRUTH / "forward" / "changes.toml").read_text())["change"]
    planned = {
        (
            c["drafter"],
            c["side"],
            json.dumps({k: c.get(k) for k in ("set", "unset", "drop", "reset")}),
        )
        for c in plan
    }
    assert attribution["changes"]
    for change in attribution["changes"]:
        kinds = [k for k in ("set", "unset", "drop", "reset") if k in change]
        assert len(kinds) == 1 and len(change.get("set", {0: 0})) == 1, change["label"]
        key = json.dumps({k: change.get(k) for k in ("set", "unset", "drop", "reset")})
        assert (change["drafter"], change["side"], key) in planned, change["label"]
        for engine, result in change["results"].items():
            committed = forward["drafters"][change["drafter"]]["results"][engine]
            before = result.get("before")
            if "on" in change:  # measured on top of another change's variant, not the original
                assert before is not None, (change["label"], engine)
                continue
            if before is None:
                assert "comparison" not in committed, (change["label"], engine)
                continue
            c = committed["comparison"]
            assert (before["top1_agree"], before["positions"]) == (
                c["top1_agree"],
                c["positions"],
            ), (change["label"], engine)
            after = result.get("after")
            if after is not None:
                assert sum(after["top1_by_step"]) == after["top1_agree"], change["label"]
        if change["side"] == "engine":  # the producer's run on the original is reused
            assert change["producer_logits_moved"] == 0, change["label"]
        if change["side"] == "producer":  # the engines' runs on the original are reused
            moved = [r.get("engine_logits_moved") for r in change["results"].values()]
            assert all(m in (0, None) for m in moved), change["label"]


def test_every_comparison_counts_what_it_compared(truth: tuple[dict, dict]) -> None:
    forward, _ = truth
    compared = 0
    for name, record in forward["drafters"].items():
        for key, result in record.get("results", {}).items():
            c = result.get("comparison")
            if c is None:
                assert result["verdict"] != "LOADED" or "why" in result, (name, key)
                continue
            compared += 1
            assert c["positions"] == sum(step["rows"] for step in c["steps"]), (name, key)
            assert 0 <= c["top1_agree"] <= c["positions"], (name, key)
            # NaN only where the engine left parameters at init (the stubs start them as NaN)
            diff = c["max_abs_logit_diff"]
            assert diff >= 0 or (diff != diff and result["never_loaded"]), (name, key)
    assert compared > 0


def test_capture_rows_match_their_captures_by_value(
    truth: tuple[dict, dict],
) -> None:
    forward, capture = truth
    table = _table()
    matched = 0
    for name, rows in capture["drafters"].items():
        for key, row in ((k, table.measured(r)) for k, r in rows.items()):
            if "engine_boundaries" in row:
                cap = capture["captures"][row["capture"]]
                assert cap["boundaries"] == row["engine_boundaries"], (name, key)
                assert all(d <= 1e-4 for d in cap["max_abs_diff_to_stream"]), (name, key)
                matched += name in forward["drafters"]
    assert matched > 0


def test_validate_raises_en022_exactly_where_the_capture_run_feeds_other_states(
    truth: tuple[dict, dict],
) -> None:
    from eagle3_inspect.commands.validate import validate

    forward, capture = truth
    table = _table()
    corpus = ROOT / "tests" / "corpus"
    checked, wrong = 0, []
    for name, rows in sorted(capture["drafters"].items()):
        if "producer" not in forward["drafters"].get(name, {}):
            continue
        trained = forward["drafters"][name]["producer"]["aux_boundaries"]
        # measured: the Kimi-K2 capture is its with_config run (the as-written config raises)
        for key, row in sorted((k, table.measured(r)) for k, r in rows.items()):
            if "engine_boundaries" not in row or (
                row["ids"] is None and table.config_ids(name) is not None
            ):
                continue  # not captured, or ids the engine does not read (EN003's case)
            arch = forward["drafters"][name]["inputs"]["verifier"]  # the run's target
            report = validate(corpus / name, engine=key, target=ROOT / arch, stats=False)
            raised = any(f.code == "EN022" for f in report.findings)
            checked += 1
            if raised != (row["engine_boundaries"] != trained):
                wrong.append(f"{name} {key}: EN022 {raised}, fed {row['engine_boundaries']}")
    assert checked > 0 and not wrong, "\n".join(wrong)
