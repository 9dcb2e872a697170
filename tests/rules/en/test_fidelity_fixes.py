"""The rule fixes the engine ground truth forced (issue 9): each pinned to the engine code that
decided it (tools/engine_truth/engine_truth.json), on crafted inputs. Pure Python."""

from __future__ import annotations

import copy

import pytest

from eagle3_inspect.findings import Severity
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.rules.en import check_all, check_engine, load_profiles, resolve_engines
from tests.rules.en.test_engines import LAYER, sglang_config, speculators_config

H = 64


def one(spec: str):
    """The EAGLE-3 section of the one profile `spec` resolves to."""
    (profile,) = resolve_engines(spec)
    return profile.family_profile("eagle3")


def ckpt(aux: int, prefix: str = "layers.0.") -> dict[str, TensorInfo]:
    shapes = {"fc.weight": (H, aux * H), "norm.weight": (H,), "lm_head.weight": (200, H)}
    shapes |= {f"{prefix}{x}": (H, H) for x in LAYER}
    shapes |= {"d2t": (200,), "t2d": (1000,)}
    return {n: TensorInfo(n, "BF16", s, 2, "model.safetensors", 0) for n, s in shapes.items()}


def fc_findings(spec: str, aux: int, config: dict, prefix: str = "layers.0.") -> list:
    return [f for f in check_engine(one(spec), ckpt(aux, prefix), config) if f.code == "EN015"]


@pytest.mark.parametrize(
    ("spec", "fails"),
    [
        # sglang llama_eagle3.py LlamaModel.__init__: Linear(hidden_size_in * 3) up to 0.5.11,
        # num_aux_hidden_states > len(eagle_config ids) > 3 from 0.5.12.
        ("sglang@0.5.8", True),
        ("sglang@0.5.11", True),
        ("sglang@0.5.12", False),
        ("sglang@0.5.23", False),
        # vllm llama_eagle3.py: target_hidden_size * 3 up to 0.20, the same lookup from 0.25.
        ("vllm@0.11.0", True),
        ("vllm@0.20.0", True),
        ("vllm@0.25.0", False),
        ("vllm@0.33.0", False),
    ],
)
def test_en015_fc_width_follows_where_each_version_counts_aux_states(spec, fails):
    four = sglang_config(
        hidden_size=H, eagle_config={"eagle_aux_hidden_state_layer_ids": [1, 8, 16, 28]}
    )
    found = fc_findings(spec, 4, four, "midlayer.")
    assert bool(found) is fails, found
    assert all(f.severity is Severity.ERROR and f.tensor == "fc.weight" for f in found)
    # Three aux states load everywhere.
    three = sglang_config(
        hidden_size=H, eagle_config={"eagle_aux_hidden_state_layer_ids": [1, 8, 16]}
    )
    assert fc_findings(spec, 3, three, "midlayer.") == []


def test_en015_top_level_ids_count_for_speculators_but_not_for_vllm():
    # corpus/speculators-0.9.0-aux4: speculators loads it (core.py num_aux = len(ids)); every
    # vLLM version raises the fc shape assertion (its lookup never reads top-level ids).
    spec = speculators_config(eagle_aux_hidden_state_layer_ids=[1, 2, 4, 6])
    spec["transformer_layer_config"]["hidden_size"] = H
    assert fc_findings("speculators@0.9.0", 4, spec) == []
    assert fc_findings("vllm@0.33.0", 4, spec)
    assert fc_findings("vllm@0.11.0", 4, spec)


def test_speculators_format_configs_are_served_by_speculators_model_type():
    # speculators model.py from_pretrained dispatches on speculators_model_type; save_pretrained
    # writes the class name, so real checkpoints say Eagle3DraftModel (tests/corpus).
    spec = speculators_config(architectures=["Eagle3DraftModel"])
    for engine in ("speculators@0.9.0", "vllm@0.20.0", "vllm@0.33.0"):
        assert "EN004" not in [f.code for f in check_engine(one(engine), ckpt(3), spec)], engine
    # Without speculators_model_type speculators refuses (auto-convert fails) and SGLang has no
    # speculators adapter at all.
    plain = copy.deepcopy(spec)
    del plain["speculators_model_type"]
    assert "EN004" in [f.code for f in check_engine(one("speculators@0.9.0"), ckpt(3), plain)]
    assert "EN004" in [f.code for f in check_engine(one("sglang@0.5.23"), ckpt(3), spec)]


def test_no_error_without_evidence():
    """A profile no engine code backs (verified = false: TensorRT-LLM, no wheel) never raises
    an error; the same inputs do raise errors under a verified profile."""
    unverified = [p for p in load_profiles() if not p.verified]
    assert [p.engine for p in unverified] == ["trtllm"]
    broken = sglang_config(hidden_size=H, architectures=["MyDraft"])
    names = ckpt(1, "midlayer.")
    names.pop("norm.weight")
    for profile in unverified:
        found = check_all(profile, names, broken)
        assert found and all(f.severity is not Severity.ERROR for f in found)
        assert any("UNVERIFIED" in f.message for f in found)
    verified = check_all(one("sglang@0.5.11"), names, broken)
    assert any(f.severity is Severity.ERROR for f in verified)


def test_follow_on_findings_are_folded_under_a_refusal():
    # SGLang has no speculators adapter (srt/models/registry.py: no EntryClass for the class):
    # one EN004 remains, carrying the count of the name findings it absorbed.
    spec = speculators_config(architectures=["Eagle3DraftModel"])
    spec["transformer_layer_config"]["hidden_size"] = H
    found = check_all(one("sglang@0.5.11"), ckpt(3), spec)
    assert [f.code for f in found] == ["EN004"]
    assert "folded" in found[0].message and "EN001" in found[0].message
    # A load-time crash is not a refusal: the dropped layers stay visible beside EN015.
    four = sglang_config(
        hidden_size=H, eagle_config={"eagle_aux_hidden_state_layer_ids": [1, 2, 3, 4]}
    )
    crashed = check_all(one("sglang@0.5.11"), ckpt(4), four)
    assert {"EN015", "EN001"} <= {f.code for f in crashed}
    # ... as one rename finding: the parameters left random are its EN002s, folded into it.
    assert "EN002 x" in next(f.message for f in crashed if f.code == "EN001")
