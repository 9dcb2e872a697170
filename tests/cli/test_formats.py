"""--format on every command: full, concise, json, jsonl, github and html (guarded), on the
demo drafters; full output keeps every tensor name and code whole at 40 and 200 columns."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from eagle3_inspect.cli import main
from eagle3_inspect.cli.formats import HTML_MISSING
from eagle3_inspect.synthetic.demo import ENGINE, write_demo
from tests.cli.line_patterns import CONCISE, CONCISE_DIFF, GITHUB


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    files = write_demo(tmp_path_factory.mktemp("demo"))
    # A truncated copy of the broken drafter's shard: scan has an ST finding to print.
    shard = next(files.broken.glob("*.safetensors"))
    damaged = files.root / "damaged.safetensors"
    damaged.write_bytes(shard.read_bytes()[:-8])
    return files


def invocations(demo) -> dict[str, list[str]]:
    broken, correct = str(demo.broken), str(demo.correct)
    return {
        "scan": ["scan", str(demo.root / "damaged.safetensors")],
        "validate": ["validate", broken, "--engine", ENGINE, "--target", str(demo.target)],
        "diff": ["diff", correct, broken],
        "rules": ["rules"],
    }


def run(args: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, args, env=env)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def html_available() -> bool:
    from eagle3_inspect.cli.formats import FormatError, html_renderer

    try:
        html_renderer()
    except FormatError:
        return False
    return True


COMMANDS = ["scan", "validate", "diff", "rules"]
SCAN_TENSOR = re.compile(r"[^:\s]+:[\w.]+: [A-Z0-9]+ \[[0-9, ]*\] [0-9.]+ [KMG]?i?B")
RULE_LINE = re.compile(r"[A-Z][A-Z0-9]*[0-9]{3} \[(?:error|warning|info)\] [^\n]+")


@pytest.mark.parametrize("command", COMMANDS)
def test_concise_is_the_default_off_a_terminal_and_one_line_each(demo, command):
    args = invocations(demo)[command]
    code, default_out, _ = run(args)
    _, concise, _ = run([*args, "--format", "concise"])
    assert default_out == concise
    lines = concise.splitlines()
    assert code == (0 if command == "rules" else 1)
    if command == "rules":
        assert len(lines) > 50 and all(RULE_LINE.fullmatch(line) for line in lines)
        return
    *records, summary = lines
    if command == "scan":  # the listing first: one line per tensor
        listed = [line for line in records if SCAN_TENSOR.fullmatch(line)]
        assert len(listed) == 15 and records[: len(listed)] == listed
        records = records[len(listed) :]
    assert records, "the broken demo drafter has findings"
    pattern = CONCISE_DIFF if command == "diff" else CONCISE
    for line in records:
        assert pattern.fullmatch(line), line
    assert not pattern.fullmatch(summary)
    assert summary.startswith("different: " if command == "diff" else "FAIL: ")


def test_concise_validate_names_the_seed_bugs(demo):
    _, out, _ = run([*invocations(demo)["validate"], "--format", "concise"])
    codes = {m["code"] for m in map(CONCISE.fullmatch, out.splitlines()[:-1])}
    assert {"EN001", "VM006", "E3009"} <= codes
    assert "layers.0.hidden_norm.weight: EN001 [error]" in out
    assert out.splitlines()[-1].startswith("FAIL: ")


@pytest.mark.parametrize("command", COMMANDS)
def test_github_annotations(demo, command):
    code, out, _ = run([*invocations(demo)[command], "--format", "github"])
    assert code == (0 if command == "rules" else 1)
    if command == "rules":  # a catalogue is not an annotation: the concise lines
        assert out == run(["rules", "--format", "concise"])[1]
        return
    annotations = [line for line in out.splitlines() if line.startswith("::")]
    assert annotations
    for line in annotations:
        assert GITHUB.fullmatch(line), line
    assert len(out.splitlines()) == len(annotations) + 1  # and the summary as plain text
    if command == "validate":
        assert "::error file=" in out and ",title=EN001::" in out and "%0Afix: " in out


@pytest.mark.parametrize("command", COMMANDS)
def test_json_and_its_alias(demo, command):
    args = invocations(demo)[command]
    _, out, _ = run([*args, "--format", "json"])
    _, alias, _ = run([*args, "--json"])
    assert out == alias
    assert json.loads(out)["schema"] == f"eagle3-inspect/{command}/1"


def test_json_conflicts_with_another_format(demo):
    code, _, err = run([*invocations(demo)["scan"], "--json", "--format", "concise"])
    assert code == 2 and "--json conflicts with --format concise" in err


@pytest.mark.parametrize("command", COMMANDS)
def test_jsonl_one_record_per_line(demo, command):
    args = invocations(demo)[command]
    _, out, _ = run([*args, "--format", "jsonl"])
    records = [json.loads(line) for line in out.splitlines()]
    _, full_json, _ = run([*args, "--json"])
    whole = json.loads(full_json)
    if command == "rules":
        assert [r["code"] for r in records] == [r["code"] for r in whole["rules"]]
        assert {r["schema"] for r in records} == {"eagle3-inspect/rule/1"}
    elif command == "diff":
        kinds = [r["kind"] for r in records]
        assert kinds.count("renamed") == len(whole["renamed"])
        assert kinds.count("added") == len(whole["added"])
        assert {r["schema"] for r in records} == {"eagle3-inspect/diff-change/1"}
    else:
        if command == "scan":  # the listing first, the summary last
            assert records.pop()["schema"] == "eagle3-inspect/scan-summary/1"
            listed = [r for r in records if r["schema"] == "eagle3-inspect/tensor/1"]
            assert [r["name"] for r in listed] == [t["name"] for t in whole["tensors"]]
            records = records[len(listed) :]
        assert [r["code"] for r in records] == [f["code"] for f in whole["findings"]]
        assert {r["schema"] for r in records} == {"eagle3-inspect/finding/1"}
        assert all(r["path"] for r in records)


@pytest.mark.parametrize("command", COMMANDS)
def test_full_keeps_names_and_codes_whole_at_any_width(demo, command):
    args = [*invocations(demo)[command], "--format", "full"]
    _, wide, _ = run(args, env={"COLUMNS": "200"})
    _, narrow, _ = run(args, env={"COLUMNS": "40"})
    if command == "rules":
        words = set(re.findall(r"\b[A-Z][A-Z0-9]*[0-9]{3}\b", wide))
    else:
        words = set(
            re.findall(r"\b(?:[a-z_]+\.)+[a-z_0-9]*weight\b|\b[A-Z][A-Z0-9]*[0-9]{3}\b", wide)
        )
    assert len(words) > 5
    for out in (wide, narrow):
        tokens = set(re.findall(r"[^\s│┃|]+", out))
        for word in words:
            assert any(word in t for t in tokens), (word, out)


def test_full_is_the_rich_text(demo):
    _, out, _ = run([*invocations(demo)["validate"], "--format", "full"])
    assert "layout:" in out and "FAIL" in out and "fix:" in out


@pytest.mark.parametrize("command", ["scan", "validate", "diff"])
def test_html_guarded_or_rendered(demo, command, tmp_path):
    args = invocations(demo)[command]
    code, out, err = run([*args, "--format", "html"])
    page = tmp_path / "report.html"
    code_file, _, err_file = run([*args, "--html", str(page)])
    if html_available():
        assert code == 1 and "<html" in out.lower()
        assert code_file == 1 and "<html" in page.read_text().lower()
    else:
        assert code == 2 and out == ""
        assert err.strip().splitlines() == [f"eagle3-inspect: error: {HTML_MISSING}"]
        assert code_file == 2 and not page.exists() and HTML_MISSING in err_file


def test_rules_has_no_html():
    code, _, err = run(["rules", "--format", "html"])
    assert code == 2 and "scan, validate and diff" in err


def test_rules_code_prints_the_explanation_by_default():
    _, out, _ = run(["rules", "ST015"])
    assert "truncated" in out
    _, one, _ = run(["rules", "ST015", "--format", "concise"])
    assert RULE_LINE.fullmatch(one.strip())
