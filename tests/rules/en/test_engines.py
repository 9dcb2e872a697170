"""Engine profiles: data files load and validate, specs resolve, and every EN rule fires on a
crafted checkpoint and stays quiet on a correct one. Pure Python: no native calls, no engines."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import sys
import zipfile
from importlib import resources
from pathlib import Path

import pytest

from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.findings import Severity
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.registry import all_rules
from eagle3_inspect.registry import rule as explained
from eagle3_inspect.rules.en import (
    ProfileError,
    check_all,
    check_aux_layer_ids,
    check_engine,
    check_target_capture,
    load_profiles,
    resolve_engines,
)
from eagle3_inspect.rules.en.conditions import holds, validate_term
from eagle3_inspect.rules.en.loader import tomllib  # stdlib, or tomli on Python 3.10
from eagle3_inspect.rules.en.schema import parse_profile
from eagle3_inspect.rules.en.versions import parse_version

ROOT = Path(__file__).resolve().parents[3]
LAYER = (
    "self_attn.q_proj.weight",
    "self_attn.k_proj.weight",
    "self_attn.v_proj.weight",
    "self_attn.o_proj.weight",
    "mlp.gate_proj.weight",
    "mlp.up_proj.weight",
    "mlp.down_proj.weight",
    "input_layernorm.weight",
    "hidden_norm.weight",
    "post_attention_layernorm.weight",
)


def tensors(names) -> dict[str, TensorInfo]:
    return {n: TensorInfo(n, "BF16", (4,), 8, "model.safetensors", 0) for n in names}


def midlayer_ckpt(*extra: str) -> dict[str, TensorInfo]:
    """SpecForge / SGLang dialect, reduced vocabulary, no embedding."""
    base = ["fc.weight", "norm.weight", "lm_head.weight", "d2t", "t2d"]
    return tensors(base + [f"midlayer.{x}" for x in LAYER] + list(extra))


def layers_ckpt(*extra: str) -> dict[str, TensorInfo]:
    """speculators / new Model-Optimizer dialect."""
    base = ["fc.weight", "norm.weight", "lm_head.weight", "d2t", "t2d", "embed_tokens.weight"]
    return tensors(base + [f"layers.0.{x}" for x in LAYER] + list(extra))


def sglang_config(**overrides) -> dict:
    config = {
        "architectures": ["LlamaForCausalLMEagle3"],
        "hidden_size": 4096,
        "num_hidden_layers": 1,
        "vocab_size": 128256,
        "draft_vocab_size": 32000,
        "tie_word_embeddings": False,
        "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 15, 28]},
    }
    config.update(overrides)
    return config


def vllm_config(**overrides) -> dict:
    config = sglang_config(eagle_aux_hidden_state_layer_ids=[2, 16, 29])
    del config["eagle_config"]
    config.update(overrides)
    return config


def speculators_config(**overrides) -> dict:
    """The fields speculators' save code writes (the engines' code reads all of them: the
    config contract holds a config without them to its errors)."""
    config = {
        "architectures": ["Eagle3Speculator"],
        "speculators_model_type": "eagle3",
        "draft_vocab_size": 32000,
        "norm_before_residual": False,
        "eagle_aux_hidden_state_layer_ids": [2, 16, 29],
        "speculators_config": {
            "algorithm": "eagle3",
            "default_proposal_method": "greedy",
            "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": 3}],
            "verifier": {"architectures": ["LlamaForCausalLM"], "name_or_path": "org/target"},
        },
        "transformer_layer_config": {
            "model_type": "llama",
            "hidden_size": 4096,
            "num_hidden_layers": 1,
            "vocab_size": 128256,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "intermediate_size": 14336,
            "hidden_act": "silu",
            "rms_norm_eps": 1e-05,
        },
    }
    config.update(overrides)
    return config


def one(spec: str, family: str = "eagle3"):
    """The `family` section of the one profile `spec` resolves to."""
    (profile,) = resolve_engines(spec)
    found = profile.family_profile(family)
    assert found is not None, (spec, family)
    return found


def codes(findings) -> list[str]:
    return [f.code for f in findings]


# --- profile files --------------------------------------------------------------------------


def test_every_profile_file_loads_and_cites_its_source():
    profiles = load_profiles()
    files = {p.path for p in profiles}
    shipped = {
        p.name
        for p in resources.files("eagle3_inspect.rules.en.profiles").iterdir()
        if p.name.endswith(".toml") and not p.name.endswith(".capture.toml")
    }
    assert files == shipped
    assert {p.engine for p in profiles} == {"sglang", "vllm", "trtllm", "speculators"}
    for profile in profiles:
        assert profile.source.strip()
        assert profile.checked_versions
        for version in profile.checked_versions:
            parsed = version[0].isdigit() and parse_version(version)
            if parsed:
                assert profile.min_version <= parsed
                assert profile.max_version is None or parsed < profile.max_version


def test_profile_ranges_do_not_overlap_and_last_is_open_ended():
    by_engine: dict[str, list] = {}
    for profile in load_profiles():
        by_engine.setdefault(profile.engine, []).append(profile)
    for profiles in by_engine.values():
        for before, after in itertools.pairwise(profiles):
            assert before.max_version == after.min_version
        assert profiles[-1].max_version is None


def _raw(name: str) -> dict:
    text = resources.files("eagle3_inspect.rules.en.profiles").joinpath(name).read_text()
    return tomllib.loads(text)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(colour="blue"), "unknown keys"),
        (lambda d: d["families"]["eagle3"]["names"].update(unknown="explode"), "is not one of"),
        (
            lambda d: d["families"]["eagle3"]["names"]["params"][0].update(pattern="(unclosed"),
            "bad regex",
        ),
        (
            lambda d: d["families"]["eagle3"]["names"]["params"][0].update(when=["cfg:"]),
            "unknown condition",
        ),
        (
            lambda d: d["families"]["eagle3"]["names"]["params"][0].update(when=["sunny"]),
            "unknown condition",
        ),
        (
            lambda d: d["families"]["eagle3"]["names"]["required"][0].update(severity="fatal"),
            "severity",
        ),
        (lambda d: d.update(max_version="0.5.0"), "max_version must exceed"),
        (
            lambda d: d["families"]["eagle3"]["config"].update(aux_layer_convention="sideways"),
            "is not one of",
        ),
        (
            lambda d: d["families"]["eagle3"]["config"]["norm_flags"][0].update(default="no"),
            "boolean",
        ),
        (lambda d: d.update(checked_versions=[]), "checked_versions"),
        (lambda d: d["families"]["eagle3"]["names"]["required"][0].pop("names"), "needs `names`"),
        (lambda d: d["families"]["eagle3"]["config"]["norm_flags"][0].pop("name"), "needs `name`"),
        (
            lambda d: d["families"]["eagle3"].update(speculators_architectures={"llama": 1}),
            "maps strings",
        ),
        (lambda d: d["families"].update(medusa={}), "unknown drafter families"),
    ],
)
def test_schema_rejects_malformed_profiles(mutate, message):
    data = copy.deepcopy(_raw("sglang-0.5.12.toml"))
    parse_profile(copy.deepcopy(data), "ok.toml")  # the unmodified file is valid
    mutate(data)
    with pytest.raises(ProfileError, match=message):
        parse_profile(data, "bad.toml")


def test_condition_language():
    config = {"a": {"b": False}, "c": 0, "draft_vocab_size": 10, "vocab_size": 20}
    assert holds(config, ["false:a.b", "!cfg:a.b", "!cfg:c", "vocab_reduced", "eq:c=0"])
    assert holds(config, ["cfg:missing|vocab_size"])
    assert not holds(config, ["cfg:a.b|vocab_size"])  # first present path wins, and it is false
    assert not holds(config, ["multilayer"])
    assert holds({"transformer_layer_config": {"num_hidden_layers": 2}}, ["multilayer"])
    for bad in ("cfg:", "eq:=1", "what"):
        with pytest.raises(ValueError):
            validate_term(bad)


def test_version_parsing_ignores_suffixes():
    assert parse_version("0.5.10.post1") == (0, 5, 10)
    assert parse_version("1.2.0rc3") == (1, 2, 0)
    assert parse_version("0.33") == (0, 33, 0)
    with pytest.raises(ValueError):
        parse_version("main")


# --- resolution -----------------------------------------------------------------------------


def test_resolution_picks_the_covering_profile_and_capture_version():
    profile = one("sglang@0.5.9")
    assert profile.path == "sglang-0.5.8.toml"
    assert profile.label == "sglang@0.5.9"
    assert profile.capture is not None and profile.capture.version == "0.5.9"
    assert one("sglang@0.5.12.post1").path == "sglang-0.5.12.toml"
    assert one("SGLang@0.5.17").path == "sglang-0.5.17.toml"
    assert one("vllm@0.33.0").capture.version == "0.33.0"
    assert one("vllm@0.29.5").capture.version == "0.29.0"  # newest scanned wheel not after it


def test_resolution_without_version_is_the_newest_profile():
    (engine,) = resolve_engines("sglang")
    assert engine.max_version is None
    newest = one("sglang")
    assert newest.label == "sglang@0.5.23"
    labels = [p.label for p in resolve_engines("all")]
    assert sorted(p.split("@")[0] for p in labels) == ["sglang", "speculators", "trtllm", "vllm"]
    assert [p.engine for p in resolve_engines("sglang, vllm@0.20.0")] == ["sglang", "vllm"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("llamacpp", "known engines: sglang, speculators, trtllm, vllm"),
        ("sglang@0.4.6", "no sglang profile covers version 0.4.6.*sglang-0.5.8.toml"),
        ("vllm@0.10.2", "no vllm profile covers"),
        ("sglang@latest", "bad engine version"),
        ("", "empty engine spec"),
    ],
)
def test_resolution_errors_list_what_exists(spec, message):
    with pytest.raises(ValueError, match=message):
        resolve_engines(spec)


# --- generated capture data -----------------------------------------------------------------


def test_kimi_k25_capture_matches_the_verified_boundaries():
    history = {e.version: e for e in one("sglang").capture_history}
    kimi = "KimiK25ForConditionalGeneration"
    assert kimi not in history["0.5.8"].target_architectures
    assert kimi not in history["0.5.9"].target_architectures
    for version in ("0.5.10", "0.5.11", "0.5.12", "0.5.23"):
        assert kimi in history[version].target_architectures
    assert "LlamaForCausalLM" in history["0.5.8"].target_architectures
    assert history["0.5.23"].conventions["DeepseekV3ForCausalLM"] == "output-of-if-first-is-1"
    assert "LlamaForCausalLM" not in history["0.5.23"].conventions  # default: output-of


# --- EN rules: fire on the crafted case, quiet on the correct one ---------------------------


def test_en001_sglang_0_5_11_drops_layers_0_and_leaves_midlayer_random():
    findings = check_engine(one("sglang@0.5.11"), layers_ckpt(), sglang_config())
    dropped = {f.tensor for f in findings if f.code == "EN001"}
    assert dropped == {f"layers.0.{x}" for x in LAYER}
    random = {f.tensor for f in findings if f.code == "EN002"}
    assert random == {f"midlayer.{x}" for x in LAYER}
    assert all(f.severity is Severity.ERROR for f in findings if f.code in ("EN001", "EN002"))
    assert check_engine(one("sglang@0.5.11"), midlayer_ckpt(), sglang_config()) == []


def test_sglang_0_5_12_renames_both_dialects():
    for ckpt in (midlayer_ckpt(), layers_ckpt()):
        found = codes(check_engine(one("sglang@0.5.12"), ckpt, sglang_config()))
        assert "EN001" not in found and "EN002" not in found


def test_en001_vllm_drops_input_norm_without_norm_before_fc():
    profile = one("vllm@0.33.0")
    findings = check_engine(profile, layers_ckpt("input_norm.weight"), vllm_config())
    assert ("EN001", "input_norm.weight") in [(f.code, f.tensor) for f in findings]
    fixed = vllm_config(eagle_config={"norm_before_fc": True})
    assert "EN001" not in codes(check_engine(profile, layers_ckpt("input_norm.weight"), fixed))


def test_en002_missing_lm_head_and_d2t():
    ckpt = {k: v for k, v in midlayer_ckpt().items() if k not in ("lm_head.weight", "d2t")}
    findings = check_engine(one("sglang@0.5.23"), ckpt, sglang_config())
    assert {f.tensor for f in findings if f.code == "EN002"} == {"lm_head.weight", "d2t"}
    # full vocabulary and no draft_vocab_size: the head comes from the target, no d2t needed
    full = sglang_config(draft_vocab_size=None, vocab_size=128256)
    assert "EN002" not in codes(check_engine(one("sglang@0.5.23"), ckpt, full))
    vllm = check_engine(one("vllm@0.33.0"), ckpt, vllm_config())
    assert ("EN002", "d2t") in [(f.code, f.tensor) for f in vllm]


def test_en003_aux_ids_where_the_engine_does_not_read_them():
    top_only = vllm_config()
    findings = check_aux_layer_ids(one("sglang@0.5.23"), top_only, 32)
    assert {"EN003", "EN010"} <= set(codes(findings))
    assert check_aux_layer_ids(one("sglang@0.5.23"), sglang_config(), 32) == []
    nested_only = sglang_config(eagle_config={"eagle_aux_hidden_state_layer_ids": [2, 16, 29]})
    v33 = check_aux_layer_ids(one("vllm@0.33.0"), nested_only, 32)
    assert codes(v33) == ["EN003", "EN011"] and "V2 model runner" in v33[0].message
    # EN011: with no target class, vLLM 0.33's captures fed eagle_config ids one layer off on
    # every target class run (test_unknown_target.py), whatever the ids look like
    assert "one layer away" in v33[1].message and v33[1].severity is Severity.WARNING
    assert set(codes(check_aux_layer_ids(one("vllm@0.20.0"), nested_only, 32))) == {
        "EN003",
        "EN010",
    }
    assert check_aux_layer_ids(one("vllm@0.33.0"), vllm_config(), 32) == []


def test_en003_sglang_ignores_speculators_layer_config():
    found = check_engine(one("sglang@0.5.23"), layers_ckpt(), speculators_config())
    keys = {f.config_key for f in found if f.code == "EN003"}
    assert keys == {"transformer_layer_config", "speculators_config"}
    assert "EN003" not in codes(check_engine(one("sglang@0.5.23"), layers_ckpt(), sglang_config()))


def test_en004_architecture_served():
    spec = speculators_config()
    assert "EN004" in codes(check_engine(one("sglang@0.5.23"), layers_ckpt(), spec))
    assert "EN004" not in codes(check_engine(one("vllm@0.33.0"), layers_ckpt(), spec))
    qwen3 = copy.deepcopy(spec)
    qwen3["transformer_layer_config"]["model_type"] = "qwen3"
    assert "EN004" not in codes(check_engine(one("vllm@0.33.0"), layers_ckpt(), qwen3))
    qwen3["transformer_layer_config"]["model_type"] = "mistral"
    assert "EN004" in codes(check_engine(one("vllm@0.33.0"), layers_ckpt(), qwen3))
    plain = vllm_config(architectures=["LlamaForCausalLM"])  # vLLM rewrites it to Eagle3...
    assert "EN004" not in codes(check_engine(one("vllm@0.33.0"), layers_ckpt(), plain))
    assert "EN004" in codes(check_engine(one("sglang@0.5.23"), midlayer_ckpt(), plain))


def test_en005_ids_out_of_range_under_each_convention():
    config = sglang_config(eagle_config={"eagle_aux_hidden_state_layer_ids": [1, 30, 61]})
    sglang = check_aux_layer_ids(one("sglang@0.5.23"), config, 62, "LlamaForCausalLM")
    assert "EN005" in codes(sglang)  # +1 -> 62, past the last captured index 61
    assert "EN005" not in codes(check_aux_layer_ids(one("sglang@0.5.23"), config, 63))
    top = vllm_config(eagle_aux_hidden_state_layer_ids=[2, 31, 62])
    assert "EN005" not in codes(check_aux_layer_ids(one("vllm@0.33.0"), top, 62))  # <= N
    top["eagle_aux_hidden_state_layer_ids"] = [2, 31, 63]
    assert "EN005" in codes(check_aux_layer_ids(one("vllm@0.33.0"), top, 62))


def test_en005_uses_the_targets_own_convention():
    config = sglang_config(eagle_config={"eagle_aux_hidden_state_layer_ids": [2, 30, 60]})
    profile = one("sglang@0.5.23")
    llama = check_aux_layer_ids(profile, config, 61, "LlamaForCausalLM")  # +1 -> 61 > 60
    deepseek = check_aux_layer_ids(profile, config, 61, "DeepseekV3ForCausalLM")  # verbatim
    assert "EN005" in codes(llama)
    assert "EN005" not in codes(deepseek)


def test_en006_target_without_capture():
    kimi = ["KimiK25ForConditionalGeneration"]
    for version in ("0.5.8", "0.5.9"):
        findings = check_target_capture(one(f"sglang@{version}"), kimi)
        assert codes(findings) == ["EN006"]
        assert "0.5.10 is the first scanned version" in findings[0].message
    assert check_target_capture(one("sglang@0.5.10"), kimi) == []
    assert check_target_capture(one("vllm@0.33.0"), ["LlamaForCausalLM"]) == []


def test_check_all_reports_the_seed_failure_for_kimi_on_sglang_0_5_9():
    target = {
        "architectures": ["KimiK25ForConditionalGeneration"],
        "text_config": {"num_hidden_layers": 61},
    }
    seed = check_all(one("sglang@0.5.9"), layers_ckpt(), sglang_config(), target)
    assert {"EN001", "EN006"} <= set(codes(seed))
    # One rename problem, one finding: the EN002s of the same names are folded into EN001.
    assert "EN002 x" in next(f.message for f in seed if f.code == "EN001")
    good = check_all(one("sglang@0.5.12"), midlayer_ckpt(), sglang_config(), target)
    assert codes(good) == []


def test_en007_norm_flags():
    ckpt = midlayer_ckpt("input_norm.weight")
    old = check_engine(one("sglang@0.5.11"), ckpt, sglang_config())
    assert ("EN007", "norm_before_fc") in [(f.code, f.config_key) for f in old]
    cfg = sglang_config(
        eagle_config={"eagle_aux_hidden_state_layer_ids": [1, 15, 28], "norm_before_fc": True}
    )
    assert codes(check_engine(one("sglang@0.5.17"), ckpt, cfg)) == []
    spec = speculators_config()
    del spec["norm_before_residual"]
    vllm = check_engine(one("vllm@0.33.0"), layers_ckpt(), spec)
    assert ("EN007", "norm_before_residual") in [(f.code, f.config_key) for f in vllm]
    assert "EN007" not in codes(
        check_engine(one("vllm@0.33.0"), layers_ckpt(), speculators_config())
    )
    residual = sglang_config(norm_before_residual=True)
    assert "EN007" in codes(check_engine(one("sglang@0.5.23"), midlayer_ckpt(), residual))


def test_en008_loud_refusals():
    vllm = check_engine(one("vllm@0.33.0"), layers_ckpt("model.fc.weight"), vllm_config())
    assert [f.tensor for f in vllm if f.code == "EN008"] == ["model.fc.weight"]
    two = sglang_config(num_hidden_layers=2)
    assert "EN008" in codes(check_engine(one("sglang@0.5.11"), midlayer_ckpt(), two))
    assert "EN008" not in codes(check_engine(one("sglang@0.5.12"), midlayer_ckpt(), two))
    no_norm = {k: v for k, v in midlayer_ckpt().items() if k != "norm.weight"}
    trt = check_engine(one("trtllm"), no_norm, sglang_config())
    assert [f.tensor for f in trt if f.code == "EN008"] == ["norm.weight"]
    assert "EN008" not in codes(check_engine(one("trtllm"), midlayer_ckpt(), sglang_config()))


def test_en009_embedding_replaced_by_the_targets():
    found = check_engine(
        one("sglang@0.5.23"), midlayer_ckpt("embed_tokens.weight"), sglang_config()
    )
    assert [(f.code, f.tensor) for f in found] == [("EN009", "embed_tokens.weight")]
    wide = sglang_config(target_hidden_size=7168)
    kept = check_engine(one("sglang@0.5.23"), midlayer_ckpt("embed_tokens.weight"), wide)
    assert kept == []
    missing = check_engine(one("sglang@0.5.23"), midlayer_ckpt(), wide)
    assert [(f.code, f.tensor) for f in missing] == [("EN002", "embed_tokens.weight")]


def test_en010_and_en011_aux_defaults_and_lookalikes():
    bare = sglang_config()
    del bare["eagle_config"]
    # 0.5.20's capture was never run (0.5.23's was: test_unknown_target.py)
    guess = check_aux_layer_ids(one("sglang@0.5.20"), bare, 32)
    assert codes(guess) == ["EN010"] and "a guess" in guess[0].message
    v = check_aux_layer_ids(
        one("vllm@0.33.0"), vllm_config(eagle_aux_hidden_state_layer_ids=[1, 15, 28]), 32
    )
    # top-level ids in an hf-layout config: no producer of the corpus writes them, no run
    assert codes(v) == ["EN011"] and "a guess" in v[0].message
    s = sglang_config(eagle_config={"eagle_aux_hidden_state_layer_ids": [2, 16, 29]})
    # a guess where no capture run covers the version (0.5.20); measured on 0.5.14 and 0.5.23
    assert codes(check_aux_layer_ids(one("sglang@0.5.20"), s, 32, "LlamaForCausalLM")) == ["EN011"]
    for measured in ("sglang@0.5.14", "sglang@0.5.23"):
        assert check_aux_layer_ids(one(measured), s, 32, "LlamaForCausalLM") == []
    # the DeepSeek family applies +1 only to a first id of 1, so 2 is not a look-alike there
    assert check_aux_layer_ids(one("sglang@0.5.23"), s, 61, "DeepseekV3ForCausalLM") == []


def test_en012_unverifiable_aspects_are_info():
    trt = one("trtllm")
    assert codes(check_aux_layer_ids(trt, sglang_config(), 32)) == ["EN012"]
    assert codes(check_target_capture(trt, ["LlamaForCausalLM"])) == ["EN012"]
    assert all(f.severity is Severity.INFO for f in check_target_capture(trt, ["X"]))


def test_en013_and_en014_speculators_logs_and_partial_init():
    found = check_engine(
        one("speculators"), layers_ckpt("midlayer.extra.weight"), speculators_config()
    )
    assert [(f.code, f.tensor) for f in found] == [("EN013", "midlayer.extra.weight")]
    no_embed = {k: v for k, v in layers_ckpt().items() if k != "embed_tokens.weight"}
    found = check_engine(one("speculators"), no_embed, speculators_config())
    assert [(f.code, f.tensor) for f in found] == [("EN014", "embed_tokens.weight")]
    no_head = {k: v for k, v in layers_ckpt().items() if k != "lm_head.weight"}
    vllm = check_engine(one("vllm@0.33.0"), no_head, vllm_config())
    assert [(f.code, f.tensor) for f in vllm] == [("EN014", "lm_head.weight")]


def test_vllm_rejects_d2t_for_a_full_vocabulary_draft():
    full = vllm_config(draft_vocab_size=128256)  # Vd == Vt: no draft_id_to_target_id parameter
    found = check_engine(one("vllm@0.33.0"), layers_ckpt(), full)
    assert [(f.code, f.tensor) for f in found] == [("EN008", "d2t")]
    sglang = check_engine(
        one("sglang@0.5.23"), midlayer_ckpt(), sglang_config(draft_vocab_size=128256)
    )
    assert sglang == []  # SGLang turns any d2t into hot_token_id


def test_qwen3_drafts_keep_q_k_norms_only_where_a_qwen3_class_exists():
    norms = [f"layers.0.self_attn.{n}_norm.weight" for n in "qk"]
    qwen3 = speculators_config()
    qwen3["transformer_layer_config"]["model_type"] = "qwen3"
    assert check_engine(one("vllm@0.33.0"), layers_ckpt(*norms), qwen3) == []
    missing = check_engine(one("vllm@0.33.0"), layers_ckpt(), qwen3)
    assert {(f.code, f.tensor) for f in missing} == {("EN002", n) for n in norms}
    old = check_engine(one("vllm@0.20.0"), layers_ckpt(*norms), qwen3)
    assert {f.tensor for f in old if f.code == "EN008"} == set(norms)  # KeyError before #43132
    spec = check_engine(one("speculators"), layers_ckpt(), qwen3)
    assert {(f.code, f.tensor) for f in spec} == {("EN002", n) for n in norms}


def test_names_are_checked_without_a_config():
    found = check_engine(one("sglang@0.5.11"), layers_ckpt(), None)
    assert {f.code for f in found} == {"EN001", "EN002", "EN009"}  # embedding: shared
    assert check_aux_layer_ids(one("sglang@0.5.11"), None, None)[0].code == "EN010"


def test_vllm_0_11_ignores_draft_aux_ids_and_shares_full_vocab_heads():
    profile = one("vllm@0.11.0")
    found = check_aux_layer_ids(profile, vllm_config(), 32)
    assert set(codes(found)) == {"EN003", "EN010"}
    full = vllm_config(draft_vocab_size=128256)
    shared = check_engine(profile, layers_ckpt(), full)
    assert {(f.code, f.tensor) for f in shared} == {
        ("EN009", "lm_head.weight"),
        ("EN009", "embed_tokens.weight"),
    }
    no_head = {k: v for k, v in layers_ckpt().items() if k != "lm_head.weight"}
    assert ("EN002", "lm_head.weight") in [
        (f.code, f.tensor) for f in check_engine(profile, no_head, vllm_config())
    ]


@pytest.mark.parametrize(
    ("spec", "extra", "config", "expected"),
    [
        # draft_id_to_target_id became conditional on a reduced vocabulary in 0.30.0
        ("vllm@0.29.0", (), {"draft_vocab_size": 128256}, []),
        ("vllm@0.30.0", (), {"draft_vocab_size": 128256}, [("EN008", "d2t")]),
        # AutoWeightsLoader (0.25+) ignores unexpected .bias; the 0.24 params_dict lookup raises
        ("vllm@0.24.0", ("fc.bias",), {}, [("EN008", "fc.bias")]),
        ("vllm@0.25.0", ("fc.bias",), {}, [("EN001", "fc.bias")]),
        # q/k/v bias follows attention_bias from 0.17.0; 0.15.0 builds bias=False
        (
            "vllm@0.15.0",
            ("layers.0.self_attn.q_proj.bias",),
            {"attention_bias": True},
            [("EN008", "layers.0.self_attn.q_proj.bias")],
        ),
        ("vllm@0.17.0", ("layers.0.self_attn.q_proj.bias",), {"attention_bias": True}, []),
        # input_norm: no parameter before 0.20.0; dropped unless norm_before_fc from 0.20.0
        (
            "vllm@0.17.0",
            ("input_norm.weight",),
            {"norm_before_fc": True},
            [("EN008", "input_norm.weight"), ("EN007", None)],
        ),
        ("vllm@0.20.0", ("input_norm.weight",), {"norm_before_fc": True}, []),
        (
            "vllm@0.20.0",
            ("input_norm.weight",),
            {},
            [("EN001", "input_norm.weight"), ("EN007", None)],
        ),
    ],
)
def test_vllm_version_boundaries(spec, extra, config, expected):
    found = check_engine(one(spec), layers_ckpt(*extra), vllm_config(**config))
    assert sorted((f.code, f.tensor) for f in found) == sorted(expected)


def test_vllm_0_24_drops_fc_norm_of_speculators_configs():
    ckpt = layers_ckpt(*[f"fc_norm.{k}.weight" for k in range(3)])
    config = speculators_config(fc_norm=True)
    old = check_engine(one("vllm@0.24.0"), ckpt, config)
    assert {f.tensor for f in old if f.code == "EN008"} == {f"fc_norm.{k}.weight" for k in range(3)}
    assert ("EN007", "fc_norm") in [(f.code, f.config_key) for f in old]
    assert check_engine(one("vllm@0.25.0"), ckpt, config) == []


MLA_LAYER = [
    "self_attn.q_a_proj.weight",
    "self_attn.q_a_layernorm.weight",
    "self_attn.q_b_proj.weight",
    "self_attn.kv_a_proj_with_mqa.weight",
    "self_attn.kv_a_layernorm.weight",
    "self_attn.kv_b_proj.weight",
    "self_attn.o_proj.weight",
    *(x for x in LAYER if not x.startswith("self_attn.")),
]


def mla_ckpt(*drop: str) -> dict:
    """The names Model-Optimizer's kimik2 export writes (corpus modelopt-0.47.0-mla-kimik2)."""
    names = [f"layers.0.{x}" for x in MLA_LAYER] + ["fc.weight", "norm.weight", "lm_head.weight"]
    return tensors(n for n in names if n not in drop)


def test_mla_drafts_are_name_checked_by_their_own_loader():
    kimi = sglang_config(
        architectures=["Eagle3DeepseekV2ForCausalLM"], q_lora_rank=32, draft_vocab_size=128256
    )
    assert codes(check_engine(one("sglang@0.5.11"), mla_ckpt(), kimi))[-1] == "EN004"
    for spec in ("sglang@0.5.12", "sglang@0.5.23", "vllm@0.20.0", "vllm@0.33.0"):
        assert check_engine(one(spec, "eagle3:mla"), mla_ckpt(), kimi) == [], spec
        missing = check_engine(
            one(spec, "eagle3:mla"), mla_ckpt("layers.0.self_attn.kv_b_proj.weight"), kimi
        )
        assert [f.code for f in missing] == ["EN002"], spec
    llama_names = check_engine(one("sglang@0.5.23", "eagle3:mla"), layers_ckpt(), kimi)
    assert "EN013" in codes(llama_names) and "EN002" in codes(llama_names)
    assert "EN008" in codes(check_engine(one("vllm@0.33.0", "eagle3:mla"), layers_ckpt(), kimi))


def test_tie_word_embeddings_drops_the_trained_head_in_sglang():
    tied = sglang_config(tie_word_embeddings=True)
    found = check_engine(one("sglang@0.5.23"), midlayer_ckpt(), tied)
    assert [(f.code, f.tensor) for f in found] == [("EN001", "lm_head.weight")]


def test_multilayer_speculators_draft_in_sglang_and_trtllm():
    ckpt = layers_ckpt(*[f"layers.1.{x}" for x in LAYER if "input_layernorm" not in x])
    config = sglang_config(num_hidden_layers=2)
    assert codes(check_engine(one("sglang@0.5.23"), ckpt, config)) == ["EN009"]
    trt = check_engine(one("trtllm"), ckpt, config)
    assert codes(trt) == ["EN009"]  # layers.N. -> midlayer.N., embedding shared from the target
    regular = check_engine(one("trtllm"), layers_ckpt("layers.1.input_layernorm.weight"), config)
    assert ("EN001", "layers.1.input_layernorm.weight") in [(f.code, f.tensor) for f in regular]
    three = layers_ckpt()  # config says 2 layers but only layer 0 is shipped
    assert "EN002" in codes(check_engine(one("sglang@0.5.23"), three, config))


def test_every_finding_carries_engine_hint_and_catalogue_severity():
    rules = all_rules()
    seen: set[str] = set()
    scenarios = [
        ("sglang@0.5.9", layers_ckpt("input_norm.weight"), sglang_config()),
        ("vllm@0.20.0", layers_ckpt("model.x", "fc_norm.0.weight"), sglang_config()),
        ("speculators", midlayer_ckpt(), sglang_config()),
        ("trtllm", midlayer_ckpt(), sglang_config()),
    ]
    for spec, ckpt, config in scenarios:
        profile = one(spec)
        target = {"architectures": ["KimiK25ForConditionalGeneration"], "num_hidden_layers": 3}
        for finding in check_all(profile, ckpt, config, target):
            seen.add(finding.code)
            assert finding.engine == profile.label
            assert finding.hint
            if profile.verified:
                assert rules[finding.code].severity is finding.severity
            else:  # no engine code behind it: never an error (test_fidelity_fixes.py)
                assert finding.severity is not Severity.ERROR
    assert len(seen) >= 8


def test_catalogue_documents_every_en_code():
    rules = {code: r for code, r in all_rules().items() if code.startswith("EN")}
    assert sorted(rules) == [f"EN{n:03d}" for n in range(1, 25)]
    for rule in rules.values():
        assert rule.summary and rule.explanation and rule.example and rule.hint
    # Emitted by the profile rules, or by the installed engine's verdict (EN024).
    package = ROOT / "python/eagle3_inspect"
    sources = "".join(
        p.read_text()
        for where in ("rules/en", "installed")
        for p in (package / where).rglob("*.py")
    )
    assert all(f'"{code}"' in sources for code in rules)


# --- the generator, on synthetic wheels ------------------------------------------------------


def _wheel(path: Path, files: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


@pytest.fixture
def gen():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_capture_lists

        yield gen_capture_lists
    finally:
        sys.path.remove(str(ROOT / "tools"))


def test_generator_follows_sglang_inheritance_and_conventions(tmp_path, gen):
    models = "sglang/srt/models/"
    wheel = _wheel(
        tmp_path / "sglang-9.9.9-py3-none-any.whl",
        {
            models + "base.py": (
                "class Base:\n"
                "    def set_eagle3_layers_to_capture(self, layer_ids=None):\n"
                "        self.layers_to_capture = [val + 1 for val in layer_ids]\n"
                "class Heuristic:\n"
                "    def set_eagle3_layers_to_capture(self, layer_ids=None):\n"
                "        if layer_ids and layer_ids[0] == 1:\n"
                "            layer_ids = [v + 1 for v in layer_ids]\n"
                "EntryClass = [Base, Heuristic]\n"
            ),
            models + "child.py": (
                "from sglang.srt.models.base import Base, Heuristic\n"
                "class Child(Base):\n    pass\n"
                "class Plain:\n    pass\n"
                "class Wrapper:\n"
                "    def __init__(self):\n        self.language_model = Heuristic()\n"
                "    def set_eagle3_layers_to_capture(self, layer_ids=None):\n"
                "        self.language_model.set_eagle3_layers_to_capture(layer_ids)\n"
                "EntryClass = [Child, Plain, Wrapper]\n"
            ),
            models + "child_eagle3.py": (  # a drafter module: not a target
                "from sglang.srt.models.child import Child\n"
                "class ChildForCausalLMEagle3(Child):\n    pass\n"
                "EntryClass = [ChildForCausalLMEagle3]\n"
            ),
        },
    )
    data = tomllib.loads(gen.generate("sglang", [wheel]))["versions"]["9.9.9"]
    assert data["registered_count"] == 5
    assert data["target_architectures"] == ["Base", "Child", "Heuristic", "Wrapper"]
    assert data["aux_layer_conventions"] == {
        "Heuristic": "output-of-if-first-is-1",
        "Wrapper": "output-of-if-first-is-1",
    }


def test_generator_reads_vllm_registry_and_supports_eagle3(tmp_path, gen):
    models = "vllm/model_executor/models/"
    wheel = _wheel(
        tmp_path / "vllm-9.9.9-cp38-abi3-manylinux1_x86_64.whl",
        {
            models + "registry.py": (
                "_TEXT = {\n"
                "    'LlamaForCausalLM': ('llama', 'LlamaForCausalLM'),\n"
                "    'MyForCausalLM': ('mine', 'MyForCausalLM'),\n"
                "    'OtherForCausalLM': ('mine', 'Other'),\n"
                "}\n"
                "_SPECULATIVE_DECODING_MODELS = {\n"
                "    'Eagle3MyForCausalLM': ('mine', 'MyForCausalLM'),\n"
                "}\n"
            ),
            models + "llama.py": (
                "from .interfaces import SupportsEagle3\n"
                "class LlamaForCausalLM(nn.Module, SupportsEagle3):\n    pass\n"
            ),
            models + "mine.py": (
                "from .llama import LlamaForCausalLM\n"
                "class MyForCausalLM(LlamaForCausalLM):\n    pass\n"
                "class Other:\n    supports_eagle3 = False\n"
            ),
        },
    )
    data = tomllib.loads(gen.generate("vllm", [wheel]))["versions"]["9.9.9"]
    assert data["registered_count"] == 3
    assert data["target_architectures"] == ["LlamaForCausalLM", "MyForCausalLM"]


def test_a_version_newer_than_any_read_is_refused_not_checked():
    """EN012 "newer than every version read" is retired (issue 24 item 13): such a version is
    refused when the spec is parsed, and a profile made by hand for one gets no EN012 either
    (the check is gone, not merely unreachable); `rules EN012` says what replaced it."""
    (engine,) = resolve_engines("sglang")
    with pytest.raises(InvalidArgumentError, match="newest read"):
        resolve_engines("sglang@99.0")
    future = dataclasses.replace(engine, version="99.0").family_profile("eagle3")
    assert future is not None
    assert [f for f in check_engine(future, {}, None) if f.code == "EN012"] == []
    assert "refused when the engine spec" in " ".join(explained("EN012").explanation.split())


@pytest.mark.parametrize("nest", ["text_config", "language_config", "llm_config"])
def test_en005_reads_the_layer_count_wherever_the_target_nests_its_text_model(nest):
    """EN005 once read only `text_config`; InternVL-style targets use `llm_config` and
    DeepSeek-VL-style ones `language_config`, and their layer count was lost."""
    config = sglang_config(eagle_config={"eagle_aux_hidden_state_layer_ids": [1, 30, 61]})
    target = {
        "architectures": ["LlamaForCausalLM"],
        nest: {"hidden_size": 4096, "num_hidden_layers": 62},
    }
    found = check_all(one("sglang@0.5.23"), midlayer_ckpt(), config, target)
    (en005,) = [f for f in found if f.code == "EN005"]
    assert "62-layer target" in en005.message
    target[nest]["num_hidden_layers"] = 63
    assert "EN005" not in codes(check_all(one("sglang@0.5.23"), midlayer_ckpt(), config, target))


LLAMA = "LlamaForCausalLM"


def test_en022_and_silence_where_a_forward_run_measured_the_aux_states():
    # SpecForge / Model-Optimizer ids (eagle_config) on vLLM: fed one layer early (capture run)
    hf = check_aux_layer_ids(one("vllm@0.33.0"), sglang_config(), 32, "LlamaForCausalLM")
    assert codes(hf) == ["EN003", "EN022"] and hf[1].severity is Severity.ERROR  # EN003: V2
    assert "capture_truth.json" in hf[1].message
    # the same ids on SGLang, which trained them: nothing (0.5.14's capture was run) ...
    assert check_aux_layer_ids(one("sglang@0.5.14"), sglang_config(), 32, LLAMA) == []
    # ... and speculators' ids on vLLM, whose capture speculators trains on: nothing, even the
    # output-of look-alike [1, ...] that EN011 used to flag
    spec = speculators_config(eagle_aux_hidden_state_layer_ids=[1, 15, 28])
    assert check_aux_layer_ids(one("vllm@0.33.0"), spec, 32, "LlamaForCausalLM") == []
    # no ids anywhere: trained on the producer's default layers, which the capture runs show
    # the engines' defaults feed (SpecForge's no-ids drafters), so nothing instead of EN010
    bare = sglang_config()
    del bare["eagle_config"]
    assert check_aux_layer_ids(one("vllm@0.33.0"), bare, 32, LLAMA) == []
    assert check_aux_layer_ids(one("sglang@0.5.14"), bare, 32, LLAMA) == []
    # ids where the engine does not read them: it feeds its default layers, which the runs show
    # are the producers' defaults ([1, N//2-1, N-4] for this format): trained on others, EN022
    elsewhere = sglang_config(eagle_aux_hidden_state_layer_ids=[1, 10, 20])
    del elsewhere["eagle_config"]
    found = check_aux_layer_ids(one("sglang@0.5.14"), elsewhere, 32, LLAMA)
    assert codes(found) == ["EN003", "EN022"] and "[1, 15, 28]" in found[1].message
    # ... the defaults themselves are harmless there, also on 0.5.23 (its layer_boundary capture
    # was run); without a run (0.5.20) EN010 stays a guess
    elsewhere["eagle_aux_hidden_state_layer_ids"] = [1, 15, 28]
    assert codes(check_aux_layer_ids(one("sglang@0.5.14"), elsewhere, 32, LLAMA)) == ["EN003"]
    assert codes(check_aux_layer_ids(one("sglang@0.5.23"), elsewhere, 32, LLAMA)) == ["EN003"]
    assert "EN010" in codes(check_aux_layer_ids(one("sglang@0.5.20"), elsewhere, 32, LLAMA))
    # vLLM's Qwen3 target was run too: the same ids are fed one layer early
    qwen3 = check_aux_layer_ids(one("vllm@0.33.0"), sglang_config(), 32, "Qwen3ForCausalLM")
    assert codes(qwen3) == ["EN003", "EN022"] and "qwen3-8l" in qwen3[1].message
    # SGLang's own Qwen3ForCausalLM capture was run too (run_capture.py --engine sglang --target
    # qwen3 on 0.5.9 / 0.5.14 / 0.5.23: default and ids=[1, 3, 4] feed stream [2, 4, 5], the
    # SpecForge / Model-Optimizer training boundaries): the EN010 guess without ids is gone
    # there; 0.5.20, not run, keeps it
    for label in ("sglang@0.5.9", "sglang@0.5.14", "sglang@0.5.23"):
        assert check_aux_layer_ids(one(label), bare, 32, "Qwen3ForCausalLM") == [], label
        assert check_aux_layer_ids(one(label), sglang_config(), 32, "Qwen3ForCausalLM") == []
    qwen3_guess = check_aux_layer_ids(one("sglang@0.5.20"), bare, 32, "Qwen3ForCausalLM")
    assert codes(qwen3_guess) == ["EN010"] and "a guess" in qwen3_guess[0].message
    # no run for another target class or an unrun version: the guess stays, and says so
    other = check_aux_layer_ids(one("vllm@0.33.0"), sglang_config(), 32, "MistralForCausalLM")
    assert codes(other) == ["EN003", "EN011"] and "a guess" in other[1].message
    assert check_aux_layer_ids(one("sglang@0.5.23"), bare, 32, LLAMA) == []
    guess = check_aux_layer_ids(one("sglang@0.5.20"), bare, 32, LLAMA)
    assert codes(guess) == ["EN010"] and "a guess" in guess[0].message
    # with the target unknown (no --target) the runs' verdict on the classes they measured
    # (Llama, Qwen3: one layer off on both) is a warning that says so, not a guess or EN022
    unknown = check_aux_layer_ids(one("vllm@0.33.0"), sglang_config(), 32)
    assert codes(unknown) == ["EN003", "EN011"] and "a guess" not in unknown[1].message
    assert "LlamaForCausalLM, Qwen3ForCausalLM" in unknown[1].message
    # ids stated null, as speculators 0.3.0 writes them: trained on the outputs of its datagen's
    # default layers, and vLLM 0.15 / 0.25 / 0.33 feed their inputs (producer_speculators03.py
    # against capture_truth.json): EN022, for that writer only; another writer version, an
    # unrun engine version or an unmeasured target class keep the guess
    null03 = speculators_config(eagle_aux_hidden_state_layer_ids=None, speculators_version="0.3.0")
    for label in ("vllm@0.15.0", "vllm@0.25.0", "vllm@0.33.0"):
        found = check_aux_layer_ids(one(label), null03, 32, LLAMA)
        assert codes(found) == ["EN022"] and "ids stated null" in found[0].message, label
    null09 = dict(null03, speculators_version="0.9.0")
    for label, config, target in (
        ("vllm@0.33.0", null09, LLAMA),
        ("vllm@0.20.0", null03, LLAMA),
        ("vllm@0.33.0", null03, "Qwen3ForCausalLM"),
    ):
        kept = check_aux_layer_ids(one(label), config, 32, target)
        assert codes(kept) == ["EN010"] and "a guess" in kept[0].message, (label, target)
    # with no --target the runs' verdict on the class they measured (Llama: one layer off) is a
    # warning that says so, not a guess and not EN022 (the target may be of another class)
    unknown_null = check_aux_layer_ids(one("vllm@0.33.0"), null03, 32)
    assert codes(unknown_null) == ["EN010"] and "a guess" not in unknown_null[0].message
    assert "LlamaForCausalLM" in unknown_null[0].message


def _flag_codes(spec: str, ckpt: dict, config: dict) -> list[tuple[str, str | None]]:
    found = check_engine(one(spec), ckpt, config)
    return [(f.code, f.config_key) for f in found if f.code in ("EN007", "EN023")]


def test_en023_and_silence_where_a_forward_run_measured_the_norm_flag():
    # SpecForge's norm_output=true is its default meaning (the final norm before lm_head); SGLang
    # >= 0.5.12 and vLLM >= 0.22 read it as "feed the normed state to the next step": measured
    spec_true = sglang_config(norm_output=True)
    for label in ("sglang@0.5.14", "sglang@0.5.23", "vllm@0.25.0", "vllm@0.33.0"):
        assert _flag_codes(label, midlayer_ckpt(), spec_true) == [("EN023", "norm_output")]
        (found,) = [
            f for f in check_engine(one(label), midlayer_ckpt(), spec_true) if f.code == "EN023"
        ]
        assert found.severity is Severity.ERROR and "193/381" in found.message, label
        assert "llama_eagle3.py LlamaModel.forward" in found.message, label
    # ... engines without the flag compute SpecForge's default: the run shows it harmless
    for label in ("sglang@0.5.9", "vllm@0.15.0"):
        assert _flag_codes(label, midlayer_ckpt(), spec_true) == [], label
    # SpecForge's norm_output=false (no final norm): every engine run applies it
    for label in ("sglang@0.5.9", "sglang@0.5.14", "vllm@0.15.0", "vllm@0.33.0"):
        assert _flag_codes(label, midlayer_ckpt(), sglang_config(norm_output=False)) == [
            ("EN023", "norm_output")
        ], label
    # fc_norm on SGLang 0.5.9 (no fc_norm): the measured error replaces the EN007 guess
    fc_norm = midlayer_ckpt(*[f"fc_norm.{k}.weight" for k in range(3)])
    assert _flag_codes("sglang@0.5.9", fc_norm, sglang_config(fc_norm=True)) == [
        ("EN023", "fc_norm")
    ]
    assert _flag_codes("sglang@0.5.14", fc_norm, sglang_config(fc_norm=True)) == []
    # speculators' norm_output=true on vLLM 0.15 (not passed through) and on 0.25 (it is)
    spec = speculators_config(norm_output=True)
    assert ("EN023", "norm_output") in _flag_codes("vllm@0.15.0", layers_ckpt(), spec)
    assert _flag_codes("vllm@0.25.0", layers_ckpt(), spec) == []
    # Model-Optimizer's export flag: its first layer norms the hidden states twice in training
    modelopt = sglang_config(
        eagle_config={
            "eagle_aux_hidden_state_layer_ids": [1, 15, 28],
            "use_input_layernorm_in_first_layer": True,
        }
    )
    for label in ("sglang@0.5.14", "vllm@0.15.0", "vllm@0.33.0"):
        assert _flag_codes(label, midlayer_ckpt(), modelopt) == [
            ("EN023", "use_input_layernorm_in_first_layer")
        ], label
    assert _flag_codes("sglang@0.5.9", midlayer_ckpt(), modelopt) == []  # no run there
    # a version no run covers keeps the guess, and says so
    guess = check_engine(one("sglang@0.5.11"), fc_norm, sglang_config(fc_norm=True))
    en007 = [f for f in guess if f.code == "EN007"]
    assert en007 and "a guess" in en007[0].message
    assert "EN023" not in codes(guess)
