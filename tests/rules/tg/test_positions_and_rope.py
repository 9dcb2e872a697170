"""TG rules: the drafter's position range and RoPE against the target's, read from every config
layout (transformers 4 rope_theta / rope_scaling, transformers 5 rope_parameters, speculators
transformer_layer_config, a target's nested text_config). The six cases of issue 19, then the
layout matrix: the same values in different layouts raise nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eagle3_inspect.commands.validate import validate
from eagle3_inspect.reader.rope import read_rope
from eagle3_inspect.rules.tg import check_positions_and_rope
from eagle3_inspect.synthetic.drafters import build_drafter

LLAMA3 = {
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}


def tf4(theta: float, scaling: dict | None = None, rope_type: str = "llama3") -> dict:
    return {
        "rope_theta": theta,
        "rope_scaling": {"rope_type": rope_type, **scaling} if scaling else None,
    }


def tf5(theta: float, scaling: dict | None = None, rope_type: str = "llama3") -> dict:
    params = {"rope_theta": theta, "rope_type": rope_type if scaling else "default"}
    return {"rope_parameters": {**params, **(scaling or {})}}


def target(fields: dict, nested: bool = False, positions: int = 131072) -> dict:
    text = {
        "hidden_size": 64,
        "num_hidden_layers": 32,
        "vocab_size": 1024,
        "max_position_embeddings": positions,
        **fields,
    }
    if nested:
        return {"architectures": ["Qwen3VLForConditionalGeneration"], "text_config": text}
    return {"architectures": ["LlamaForCausalLM"], **text}


def drafter(fields: dict, speculators: bool = False, positions: int = 131072) -> dict:
    body = {"hidden_size": 64, "max_position_embeddings": positions, **fields}
    if speculators:
        return {"speculators_model_type": "eagle3", "transformer_layer_config": body}
    return {"architectures": ["LlamaForCausalLMEagle3"], **body}


def codes(draft: dict, tgt: dict) -> list[str]:
    return sorted(f.code for f in check_positions_and_rope(draft, tgt))


# The six cases issue 19 names (one right before it: the last, because nothing was checked).
SIX_CASES = {
    "short position range": (
        drafter(tf4(500000.0, LLAMA3), positions=2048),
        target(tf4(500000.0, LLAMA3)),
        ["TG001"],
    ),
    "theta differs, transformers-4 layout": (
        drafter(tf4(10000.0)),
        target(tf4(500000.0)),
        ["TG002"],
    ),
    "theta differs, transformers-5 layout": (
        drafter(tf5(10000.0)),
        target(tf5(1000000.0)),
        ["TG002"],
    ),
    "scaling dropped, speculators layout": (
        drafter(tf4(500000.0), speculators=True),
        target(tf4(500000.0, LLAMA3)),
        ["TG003"],
    ),
    "theta differs, target's nested text_config": (
        drafter(tf5(10000.0)),
        target(tf4(1000000.0), nested=True),
        ["TG002"],
    ),
    "same values, two layouts": (
        drafter(tf5(500000.0, LLAMA3), speculators=True),
        target(tf4(500000.0, LLAMA3), nested=True),
        [],
    ),
}


@pytest.mark.parametrize("case", sorted(SIX_CASES))
def test_the_six_cases_of_issue_19(case: str) -> None:
    draft, tgt, expected = SIX_CASES[case]
    assert codes(draft, tgt) == expected


LAYOUTS = {
    "tf4": lambda theta, s: drafter(tf4(theta, s)),
    "tf5": lambda theta, s: drafter(tf5(theta, s)),
    "speculators-tf4": lambda theta, s: drafter(tf4(theta, s), speculators=True),
    "speculators-tf5": lambda theta, s: drafter(tf5(theta, s), speculators=True),
}
TARGETS = {
    "tf4": lambda theta, s: target(tf4(theta, s)),
    "tf5": lambda theta, s: target(tf5(theta, s)),
    "nested-tf4": lambda theta, s: target(tf4(theta, s), nested=True),
    "nested-tf5": lambda theta, s: target(tf5(theta, s), nested=True),
}


@pytest.mark.parametrize("d", sorted(LAYOUTS))
@pytest.mark.parametrize("t", sorted(TARGETS))
@pytest.mark.parametrize("scaling", [None, LLAMA3], ids=["default", "llama3"])
def test_only_the_layout_differing_raises_nothing(d: str, t: str, scaling) -> None:
    same = codes(LAYOUTS[d](500000.0, scaling), TARGETS[t](500000.0, scaling))
    assert same == []
    assert codes(LAYOUTS[d](10000.0, scaling), TARGETS[t](500000.0, scaling)) == ["TG002"]
    other = None if scaling else LLAMA3
    assert codes(LAYOUTS[d](500000.0, other), TARGETS[t](500000.0, scaling)) == ["TG003"]


def test_per_layer_type_rope_parameters_read_the_full_attention_entry() -> None:
    nested = {
        "rope_parameters": {
            "full_attention": {"rope_theta": 1e6, "rope_type": "default"},
            "sliding_attention": {"rope_theta": 1e4, "rope_type": "default"},
        }
    }
    rope = read_rope(nested)
    assert (rope.type, rope.theta) == ("default", 1e6)
    assert rope.keys["rope"] == "rope_parameters.full_attention"


def test_theta_unstated_and_conflicting_layouts() -> None:
    assert codes(drafter({}), target(tf4(1000000.0))) == ["TG004"]
    both = drafter(
        {"rope_theta": 10000.0, "rope_parameters": {"rope_theta": 500000.0, "rope_type": "default"}}
    )
    assert "TG005" in codes(both, target(tf5(500000.0)))


def _write(path: Path, config: dict) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps(config))
    return path


@pytest.mark.parametrize(
    ("engine", "code"),
    [
        ("vllm@0.25.0", "EN016"),
        ("vllm@0.30.0", "EN017"),
        ("vllm@0.33.0", "EN017"),
        ("sglang@0.5.23", "EN016"),
    ],
)
def test_what_each_engine_does_with_a_short_position_range(tmp_path, engine, code) -> None:
    d = build_drafter(dialect="layers", Vt=1024)
    d.config["max_position_embeddings"] = 2048
    path = d.write(tmp_path / "drafter")
    tgt = _write(tmp_path / "target", target({"rope_theta": 10000.0}, positions=131072))
    found = {f.code for f in validate(path, engine=engine, target=tgt, stats=False).findings}
    assert code in found and "TG001" not in found  # the per-engine verdict supersedes TG001
    plain = {f.code for f in validate(path, target=tgt, stats=False).findings}
    assert "TG001" in plain


def test_vllm_0_33_keeps_a_yarn_drafter_short_and_says_the_context_is_limited(tmp_path) -> None:
    d = build_drafter(dialect="layers", Vt=1024)
    d.config.update(
        max_position_embeddings=2048,
        rope_theta=10000.0,
        rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048},
    )
    path = d.write(tmp_path / "drafter")
    tgt = _write(tmp_path / "target", target(tf4(10000.0), positions=131072))
    found = [
        f
        for f in validate(path, engine="vllm@0.33.0", target=tgt, stats=False).findings
        if f.code == "EN016"
    ]
    assert found and "served context is limited to 2048" in found[0].message
