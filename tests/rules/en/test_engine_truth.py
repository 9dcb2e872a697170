"""The committed engine ground truth (tools/engine_truth/engine_truth.json) is well-formed and
covers every corpus drafter present and the demo pair. Needs neither torch nor the engines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TRUTH = ROOT / "tools/engine_truth/engine_truth.json"
MANIFEST = ROOT / "tests/corpus/manifest.json"
VERDICTS = {"LOADED", "REFUSED", "LOAD-ERROR", "NOT-MODELLED"}
REQUIRED_ENGINE_VERSIONS = {
    "sglang": {"0.5.8", "0.5.9", "0.5.11", "0.5.12", "0.5.13", "0.5.16", "0.5.17", "0.5.23"},
    "vllm": {"0.11.0", "0.15.0", "0.17.0", "0.20.0", "0.21.0", "0.25.0", "0.30.0", "0.33.0"},
}


@pytest.fixture(scope="module")
def truth() -> dict:
    return json.loads(TRUTH.read_text())


def test_schema_and_engine_versions(truth: dict) -> None:
    assert truth["schema_version"] == 1
    for engine, versions in REQUIRED_ENGINE_VERSIONS.items():
        assert versions <= set(truth["engine_versions"][engine]), engine


def test_every_result_is_complete(truth: dict) -> None:
    assert truth["drafters"], "no drafters recorded"
    for name, entry in truth["drafters"].items():
        assert entry["tensors"], name
        expected = {f"{e}@{v}" for e, vs in truth["engine_versions"].items() for v in vs}
        assert expected <= set(entry["results"]), name
        for key, result in entry["results"].items():
            where = f"{name} {key}"
            assert result["verdict"] in VERDICTS, where
            assert key == f"{result['engine']}@{result['version']}", where
            if result["verdict"] == "LOADED":
                assert isinstance(result["dropped"], list), where
                assert isinstance(result["never_loaded"], list), where
                assert set(result["dropped"]) <= set(entry["tensors"]), where
                assert isinstance(result["fc_in_features"], int), where
                evidence = truth["engine_evidence"][key] | result.get("evidence", {})
                assert evidence["dropped"] and evidence["never_loaded"], where
            else:
                assert result["why"]["exception"] and result["why"]["decided_by"], where


def test_covers_every_corpus_drafter_present(truth: dict) -> None:
    names = set(truth["drafters"])
    assert {"demo/drafter-correct", "demo/drafter-broken"} <= names
    if MANIFEST.exists():
        for entry in json.loads(MANIFEST.read_text())["drafters"]:
            assert f"corpus/{entry['dir']}" in names, entry["dir"]


def test_seed_case_is_recorded_as_the_engine_did_it(truth: dict) -> None:
    # layers.0.* keys into SGLang <= 0.5.11, which names the block midlayer: its load_weights
    # skips names it has no parameter for, so the whole layer stays at init, silently.
    layers = truth["drafters"]["synthetic/sglang-layers"]["results"]["sglang@0.5.11"]
    assert layers["verdict"] == "LOADED"
    assert any(n.startswith("layers.0.") for n in layers["dropped"])
    assert any(".midlayer." in n for n in layers["never_loaded"])
    # From 0.5.12 the same drafter loads (midlayer was renamed to layers.0).
    assert not any(
        ".layers.0." in n
        for n in truth["drafters"]["synthetic/sglang-layers"]["results"]["sglang@0.5.12"][
            "never_loaded"
        ]
    )
    # A correct midlayer drafter loads fully; only embed_tokens (shared from the target at
    # runtime, not shipped) is left at init.
    correct = truth["drafters"]["demo/drafter-correct"]["results"]["sglang@0.5.11"]
    assert correct["verdict"] == "LOADED"
    assert all(n.endswith("embed_tokens.weight") for n in correct["never_loaded"])
    assert [n for n in correct["dropped"] if n != "t2d"] == []
    # The seed's broken drafter also has fc sized for one aux state: the shape assertion fires.
    broken = truth["drafters"]["demo/drafter-broken"]["results"]["sglang@0.5.11"]
    assert broken["verdict"] == "LOAD-ERROR"
    assert "fc" in broken["why"]["exception"] or "384" in broken["why"]["exception"]


def _manifest() -> list[dict]:
    return json.loads(MANIFEST.read_text())["drafters"]


def test_only_the_declared_paths_are_not_modelled(truth: dict) -> None:
    """Issue 19: MLA and Qwen3 EAGLE-3 rows are run, not skipped; the one path left
    unmodelled is vLLM >= 0.30's quantized linear-scheme framework, for the FP8 drafter."""
    left = sorted(
        f"{name} {key}"
        for name, entry in truth["drafters"].items()
        for key, result in entry["results"].items()
        if result["verdict"] == "NOT-MODELLED"
    )
    quantized_schemes = [
        v for v in truth["engine_versions"]["vllm"] if tuple(map(int, v.split("."))) >= (0, 30)
    ]
    assert quantized_schemes, "no vLLM >= 0.30 recorded"
    assert left == sorted(f"corpus/modelopt-0.47.0-fp8 vllm@{v}" for v in quantized_schemes)
    for cell in left:
        name, key = cell.split()
        why = truth["drafters"][name]["results"][key]["why"]
        assert why["stage"] == "quantization" and "ModelOptLinearMethod" in why["exception"]


def test_every_family_has_a_verdict_on_every_engine_version(truth: dict) -> None:
    families = {e["family"] for e in _manifest()}
    assert families == {"eagle3", "peagle", "dflash", "dflash2"}
    keys = {f"{e}@{v}" for e, vs in truth["engine_versions"].items() for v in vs}
    for entry in _manifest():
        results = truth["drafters"][f"corpus/{entry['dir']}"]["results"]
        assert set(results) == keys, entry["dir"]


def test_sglang_drops_the_fp8_fc_scales(truth: dict) -> None:
    """The issue's FP8 claim, run: SGLang's llama_eagle3.py builds fc as a plain nn.Linear, so
    Model-Optimizer's fc.weight_scale / fc.input_scale reach no parameter (every decoder
    linear gets ModelOptFp8LinearMethod parameters and loads its scales); older SGLang cannot
    parse the export's nested quantization_config and refuses the draft."""
    results = truth["drafters"]["corpus/modelopt-0.47.0-fp8"]["results"]
    newest = results["sglang@0.5.23"]
    assert newest["verdict"] == "LOADED"
    assert newest["dropped"] == ["fc.input_scale", "fc.weight_scale"]
    assert newest["quant_method"] == "ModelOptFp8Config"
    scales = {n for n in newest["quantized_params"] if n.endswith("_scale")}
    assert "model.layers.0.self_attn.qkv_proj.weight_scale" in scales
    assert not any(n.startswith("model.fc.") for n in newest["quantized_params"])
    assert results["sglang@0.5.8"]["verdict"] == "REFUSED"
    assert "Unknown quantization method" in results["sglang@0.5.8"]["why"]["exception"]
    # vLLM quantizes fc too (ModelOptFp8Config, every draft linear) and loads every scale.
    vllm = results["vllm@0.25.0"]
    assert vllm["verdict"] == "LOADED" and vllm["dropped"] == []
    assert "model.fc.weight_scale" in vllm["quantized_params"]


def test_v2_runner_reader_is_run_for_every_vllm_row_that_has_it(truth: dict) -> None:
    v2 = "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py"
    for name, entry in truth["drafters"].items():
        for key, result in entry["results"].items():
            if result["engine"] != "vllm" or key in ("vllm@0.11.0", "vllm@0.15.0"):
                continue
            if result["verdict"] == "REFUSED" and result["why"].get("stage") == "config":
                continue
            assert v2 in result.get("aux_layer_ids_by_runner", {}), (name, key)
