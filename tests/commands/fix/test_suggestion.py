"""What fix suggests when a finding no conversion fixes remains: only versions measured to serve
the drafter as trained, never a range that holds the version that just failed."""

from __future__ import annotations

from pathlib import Path

import pytest

import eagle3_inspect

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
LLAMA = CORPUS / "verifiers" / "llama-8l"


def _suggestion(drafter: str, engine: str, tmp_path: Path) -> str:
    report = eagle3_inspect.fix(
        CORPUS / drafter, engine=engine, target=LLAMA, out=tmp_path / "out", dry_run=True
    )
    assert report.exit_code == 1 and not (tmp_path / "out").exists()
    assert any(f["code"] == "EN023" for f in report.expected)
    return report.suggestion or ""


@pytest.mark.parametrize(
    ("engine", "measured"), [("sglang@0.5.23", "sglang@0.5.9"), ("vllm@0.33", "vllm@0.15.0")]
)
def test_a_norm_flag_the_engine_reads_otherwise_names_the_versions_measured_as_trained(
    engine, measured, tmp_path
):
    # SpecForge's norm_output=true: SGLang >= 0.5.12 and vLLM >= 0.22 read it with
    # speculators' meaning (193/381 top-1); the oldest run versions do not read it (381/381).
    text = _suggestion("specforge-0.2.0-norm-output-true-sglang", engine, tmp_path)
    assert measured in text and "norm_output=true" in text
    assert "or newer" not in text  # the EN006 advice, which named a range holding `engine`


def test_a_norm_flag_no_run_version_computes_as_trained_says_retrain(tmp_path):
    text = _suggestion("specforge-0.2.0-norm-output-false-sglang", "sglang@0.5.23", tmp_path)
    assert text.startswith("no sglang version the forward runs cover computes norm_output=false")
    assert "retrain" in text


@pytest.mark.parametrize("engine", ["vllm@0.15.0", "vllm@0.25.0", "vllm@0.33.0"])
def test_stated_null_ids_fed_one_layer_off_stay_an_error_no_style_change_hides(engine, tmp_path):
    # speculators 0.3.0 states its ids null and trained on the outputs of its default layers,
    # which these vLLM versions feed the inputs of (EN022, measured). The hf style without the
    # writer's fields would only move the config out of the runs' sight (EN010, a guess), so
    # fix writes nothing and says which ids to write instead.
    report = eagle3_inspect.fix(
        CORPUS / "speculators-0.3.0-default",
        engine=engine,
        target=LLAMA,
        out=tmp_path / "out",
        dry_run=True,
    )
    assert report.exit_code == 1 and not (tmp_path / "out").exists()
    assert [f["code"] for f in report.expected] == ["EN022"]
    assert "eagle_aux_hidden_state_layer_ids" in (report.suggestion or "")
