"""Engine specs parsed in one place with one meaning (issue 24 item 8). Before: `sglang@0.5`
was refused while `vllm@0.20` was accepted, `sglang@9` passed, a repeated `--engine` kept only
the last, `require_servable` and the Action defaulted to sglang@0.5.12 while a bare name meant
the newest profile, and `sglng` got no "did you mean"."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle3_inspect.commands.servable import DEFAULT_ENGINE
from eagle3_inspect.errors import InvalidArgumentError
from eagle3_inspect.rules.en import resolve_engines
from eagle3_inspect.rules.en.loader import known_versions
from eagle3_inspect.synthetic.demo import write_demo

ROOT = Path(__file__).resolve().parents[3]


def _labels(spec: str) -> list[str]:
    return [p.label for p in resolve_engines(spec)]


@pytest.mark.parametrize("name", ["sglang", "vllm"])
def test_bare_and_partial_versions_are_the_newest_known(name: str) -> None:
    newest = known_versions(name)[-1]
    major, minor = newest.split(".")[:2]
    assert _labels(name) == [f"{name}@{newest}"]
    assert _labels(f"{name}@{major}.{minor}") == [f"{name}@{newest}"]
    assert _labels(f"{name}@{major}") == [f"{name}@{newest}"]


def test_a_partial_version_picks_the_newest_with_its_prefix() -> None:
    assert _labels("vllm@0.20") == ["vllm@0.20.0"]
    assert _labels("sglang@0.5") == [f"sglang@{known_versions('sglang')[-1]}"]


@pytest.mark.parametrize("spec", ["sglang@9", "sglang@1.0", "vllm@0.99.0", "sglang@0.4"])
def test_an_unknown_version_is_an_error(spec: str) -> None:
    with pytest.raises(InvalidArgumentError, match="not a version eagle3-inspect knows"):
        resolve_engines(spec)


def test_a_misspelt_engine_gets_a_did_you_mean() -> None:
    with pytest.raises(InvalidArgumentError, match="did you mean 'sglang'"):
        resolve_engines("sglng")


def test_the_default_engine_is_a_bare_name_everywhere() -> None:
    assert DEFAULT_ENGINE == "sglang"
    action = (ROOT / "action.yml").read_text(encoding="utf-8")
    assert "    default: sglang\n" in action


def test_a_repeated_engine_accumulates(tmp_path: Path, run_cli) -> None:
    demo = write_demo(tmp_path / "demo")
    code, out, err = run_cli(
        "validate", str(demo.correct), "--engine", "sglang@0.5.11", "--engine", "vllm@0.20",
        "--json", "--no-stats",
    )  # fmt: skip
    import json

    assert code == 0, err
    assert json.loads(out)["engines"] == ["sglang@0.5.11", "vllm@0.20.0"]
