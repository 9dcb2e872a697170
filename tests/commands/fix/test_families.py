"""fix per drafter family: DFlash configs move between the speculators and z-lab styles (ids
with their +1, the mask token, DFlash2's conv / selector sizes), refused where the engine's
form needs what the source does not state; P-EAGLE is written as a speculators P-EAGLE config,
refused without its mask token; a target model or an unknown family is refused, never
converted."""

from __future__ import annotations

import json
from pathlib import Path

from eagle3_inspect.commands.fix import fix
from eagle3_inspect.commands.validate import validate
from eagle3_inspect.synthetic.families import build_dflash, build_peagle, build_target_model
from tests.commands.fix.helpers import load_all, tree_digest


def _errors(path: Path, engine: str) -> list[str]:
    return [f.code for f in validate(path, engine=engine).findings if f.severity.value == "error"]


def test_speculators_dflash2_to_sglang_is_a_zlab_config(tmp_path: Path) -> None:
    src = build_dflash(dflash2=True, Vd=None).write(tmp_path / "src")
    digest = tree_digest(src)
    report = fix(src, engine="sglang@0.5.23", out=tmp_path / "dst")
    assert report.status == "fixed", report.to_dict()
    config = json.loads((tmp_path / "dst" / "config.json").read_text())
    assert "speculators_model_type" not in config and "transformer_layer_config" not in config
    assert config["dflash_config"]["target_layer_ids"] == [1, 3, 5]  # aux ids [2, 4, 6] - 1
    assert config["dflash_config"]["mask_token_id"] == 0
    assert config["dflash_config"]["selector_rank"] == 32
    assert config["num_target_layers"] == 6
    assert config["hidden_size"] == 64
    assert load_all(tmp_path / "dst") == load_all(src)  # the weights are untouched
    assert tree_digest(src) == digest
    assert _errors(tmp_path / "dst", "sglang@0.5.23") == []


def test_a_reduced_vocabulary_dflash_drafter_cannot_be_served_by_sglang(tmp_path: Path) -> None:
    src = build_dflash().write(tmp_path / "src")
    report = fix(src, engine="sglang@0.5.23", out=tmp_path / "dst")
    assert report.status == "refused" and report.refusal["code"] == "EN001"
    assert "d2t" in report.refusal["reason"] or "lm_head" in report.refusal["reason"]
    assert not (tmp_path / "dst").exists()


def test_a_zlab_config_without_ids_gets_the_ids_its_trainer_built(tmp_path: Path) -> None:
    drafter = build_dflash(style="zlab", Vd=None, target_layer_ids=[1, 5])
    del drafter.config["dflash_config"]["target_layer_ids"]
    src = drafter.write(tmp_path / "src")
    report = fix(src, engine="vllm@0.33.0", out=tmp_path / "dst")
    assert report.status == "fixed", report.to_dict()
    config = json.loads((tmp_path / "dst" / "config.json").read_text())
    # SGLang / SpecForge build_target_layer_ids(8, 2): spread over 1..N-3.
    assert config["dflash_config"]["target_layer_ids"] == [1, 5]


def test_zlab_to_speculators_needs_the_mask_token(tmp_path: Path) -> None:
    ok = fix(
        build_dflash(style="zlab").write(tmp_path / "a"), engine="speculators", out=tmp_path / "a2"
    )
    assert ok.status == "fixed", ok.to_dict()
    config = json.loads((tmp_path / "a2" / "config.json").read_text())
    assert config["speculators_model_type"] == "dflash"
    assert config["aux_hidden_state_layer_ids"] == [2, 4, 6]  # target_layer_ids [1, 3, 5] + 1
    assert config["mask_token_id"] == 0
    refused = fix(
        build_dflash(style="zlab", mask_token_id=None).write(tmp_path / "b"),
        engine="speculators",
        out=tmp_path / "b2",
    )
    assert refused.status == "refused" and refused.refusal["code"] == "DF005"


def test_hf_style_peagle_to_vllm_is_a_speculators_peagle_config(tmp_path: Path) -> None:
    src = build_peagle(style="hf").write(tmp_path / "src")
    report = fix(src, engine="vllm@0.33.0", out=tmp_path / "dst")
    assert report.status == "fixed", report.to_dict()
    config = json.loads((tmp_path / "dst" / "config.json").read_text())
    assert config["speculators_model_type"] == "peagle" and config["mask_token_id"] == 0
    refused = fix(
        build_peagle(style="hf", mask_token_id=None).write(tmp_path / "b"),
        engine="vllm@0.33.0",
        out=tmp_path / "b2",
    )
    assert refused.status == "refused" and refused.refusal["code"] == "PE003"


def test_a_target_model_or_an_unknown_family_is_never_converted(tmp_path: Path) -> None:
    target = fix(
        build_target_model().write(tmp_path / "t"), engine="vllm@0.33.0", out=tmp_path / "t2"
    )
    assert target.status == "refused" and target.refusal["code"] == "FM002"
    unknown = build_dflash()
    unknown.config["speculators_model_type"] = "dspark"
    report = fix(unknown.write(tmp_path / "u"), engine="vllm@0.33.0", out=tmp_path / "u2")
    assert report.status == "refused" and report.refusal["code"] == "FM001"


CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def test_speculators_is_never_given_what_its_own_code_did_not_load(tmp_path: Path) -> None:
    """tools/engine_truth/fix_truth.json: speculators@0.9.0 loaded Model-Optimizer's DFlash,
    converted, with d2t / t2d never loaded (with --target: a size mismatch loading the head),
    and its FP8 drafter with every weight_scale / input_scale dropped. fix refuses both."""
    for target in (None, CORPUS / "verifiers/qwen3-8l"):
        dflash = fix(
            CORPUS / "modelopt-0.47.0-dflash",
            engine="speculators@0.9.0",
            out=tmp_path / "d",
            target=target,
            dry_run=True,
        )
        assert dflash.status == "refused" and dflash.refusal["code"] == "DF012", target
        assert "draft_vocab_size" in dflash.refusal["reason"]
    fp8 = fix(
        CORPUS / "modelopt-0.47.0-fp8",
        engine="speculators@0.9.0",
        out=tmp_path / "f",
        target=CORPUS / "verifiers/llama-8l",
        dry_run=True,
    )
    assert fp8.status == "refused" and fp8.refusal["code"] == "EN001"
    assert "fc.input_scale" in fp8.refusal["reason"] and "nn.Linear" in fp8.refusal["reason"]
    assert not (tmp_path / "d").exists() and not (tmp_path / "f").exists()


def test_drop_unused_does_not_hide_the_scales_an_engine_drops(tmp_path: Path) -> None:
    """SGLang builds the FP8 drafter's fc as a plain nn.Linear and drops its two scales (EN001):
    leaving them out of the copy changes nothing the engine computes, so `--drop-unused` is
    refused on the same EN001, not on what the copy without its scales then looks like."""
    src = CORPUS / "modelopt-0.47.0-fp8"
    for drop_unused in (False, True):
        report = fix(src, engine="sglang", out=tmp_path / "f", drop_unused=drop_unused)
        assert report.status == "refused" and report.refusal["code"] == "EN001", drop_unused
        reason = report.refusal["reason"]
        assert "fc.input_scale" in reason and "unscaled" in reason, drop_unused
    assert not (tmp_path / "f").exists()
