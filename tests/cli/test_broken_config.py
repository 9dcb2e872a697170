"""A broken config.json is reported as broken, once (issue 24 item 9): a syntax error used to
give IX009 plus "E3030 no config.json given" plus EN009 / EN010 computed from the config that
was never parsed. Now one IX009 names the file, line, column and byte of the error, and what
needed the config is folded into it. And a target model given to `validate` is refused as
`--target` refuses a drafter: one line, exit 2, not a report of drafter findings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from eagle3_inspect.synthetic.demo import write_demo

VERIFIERS = Path(__file__).resolve().parents[1] / "corpus" / "verifiers"


# A doubled comma on line 2; json's own error (the reference) says where.
BROKEN = '{\n  "architectures": ["LlamaForCausalLMEagle3"],,\n  "hidden_size": 128\n}\n'


def _broken_config(tmp_path: Path) -> Path:
    demo = write_demo(tmp_path / "demo")
    drafter = tmp_path / "broken-config"
    shutil.copytree(demo.correct, drafter)
    (drafter / "config.json").write_text(BROKEN, encoding="utf-8")
    return drafter


def test_a_config_with_a_syntax_error_is_one_finding(tmp_path: Path, run_cli) -> None:
    drafter = _broken_config(tmp_path)
    with pytest.raises(json.JSONDecodeError) as where:
        json.loads(BROKEN)
    code, out, _ = run_cli(
        "validate", str(drafter), "--engine", "sglang", "--headers-only", "--format", "concise"
    )
    assert code == 1
    lines = out.splitlines()
    codes = [line.split(": ", 1)[1].split()[0] for line in lines[:-1]]
    assert codes.count("IX009") == 1, out
    assert not {"E3030", "EN009", "EN010"} & set(codes), out
    (ix009,) = [line for line in lines if " IX009 " in line]
    err = where.value
    assert ix009.startswith(f"{drafter}/config.json: IX009 [error]"), ix009
    assert f"at line {err.lineno} column {err.colno} (byte {err.pos}): {err.msg}" in ix009
    assert "folded here" in ix009 and "E3030 x1" in ix009
    assert lines[-1].startswith("FAIL: 1 error(s)")


def test_the_json_report_has_the_same_one_finding(tmp_path: Path, run_cli) -> None:
    drafter = _broken_config(tmp_path)
    _, out, _ = run_cli("validate", str(drafter), "--engine", "sglang", "--headers-only", "--json")
    doc = json.loads(out)
    codes = [f["code"] for f in doc["findings"]]
    assert "IX009" in codes and "E3030" not in codes
    assert not [c for c in codes if c.startswith("EN")]
    assert doc["summary"]["errors"] == 1


@pytest.mark.parametrize("which", ["demo kimi-k25 target", "kimi-k2-8l", "llama-8l"])
def test_a_target_model_is_not_validated_as_a_drafter(tmp_path: Path, run_cli, which: str) -> None:
    path = write_demo(tmp_path / "demo").target if which.startswith("demo") else VERIFIERS / which
    code, out, err = run_cli("validate", str(path), "--format", "concise")
    assert code == 2 and out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(f"eagle3-inspect: error: {path}: this is a target model, not a drafter")
    assert "give this model as --target" in err
