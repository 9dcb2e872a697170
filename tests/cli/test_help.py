"""One option set, and help that matches the commands (issue 24 item 10): headers-only is
`--headers-only` on scan, validate and diff (the old `--no-stats` / `--structure-only` still
work, unlisted); `--filter` and `--fail-on` on validate and scan; fix and rules list only the
formats they accept; every `--help` ends with an example that runs on the demo's checkpoints;
the README's synopsis lists exactly the options each command's `--help` does."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from eagle3_inspect.cli.examples import EXAMPLES
from eagle3_inspect.cli.main import main
from eagle3_inspect.synthetic.demo import write_demo

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ("scan", "validate", "diff", "fix", "rules", "demo")
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z-]*)")


def _help(*command: str) -> str:
    result = CliRunner(env={"COLUMNS": "100"}).invoke(main, [*command, "--help"])
    assert result.exit_code == 0, result.output
    return result.output


def _listed_options(*command: str) -> set[str]:
    """The options `--help` lists (the first column of its Options section), without --help."""
    section = _help(*command).split("Options:", 1)[1].split("Example", 1)[0]
    names: set[str] = set()
    for line in section.splitlines():
        stripped = line.strip()
        if stripped.startswith("-"):
            names |= set(OPTION.findall(re.split(r"\s{2,}", stripped, maxsplit=1)[0]))
    return names - {"--help"}


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_every_help_ends_with_an_example(command: str) -> None:
    text = _help(*([command] if command else [])).rstrip()
    assert text.splitlines()[-1].strip() == EXAMPLES[command]
    if not command:  # each command's one-line summary is whole, not cut with "..."
        listing = text.split("Commands:", 1)[1].split("Example", 1)[0]
        assert "(the seed" not in text and not [x for x in listing.splitlines() if "..." in x]


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_every_example_works_on_the_demo(tmp_path: Path, monkeypatch, command: str) -> None:
    if command != "demo":
        write_demo(tmp_path / "demo")
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(EXAMPLES[command])
    assert argv[0] == "eagle3-inspect"
    result = CliRunner().invoke(main, argv[1:])
    assert result.exit_code in (0, 1), (result.output, result.stderr)
    assert result.stderr == ""


@pytest.mark.parametrize("command", ["scan", "validate", "diff"])
def test_headers_only_is_one_spelling(command: str) -> None:
    listed = _listed_options(command)
    assert "--headers-only" in listed
    assert not {"--no-stats", "--structure-only"} & listed


def test_the_old_spellings_still_work(tmp_path: Path, run_cli) -> None:
    demo = write_demo(tmp_path / "demo")
    for command, sides, old in (
        ("validate", [demo.broken], "--no-stats"),
        ("diff", [demo.correct, demo.broken], "--structure-only"),
    ):
        args = [command, *map(str, sides), "--json"]
        _, new_out, _ = run_cli(*args, "--headers-only")
        _, old_out, _ = run_cli(*args, old)
        new, old_doc = json.loads(new_out), json.loads(old_out)
        assert new == old_doc
    assert json.loads(new_out)["structure_only"] is True


def test_scan_headers_only_conflicts_with_a_data_pass(tmp_path: Path, run_cli) -> None:
    demo = write_demo(tmp_path / "demo")
    code, _, err = run_cli("scan", str(demo.correct), "--headers-only", "--stats")
    assert code == 2 and "--headers-only conflicts with --stats and --hash" in err


@pytest.mark.parametrize("command", ["scan", "validate"])
def test_filter_and_fail_on_are_shared(command: str) -> None:
    assert {"--filter", "--fail-on", "--threads", "--format"} <= _listed_options(command)


def test_validate_filter_keeps_the_findings_of_matching_tensors(tmp_path: Path, run_cli) -> None:
    demo = write_demo(tmp_path / "demo")
    _, out, _ = run_cli("validate", str(demo.broken), "--json")
    every = json.loads(out)["findings"]
    code, out, _ = run_cli("validate", str(demo.broken), "--filter", "d2t", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["filter"] == "d2t"
    assert {f["tensor"] for f in doc["findings"]} <= {"d2t", None}
    assert [f for f in every if f["tensor"] in ("d2t", None)] == doc["findings"]
    code, _, err = run_cli("validate", str(demo.broken), "--filter", "nomatch*")
    assert code == 2 and "--filter 'nomatch*' matches no tensor" in err


def test_scan_fail_on_warning(tmp_path: Path, run_cli) -> None:
    demo = write_demo(tmp_path / "demo")
    # The target's two shards without their index: IX008, a warning.
    target = tmp_path / "no-index"
    shutil.copytree(demo.target, target)
    (target / "model.safetensors.index.json").unlink()
    _, out, _ = run_cli("scan", str(target), "--json")
    summary = json.loads(out)["summary"]
    assert summary["errors"] == 0 and summary["warnings"] > 0, summary
    assert run_cli("scan", str(target), "--format", "concise")[0] == 0
    code, out, _ = run_cli("scan", str(target), "--format", "concise", "--fail-on", "warning")
    assert code == 1 and out.splitlines()[-1].startswith("FAIL: ")


@pytest.mark.parametrize("command", ["fix", "rules"])
def test_fix_and_rules_list_only_the_formats_they_accept(command: str) -> None:
    text = " ".join(_help(command).split())
    formats = re.search(r"--format \[([a-z|]+)\]", text)
    assert formats is not None and formats.group(1) == "full|concise|json|jsonl|github"


def test_fix_target_help_names_remote_targets() -> None:
    text = " ".join(_help("fix").split())
    assert "hf://" in text.split("--target", 1)[1] and "https://" in text.split("--target", 1)[1]


def _readme_synopsis() -> dict[str, set[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## CLI", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    options: dict[str, set[str]] = {}
    command = ""
    for line in block.splitlines():
        if line.startswith("eagle3-inspect "):
            command = line.split()[1]
        options.setdefault(command, set()).update(OPTION.findall(line))
    return options


@pytest.mark.parametrize("command", COMMANDS)
def test_the_readme_synopsis_lists_what_help_lists(command: str) -> None:
    listed = _listed_options(command) - {"--json"}  # the alias is documented under formats
    assert _readme_synopsis()[command] == listed
