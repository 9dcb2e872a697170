"""PE rules: P-EAGLE drafters get the E3 rules (their layers are EAGLE-3's) plus PE001-PE004;
vLLM serves them from a speculators-format config only (>= 0.25), SGLang not at all."""

from __future__ import annotations

import json

import pytest

from eagle3_inspect.commands.validate import validate
from eagle3_inspect.findings import Severity
from eagle3_inspect.registry import all_rules
from eagle3_inspect.synthetic.families import build_peagle
from tests.layout_helpers import with_config, with_tensor


def _found(drafter, tmp_path, **kw):
    path = drafter.write(tmp_path / "drafter")
    return [(f.code, f.severity, f.engine) for f in validate(path, stats=False, **kw).findings]


def test_a_speculators_peagle_drafter_is_clean_where_it_is_served(tmp_path) -> None:
    found = _found(build_peagle(), tmp_path, engine="vllm@0.25.0,vllm@0.33.0,speculators")
    assert [f for f in found if f[1] in (Severity.ERROR, Severity.WARNING)] == []
    found = _found(build_peagle(), tmp_path / "b", engine="vllm@0.20.0,sglang@0.5.23")
    refusals = [(c, e) for c, s, e in found if s is Severity.ERROR]
    assert refusals == [("EN004", "sglang@0.5.23"), ("EN004", "vllm@0.20.0")]


def test_an_hf_style_peagle_config_is_refused_by_vllm(tmp_path) -> None:
    found = _found(build_peagle(style="hf"), tmp_path, engine="vllm@0.33.0")
    assert ("EN004", Severity.ERROR, "vllm@0.33.0") in found


CASES = {
    "PE001": lambda: with_tensor(build_peagle(), "mask_hidden", (1, 1, 64)),
    "PE002": lambda: with_tensor(build_peagle(), "mask_hidden", None),
    "PE003": lambda: with_config(build_peagle(), "mask_token_id", delete=True),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_rule_fires(code, tmp_path) -> None:
    hits = [s for c, s, _ in _found(CASES[code](), tmp_path) if c == code]
    assert hits == [Severity.WARNING]


def test_pe004_mask_token_outside_the_target_vocabulary(tmp_path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    config = {
        "architectures": ["LlamaForCausalLM"],
        "hidden_size": 64,
        "num_hidden_layers": 32,
        "vocab_size": 1024,
    }
    (target / "config.json").write_text(json.dumps(config))
    drafter = with_config(build_peagle(), "mask_token_id", 1024)
    assert ("PE004", Severity.WARNING, None) in _found(drafter, tmp_path, target=target)


def test_every_pe_code_has_a_firing_test() -> None:
    assert {c for c in all_rules() if c.startswith("PE")} == {*CASES, "PE004"}
