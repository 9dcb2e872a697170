"""The config contract (rules/en/contract, generated into profiles/contracts/ from the engines'
own code): every profiled engine version with a scanned wheel has one, it lists the fields the
draft classes really read, and validate holds a drafter config to it (EN018 / EN019)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from eagle3_inspect.commands.validate import validate
from eagle3_inspect.rules.en import load_profiles, resolve_engines
from eagle3_inspect.rules.en.contract import (
    check_contract,
    contract_version,
    load_contract,
    scanned,
)
from eagle3_inspect.rules.en.profile import FamilyProfile
from eagle3_inspect.rules.en.versions import in_range, parse_version

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests/corpus"
SGLANG = ["0.5.8", "0.5.9", "0.5.11", "0.5.12", "0.5.13", "0.5.14", "0.5.15", "0.5.16", "0.5.23"]
VLLM = [
    "0.11.0",
    "0.15.0",
    "0.17.0",
    "0.19.0",
    "0.20.0",
    "0.21.0",
    "0.22.0",
    "0.24.0",
    "0.25.0",
    "0.30.0",
]
VLLM += ["0.33.0"]


def one(spec: str) -> FamilyProfile:
    """The EAGLE-3 section of the one engine version `spec` names (the contract's families)."""
    (profile,) = resolve_engines(spec)
    section = profile.family_profile("eagle3")
    assert section is not None
    return section


def corpus_config(name: str) -> dict:
    return json.loads((CORPUS / name / "config.json").read_text())


def sglang_style(name: str = "specforge-0.2.0-llama-sglang") -> dict:
    return corpus_config(name)


def test_every_scanned_wheel_has_a_contract_with_its_draft_classes() -> None:
    assert set(SGLANG) <= set(scanned()["sglang"])
    assert set(VLLM) <= set(scanned()["vllm"])
    assert list(scanned()["speculators"]) == ["0.9.0"]
    for version in scanned()["sglang"]:
        contract = load_contract("sglang", version)
        assert contract.model("LlamaForCausalLMEagle3") is not None, version
    assert load_contract("sglang", "0.5.12").model("Eagle3DeepseekV2ForCausalLM") is not None
    assert load_contract("sglang", "0.5.11").model("DFlashDraftModel") is not None
    for version in scanned()["vllm"]:
        contract = load_contract("vllm", version)
        assert contract.model("LlamaForCausalLMEagle3") is not None, version
        assert contract.for_algorithm("adapter", "eagle3") is not None, version
    newest = load_contract("vllm", "0.33.0")
    for arch in ("Eagle3Qwen3ForCausalLM", "PEagleDraftModel", "DFlashDraftModel"):
        assert newest.model(arch) is not None, arch
    assert newest.model("DFlashLagunaForCausalLM") is not None
    assert load_contract("speculators", "0.9.0").for_algorithm("model", "eagle3") is not None


def test_every_profile_resolves_a_scanned_version_in_its_range() -> None:
    """validate checks a version against the newest scanned one not newer than it inside its
    profile's range; every profile has one but TensorRT-LLM's (no wheel could be had)."""
    without = []
    for profile in load_profiles():
        for asked in profile.checked_versions:
            got = contract_version(profile.engine, asked, profile.min_version, profile.max_version)
            if got is None:
                without.append(profile.path)
                continue
            assert in_range(parse_version(got), profile.min_version, profile.max_version)
    assert sorted(set(without)) == ["trtllm-main.toml"]
    assert contract_version("sglang", "0.5.10", (0, 5, 8), (0, 5, 12)) == "0.5.10"
    assert contract_version("sglang", "0.5.10.post1", (0, 5, 8), (0, 5, 12)) == "0.5.10"
    assert contract_version("sglang", "0.5.30", (0, 5, 17), None) == "0.5.23"


def test_sglang_hasattr_then_multiply_is_in_the_contract_with_its_lines() -> None:
    entry = load_contract("sglang", "0.5.23").model("LlamaForCausalLMEagle3")
    reads = [r for r in entry.reads if r.field == "target_hidden_size" and r.access == "attr"]
    (read,) = [r for r in reads if r.at.endswith("LlamaModel.__init__")]
    assert read.guard == "hasattr" and read.default_field == "hidden_size"
    assert read.use == "arithmetic" and read.raises_on_none
    assert read.file == "sglang/srt/models/llama_eagle3.py" and read.line == 152


@pytest.mark.parametrize("version", SGLANG)
def test_null_target_hidden_size_is_an_error_naming_field_version_and_line(version: str) -> None:
    config = sglang_style()
    config["target_hidden_size"] = None
    found = check_contract(one(f"sglang@{version}"), config)
    (error,) = [f for f in found if f.code == "EN018"]
    assert error.severity.value == "error" and error.config_key == "target_hidden_size"
    assert f"sglang@{version}" in error.message
    assert "target_hidden_size is null" in error.message
    assert "sglang/srt/models/llama_eagle3.py:1" in error.message  # the hasattr-guarded read


def test_validate_reports_it_through_the_cli_path(tmp_path: Path) -> None:
    src = CORPUS / "specforge-0.2.0-llama-sglang"
    dst = tmp_path / "drafter"
    dst.mkdir()
    for item in src.iterdir():
        (dst / item.name).write_bytes(item.read_bytes())
    config = json.loads((src / "config.json").read_text())
    config["target_hidden_size"] = None
    (dst / "config.json").write_text(json.dumps(config))
    report = validate(dst, engine="sglang@0.5.23", stats=False)
    assert "EN018" in {f.code for f in report.findings if f.severity.value == "error"}
    assert not report.ok
    before = validate(src, engine="sglang@0.5.23", stats=False)
    assert "EN018" not in {f.code for f in before.findings}


def test_vllm_hf_style_null_is_an_error_but_its_speculators_adapter_drops_it() -> None:
    """vLLM's getattr(config, "target_hidden_size", hidden_size) returns None for a null (the
    default is for a missing field); its speculators adapter copies the field only when it is
    not None (algos.py update_eagle3)."""
    hf = sglang_style()
    hf["target_hidden_size"] = None
    found = check_contract(one("vllm@0.33.0"), hf)
    assert [f.config_key for f in found if f.code == "EN018"] == ["target_hidden_size"]
    speculators = corpus_config("speculators-0.9.0-default")
    assert speculators["target_hidden_size"] is None
    assert check_contract(one("vllm@0.33.0"), speculators) == []


def test_wrong_type_and_missing_without_default_are_errors() -> None:
    config = sglang_style()
    config["target_hidden_size"] = "64"
    found = check_contract(one("sglang@0.5.23"), config)
    assert any(f.code == "EN018" and '"64" (a string, needs number)' in f.message for f in found)
    spec = corpus_config("speculators-0.9.0-default")
    del spec["transformer_layer_config"]["rms_norm_eps"]
    found = check_contract(one("vllm@0.33.0"), spec)
    assert any(f.code == "EN018" and "rms_norm_eps is missing" in f.message for f in found), found
    # a bare PreTrainedConfig (vLLM's SpeculatorsConfig) has no rms_norm_eps; LlamaConfig has
    hf = sglang_style()
    del hf["rms_norm_eps"]
    assert check_contract(one("sglang@0.5.23"), hf) == []


def test_speculators_needs_the_verifier_it_loads() -> None:
    config = corpus_config("speculators-0.9.0-default")
    assert check_contract(one("speculators@0.9.0"), config) == []
    config["speculators_config"]["verifier"]["name_or_path"] = None
    (error,) = check_contract(one("speculators@0.9.0"), config)
    assert error.code == "EN018"
    assert "speculators_config.verifier.name_or_path is null" in error.message
    assert "load_verifier_weights" in error.message and "core.py:180" in error.message


def test_a_default_the_drafter_was_not_trained_with_is_a_warning() -> None:
    """SGLang builds a LlamaConfig: with hidden_size only inside transformer_layer_config (the
    speculators layout) it reads the class default 4096, not the 64 the drafter has."""
    config = copy.deepcopy(corpus_config("speculators-0.9.0-default"))
    config["architectures"] = ["LlamaForCausalLMEagle3"]
    config["model_type"] = "llama"
    found = check_contract(one("sglang@0.5.23"), config)
    warnings = [f for f in found if f.code == "EN019"]
    hidden = [f for f in warnings if f.config_key == "hidden_size"]
    assert hidden and hidden[0].severity.value == "warning"
    assert "4096" in hidden[0].message and "trained with 64" in hidden[0].message


def test_no_contract_finding_on_any_corpus_drafter_for_any_scanned_version() -> None:
    """The corpus drafters as their producers wrote them: whatever else fails, no contract
    finding (the engine truth: none of them trips over a config field; speculators-format
    drafters in SGLang are refused by architecture first, EN004 folds the rest)."""
    for entry in json.loads((CORPUS / "manifest.json").read_text())["drafters"]:
        config = corpus_config(entry["dir"])
        for spec in [*(f"sglang@{v}" for v in SGLANG), *(f"vllm@{v}" for v in VLLM)]:
            if "speculators_model_type" in config and spec.startswith("sglang"):
                continue
            codes = {f.code for f in check_contract(one(spec), config)}
            assert not codes & {"EN018", "EN019"}, (entry["dir"], spec, codes)
        assert check_contract(one("speculators@0.9.0"), config) == [], entry["dir"]
