"""Aux-id verdicts without --target (issue 25 item 3): where forward runs cover the engine
version, config format and case (ids or none), `validate --engine E@V` says what the engine's own
capture fed on the target classes those runs measured (forward_runs.toml, generated from the
committed capture and forward truth) instead of guessing: EN012 when it fed the trained aux
states on every one, an EN010 / EN011 warning stating the measurement when it fed them one layer
off on every one. Where no run covers the case the guess stays, and says so."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from eagle3_inspect.commands.validate import validate
from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.rules.en import check_aux_layer_ids, resolve_engines
from eagle3_inspect.rules.en.aux import convention_for
from eagle3_inspect.rules.en.loader import tomllib  # stdlib, or tomli on Python 3.10

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests/corpus"
LLAMA_TARGET = CORPUS / "verifiers/llama-8l"
AUX_VERDICTS = ("EN010", "EN011", "EN012", "EN022")
RUNS = tomllib.loads(
    resources.files("eagle3_inspect.rules.en").joinpath("forward_runs.toml").read_text("utf-8")
)["runs"]


def _aux(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.code in AUX_VERDICTS]


def _validate(drafter: str, engine: str, target: Path | None = None) -> list[Finding]:
    return _aux(validate(CORPUS / drafter, engine=engine, target=target, stats=False).findings)


def test_specforge_no_ids_on_sglang_0_5_23_names_the_measured_classes() -> None:
    """SpecForge's plain export has no aux ids; SGLang 0.5.23's own Llama and Qwen3 captures
    fed the layers SpecForge trains on by default: without --target, one info, no guess."""
    (found,) = _validate("specforge-0.2.0-llama-sglang", "sglang@0.5.23")
    assert found.code == "EN012" and found.severity is Severity.INFO
    assert "LlamaForCausalLM" in found.message and "Qwen3ForCausalLM" in found.message
    assert "no --target" in found.message and "--target checks" in found.message
    assert "capture_truth.json sglang@0.5.23 ids=None" in found.message
    assert "a guess" not in found.message
    # with the Llama target the run covers, the measured silence (the --target path) is kept
    assert _validate("specforge-0.2.0-llama-sglang", "sglang@0.5.23", LLAMA_TARGET) == []


def test_no_run_keeps_the_guess() -> None:
    """SGLang 0.5.20's capture was never run: EN010 stays a guess and says so."""
    (found,) = _validate("specforge-0.2.0-llama-sglang", "sglang@0.5.20")
    assert found.code == "EN010" and found.severity is Severity.WARNING
    assert "a guess: no forward run covers sglang@0.5.20" in found.message
    profile = _eagle3("sglang@0.5.20")
    ids = {"eagle_config": {"eagle_aux_hidden_state_layer_ids": [2, 16, 29]}}
    (lookalike,) = _aux(check_aux_layer_ids(profile, ids, None))
    assert lookalike.code == "EN011" and "a guess" in lookalike.message


def test_one_layer_off_on_every_measured_class_warns_with_the_measurement() -> None:
    """Model-Optimizer's eagle_config ids on vLLM 0.33: its Llama and Qwen3 captures fed every
    aux state one layer early. Without --target that is a warning naming the runs; with the
    Llama target it is EN022, as before."""
    (found,) = _validate("modelopt-0.47.0-default", "vllm@0.33.0")
    assert found.code == "EN011" and found.severity is Severity.WARNING
    assert "LlamaForCausalLM" in found.message and "Qwen3ForCausalLM" in found.message
    assert "one layer away" in found.message and "capture_truth.json" in found.message
    assert "a guess" not in found.message
    (measured,) = _validate("modelopt-0.47.0-default", "vllm@0.33.0", LLAMA_TARGET)
    assert measured.code == "EN022" and measured.severity is Severity.ERROR


def _eagle3(label: str):
    (profile,) = resolve_engines(label)
    return profile.family_profile("eagle3")


def _config(fmt: str, case: str, convention: str, writers: list[str] | None = None) -> dict:
    """A minimal config of `fmt` with no aux ids (`default`), ids stated null by a writer
    version the run covers (`null`), or ids that look like the other convention's (`ids`), so
    that without a run the look-alike guess (EN011) would fire."""
    ids = [1, 15, 28] if convention == "input-of" else [2, 16, 29]
    if fmt == "speculators":
        config: dict = {"speculators_config": {"algorithm": "eagle3"}}
        if case == "ids":
            config["eagle_aux_hidden_state_layer_ids"] = ids
        if case == "null":
            config["eagle_aux_hidden_state_layer_ids"] = None
            config["speculators_version"] = (writers or ["?"])[0]
        return config
    config = {"architectures": ["LlamaForCausalLMEagle3"]}
    if case == "ids":
        config["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": ids}
    return config


CASES = [
    (label, fmt, case)
    for label, formats in sorted(RUNS.items())
    for fmt, cases in sorted(formats.items())
    if fmt in ("hf", "speculators")
    for case in sorted(cases)
]


@pytest.mark.parametrize("label,fmt,case", CASES)
def test_every_measured_case_replaces_the_guess_without_a_target(
    label: str, fmt: str, case: str
) -> None:
    """Whatever the runs measured (the table as generated, not today's values): with no target
    class, no guess and no EN022; EN012 naming every measured class where all fed the trained
    states, the guess's own code as a warning naming them where all were one layer off."""
    item = RUNS[label][fmt][case]
    profile = _eagle3(label)
    config = _config(fmt, case, convention_for(profile, None), item.get("writers"))
    (found,) = _aux(check_aux_layer_ids(profile, config, None))
    assert "a guess" not in found.message
    assert all(target in found.message for target in item["targets"]), found.message
    if item["verdict"] == "as-trained":
        assert (found.code, found.severity) == ("EN012", Severity.INFO)
    else:
        guess = "EN011" if case == "ids" else "EN010"  # no ids, or ids stated null
        assert (found.code, found.severity) == (guess, Severity.WARNING)


def test_the_table_has_cases_of_both_kinds() -> None:
    assert {RUNS[label][fmt][case]["verdict"] for label, fmt, case in CASES} == {
        "as-trained",
        "one-layer-off",
    }


@pytest.mark.parametrize(
    ("ids", "depth"), [([1, 3, 4], 8), ([1, 15, 28], 32), ([1, 31, 60], 64), ([1, 2, 9], None)]
)
def test_ids_the_engine_ignores_name_the_one_depth_they_fit(ids: list[int], depth: int | None):
    """vllm@0.15.0 reads no eagle_config ids and feeds its default layers, which the runs
    measured as the producers' default ids on every class they ran: without --target the ids
    are fed as trained only for the depth whose default they are, so the warning names it (or
    says no depth fits) instead of guessing; with a target of that depth, nothing."""
    profile = _eagle3("vllm@0.15.0")
    config = {"architectures": ["LlamaForCausalLMEagle3"], "eagle_config": {}}
    config["eagle_config"]["eagle_aux_hidden_state_layer_ids"] = ids
    found = [f for f in check_aux_layer_ids(profile, config, None) if f.code != "EN003"]
    assert [(f.code, f.severity) for f in found] == [("EN010", Severity.WARNING)]
    assert "a guess" not in found[0].message and "LlamaForCausalLM" in found[0].message
    if depth is None:
        assert "for no target depth" in found[0].message
    else:
        assert f"only for a target of {depth} layers" in found[0].message
        assert _aux(check_aux_layer_ids(profile, config, depth, "LlamaForCausalLM")) == []
