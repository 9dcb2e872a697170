"""fix and the config contract (issue 20): the fields an engine's model code trips on get the
value the drafter was trained with, and speculators gets the verifier it loads (--verifier,
else --target) or fix refuses in one line."""

from __future__ import annotations

import json
from pathlib import Path

from eagle3_inspect.commands.fix import fix
from eagle3_inspect.commands.fix.contract import verifier_name
from eagle3_inspect.commands.validate import validate

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
VERIFIER = CORPUS / "verifiers/llama-8l"
NAME = "speculators_config.verifier.name_or_path"


def _config(path: Path) -> dict:
    return json.loads((path / "config.json").read_text())


def test_speculators_null_target_hidden_size_is_written_as_the_trained_value(
    tmp_path: Path,
) -> None:
    for name, engine in (
        ("speculators-0.3.0-default", "sglang@0.5.8"),
        ("speculators-0.3.0-default", "sglang@0.5.12"),
        ("speculators-0.9.0-default", "sglang@0.5.23"),  # input_norm: SGLang >= 0.5.17 only
    ):
        src = CORPUS / name
        assert _config(src)["target_hidden_size"] is None
        dst = tmp_path / engine
        report = fix(src, engine=engine, out=dst)
        assert report.status == "fixed", report.to_dict()
        written = _config(dst)
        assert written["target_hidden_size"] == written["hidden_size"] == 64
        assert any(n.startswith("target_hidden_size: null -> 64") for n in report.notes)
        codes = {f.code for f in validate(dst, engine=engine, stats=False).findings}
        assert "EN018" not in codes


def test_speculators_engine_without_a_verifier_is_refused_in_one_line(
    tmp_path: Path, run_cli
) -> None:
    src = CORPUS / "specforge-0.2.0-llama-sglang"
    dst = tmp_path / "dst"
    report = fix(src, engine="speculators@0.9.0", out=dst)
    assert report.status == "refused" and report.refusal["code"] == "EN018"
    assert "--verifier" in report.refusal["reason"] and "--target" in report.refusal["reason"]
    assert not dst.exists()
    code, _, err = run_cli("fix", str(src), "--engine", "speculators@0.9.0", "--out", str(dst))
    assert code == 2
    (line,) = [x for x in err.splitlines() if x.startswith("eagle3-inspect: refused:")]
    assert "EN018" in line and NAME in line and "--verifier NAME_OR_PATH" in line


def test_the_verifier_comes_from_verifier_else_target(tmp_path: Path, run_cli) -> None:
    src = CORPUS / "specforge-0.2.0-llama-sglang"
    by_target = fix(src, engine="speculators@0.9.0", out=tmp_path / "t", target=VERIFIER)
    assert by_target.status == "fixed"
    verifier = _config(tmp_path / "t")["speculators_config"]["verifier"]
    assert verifier["name_or_path"] == str(VERIFIER.resolve())
    assert verifier["architectures"] == ["LlamaForCausalLM"]
    code, _, _ = run_cli(
        "fix",
        str(src),
        "--engine",
        "speculators@0.9.0",
        "--out",
        str(tmp_path / "v"),
        "--verifier",
        "meta-llama/Llama-3.1-8B-Instruct",
    )
    assert code == 0
    written = _config(tmp_path / "v")["speculators_config"]["verifier"]["name_or_path"]
    assert written == "meta-llama/Llama-3.1-8B-Instruct"


def test_a_verifier_the_source_names_is_kept_unless_verifier_replaces_it(tmp_path: Path) -> None:
    src = CORPUS / "speculators-0.9.0-nbr-false"
    named = _config(src)["speculators_config"]["verifier"]["name_or_path"]
    assert named  # the generator's verifier path
    kept = fix(src, engine="speculators@0.9.0", out=tmp_path / "kept", target=VERIFIER)
    assert kept.status == "nothing-to-do", kept.changes  # --target does not replace it
    replaced = fix(src, engine="speculators@0.9.0", out=tmp_path / "new", verifier="org/verifier")
    assert replaced.status == "fixed", replaced.to_dict()
    assert replaced.changes == [
        {"kind": "config", "op": "change", "key": NAME, "from": named, "to": "org/verifier"}
    ]
    written = _config(tmp_path / "new")["speculators_config"]["verifier"]["name_or_path"]
    assert written == "org/verifier"


def test_verifier_names_from_targets(tmp_path: Path) -> None:
    assert verifier_name(None) is None
    assert verifier_name("hf://meta-llama/Llama-3.1-8B@main") == "meta-llama/Llama-3.1-8B"
    assert verifier_name("https://example.com/m/config.json") is None
    assert verifier_name(VERIFIER / "config.json") == str(VERIFIER.resolve())
    assert verifier_name(str(VERIFIER)) == str(VERIFIER.resolve())
