"""DF rules: DFlash / DFlash2 drafters in either style stay quiet, every DF code fires on one
broken on purpose, and no E3 rule runs on them (a DFlash drafter is not a broken EAGLE-3)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from eagle3_inspect.commands.validate import validate
from eagle3_inspect.findings import Severity
from eagle3_inspect.registry import all_rules
from eagle3_inspect.synthetic.drafters import Drafter
from eagle3_inspect.synthetic.families import build_dflash
from tests.layout_helpers import with_config, with_tensor

LOUD = (Severity.ERROR, Severity.WARNING)


def _codes(drafter: Drafter, tmp_path: Path, **kw) -> list[tuple[str, Severity]]:
    path = drafter.write(tmp_path / "drafter")
    return [(f.code, f.severity) for f in validate(path, stats=False, **kw).findings]


@pytest.mark.parametrize(
    "build",
    [
        lambda: build_dflash(),
        lambda: build_dflash(style="zlab"),
        lambda: build_dflash(Vd=None),
        lambda: build_dflash(dflash2=True, Vd=None),
        lambda: build_dflash(style="zlab", dflash2=True, Vd=None),
    ],
)
def test_correct_dflash_drafters_get_only_the_summary(build, tmp_path) -> None:
    assert _codes(build(), tmp_path) == [("DF006", Severity.INFO)]


def _target(tmp_path: Path, **fields) -> Path:
    config = {
        "architectures": ["Qwen3ForCausalLM"],
        "hidden_size": 64,
        "num_hidden_layers": 8,
        "vocab_size": 1000,
        "max_position_embeddings": 2048,
        "rope_parameters": {"rope_theta": 10000.0, "rope_type": "default"},
        **fields,
    }
    path = tmp_path / "target"
    path.mkdir(exist_ok=True)
    (path / "config.json").write_text(json.dumps(config))
    return path


CASES: dict[str, tuple[Callable[[], Drafter], Severity]] = {
    "DF001": (lambda: with_tensor(build_dflash(), "hidden_norm.weight", None), Severity.ERROR),
    "DF002": (
        lambda: with_tensor(build_dflash(), "layers.0.self_attn.q_proj.weight", (64, 128)),
        Severity.ERROR,
    ),
    "DF003": (lambda: with_tensor(build_dflash(), "fc.weight", (64, 128)), Severity.ERROR),
    "DF004": (
        lambda: with_config(build_dflash(), "aux_hidden_state_layer_ids", delete=True),
        Severity.WARNING,
    ),
    "DF005": (lambda: build_dflash(style="zlab", mask_token_id=None), Severity.WARNING),
    "DF006": (lambda: build_dflash(), Severity.INFO),
    "DF007": (lambda: with_config(build_dflash(), "draft_vocab_size", 300), Severity.ERROR),
    "DF008": (
        lambda: with_tensor(
            build_dflash(dflash2=True, Vd=None),
            "layers.0.attention_conv.kernel_projection.weight",
            (8, 64),
        ),
        Severity.WARNING,
    ),
    "DF011": (
        lambda: with_config(build_dflash(), "aux_hidden_state_layer_ids", [2, 2, 4]),
        Severity.WARNING,
    ),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_drafter_rule_fires(code: str, tmp_path) -> None:
    build, severity = CASES[code]
    hits = [s for c, s in _codes(build(), tmp_path) if c == code]
    assert hits and set(hits) == {severity}


TARGET_CASES = {
    # +1 convention: speculators aux ids 2, 6, 9 are target_layer_ids 1, 5, 8; 8 is no layer of 8.
    "DF101": (lambda: with_config(build_dflash(), "aux_hidden_state_layer_ids", [2, 6, 9]), {}),
    "DF102": (lambda: build_dflash(), {"hidden_size": 96}),
    "DF103": (lambda: with_tensor(build_dflash(), "lm_head.weight", None), {}),
    "DF104": (lambda: build_dflash(style="zlab", mask_token_id=1000), {}),
}


@pytest.mark.parametrize("code", sorted(TARGET_CASES))
def test_each_target_rule_fires(code: str, tmp_path) -> None:
    build, fields = TARGET_CASES[code]
    found = _codes(build(), tmp_path, target=_target(tmp_path, **fields))
    assert (code, Severity.WARNING) in found


def test_target_layer_ids_in_range_under_the_plus_one_convention(tmp_path) -> None:
    """aux ids [2, 6, 8] (input-of) are target layers [1, 5, 7] of an 8-layer target: fine;
    the same ids written as z-lab output-of target_layer_ids include 8: not a layer."""
    speculators = with_config(build_dflash(), "aux_hidden_state_layer_ids", [2, 6, 8])
    target = _target(tmp_path)
    found = _codes(speculators, tmp_path / "a", target=target)
    assert "DF101" not in [c for c, _ in found]
    zlab = with_config(build_dflash(style="zlab"), "dflash_config.target_layer_ids", [2, 6, 8])
    assert "DF101" in [c for c, _ in _codes(zlab, tmp_path / "b", target=target)]


# Codes only `fix` gives (a conversion it refuses), each fired in tests/commands/fix:
# DF012 in test_families.py::test_speculators_is_never_given_what_its_own_code_did_not_load.
FIX_REFUSALS = {"DF012"}


def test_every_df_code_has_a_firing_test() -> None:
    codes = {c for c in all_rules() if c.startswith("DF")}
    assert codes == set(CASES) | set(TARGET_CASES) | FIX_REFUSALS


def test_no_e3_rule_runs_on_a_dflash_drafter(tmp_path) -> None:
    broken = with_tensor(build_dflash(), "hidden_norm.weight", None)
    found = _codes(broken, tmp_path, engine="vllm@0.33.0")
    assert not [c for c, _ in found if c.startswith("E3")]


def test_zero_initialised_dflash2_convolutions_are_a_warning_not_an_error(tmp_path) -> None:
    """speculators zero-initialises DFlash2's kernel projections: an untrained export is all
    zeros there (NUM004 a warning); an all-zero weight elsewhere stays an error."""
    name = "layers.0.attention_conv.kernel_projection.weight"
    zeroed = with_tensor(build_dflash(dflash2=True, Vd=None), name, (16, 64))
    found = validate(zeroed.write(tmp_path / "a")).findings
    hits = [f for f in found if f.code == "NUM004"]
    assert [(f.tensor, f.severity) for f in hits] == [(name, Severity.WARNING)]
    assert "zero-initialises" in hits[0].message
    broken = with_tensor(zeroed, "layers.0.mlp.up_proj.weight", (128, 64))
    errors = [
        f.tensor
        for f in validate(broken.write(tmp_path / "b")).findings
        if f.code == "NUM004" and f.severity is Severity.ERROR
    ]
    assert errors == ["layers.0.mlp.up_proj.weight"]


def test_vllm_without_layer_ids_captures_three_states_for_a_wider_fc(tmp_path) -> None:
    """SpecForge's DFlash export writes no target layer ids: vLLM then captures its default
    three EAGLE-3 aux states while fc reads one per draft-config id (EN020, the harness's
    aux_fc_mismatch harm); with the ids written (what fix does) it is fed."""
    drafter = build_dflash(style="zlab", Vd=None, target_layer_ids=[1, 2, 3, 4, 5])
    del drafter.config["dflash_config"]["target_layer_ids"]
    drafter.config["num_hidden_layers"] = 5
    found = _codes(drafter, tmp_path / "a", engine="vllm@0.33.0")
    assert ("EN020", Severity.ERROR) in found
    fed = build_dflash(style="zlab", Vd=None, target_layer_ids=[1, 2, 3, 4, 5])
    assert "EN020" not in [c for c, _ in _codes(fed, tmp_path / "b", engine="vllm@0.33.0")]


def test_vllm_0_20_captures_zlab_target_layers_one_layer_early(tmp_path) -> None:
    """vLLM 0.20 / 0.21's V1 runner uses dflash_config.target_layer_ids without the + 1
    (EN021); 0.22 adds it; a speculators config's input-of ids are read first and are right."""
    zlab = build_dflash(style="zlab", Vd=None)
    found = _codes(zlab, tmp_path / "a", engine="vllm@0.20.0,vllm@0.22.0")
    assert [c for c, _ in found].count("EN021") == 1
    speculators = build_dflash(Vd=None)
    assert "EN021" not in [c for c, _ in _codes(speculators, tmp_path / "b", engine="vllm@0.20.0")]
