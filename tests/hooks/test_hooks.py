"""The pre-commit hook and the composite GitHub Action parse, and the commands they run are
valid CLI invocations (run through click on the demo drafters)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from eagle3_inspect.cli import main
from eagle3_inspect.synthetic.demo import write_demo
from tests.cli.line_patterns import CONCISE, GITHUB

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return write_demo(tmp_path_factory.mktemp("demo"))


def invoke(args: list[str]):
    result = CliRunner().invoke(main, args)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def test_pre_commit_hook(demo, monkeypatch):
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in hooks] == ["eagle3-inspect-validate"]
    hook = hooks[0]
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    assert set(hook["stages"]) <= {"pre-commit", "pre-push", "manual"}
    program, *entry = shlex.split(hook["entry"])
    assert program == "eagle3-inspect"
    # pre-commit runs the hook at the model repo's root; args default to it (".").
    monkeypatch.chdir(demo.correct)
    clean = invoke([*entry, *hook["args"]])
    assert clean.exit_code == 0, clean.output
    monkeypatch.chdir(demo.broken)
    broken = invoke([*entry, *hook["args"]])
    assert broken.exit_code == 1
    assert all(CONCISE.fullmatch(line) for line in broken.stdout.splitlines()[:-1])


def action_argv(action: dict, inputs: dict[str, str]) -> list[str]:
    """The eagle3-inspect arguments the action's validate step builds from `inputs` (its bash
    array logic, evaluated here for the given inputs)."""
    step = next(s for s in action["runs"]["steps"] if s["name"] == "Validate")
    script = step["run"]
    env = {
        k: re.sub(r"\$\{\{ inputs\.([\w-]+) \}\}", lambda m: inputs[m[1]], v)
        for k, v in step["env"].items()
    }
    args = ["validate", env["E3I_PATH"], "--format", "github", "--fail-on", env["E3I_FAIL_ON"]]
    assert 'args=(validate "$E3I_PATH" --format github --fail-on "$E3I_FAIL_ON")' in script
    if env["E3I_ENGINE"]:
        assert 'args+=(--engine "$E3I_ENGINE")' in script
        args += ["--engine", env["E3I_ENGINE"]]
    if env["E3I_TARGET"]:
        assert 'args+=(--target "$E3I_TARGET")' in script
        args += ["--target", env["E3I_TARGET"]]
    assert 'eagle3-inspect "${args[@]}"' in script
    return args


def test_github_action(demo):
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    assert {"path", "engine", "target", "fail-on"} <= set(action["inputs"])
    assert action["inputs"]["path"]["required"] is True
    defaults = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    install = action["runs"]["steps"][0]["run"]
    assert "pip install" in install and "eagle3-inspect" in install
    # Every input reaches the script through env, never pasted into it (no script injection).
    for step in action["runs"]["steps"]:
        assert "${{" not in step["run"]

    clean = invoke(action_argv(action, {**defaults, "path": str(demo.correct)}))
    assert clean.exit_code == 0, clean.output
    inputs = {
        **defaults,
        "path": str(demo.broken),
        "engine": "sglang@0.5.11",
        "target": str(demo.target),
    }
    broken = invoke(action_argv(action, inputs))
    assert broken.exit_code == 1
    annotations = [line for line in broken.stdout.splitlines() if line.startswith("::")]
    assert annotations and all(GITHUB.fullmatch(line) for line in annotations)
    warn = invoke(action_argv(action, {**inputs, "fail-on": "warning"}))
    assert warn.exit_code == 1
