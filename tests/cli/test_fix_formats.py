"""`fix --format` with the same semantics as the other commands: `concise` (the default off a
terminal) a line per change, note and finding and a summary line; `github` annotations for the
refusal and every error; `jsonl` an object per record then a summary object; `json` and its
`--json` alias the fix/1 document; `full` the rich view; `html` refused before any work."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from eagle3_inspect.cli.main import main
from eagle3_inspect.cli.render.concise import concise_line
from eagle3_inspect.cli.render.fix_records import fix_records, fix_summary
from eagle3_inspect.commands.fix import FixReport, output
from eagle3_inspect.synthetic.demo import CAPTURE_ENGINE, ENGINE, write_demo
from tests.cli.line_patterns import CONCISE_FIX, GITHUB

STATUS_LINE = {"planned": "PLAN: ", "fixed": "FIXED: ", "refused": "REFUSED: "}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return write_demo(tmp_path_factory.mktemp("demo"))


def run(args: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["fix", *args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def cases(demo, out: Path) -> dict[str, list[str]]:
    mislabelled = [str(demo.mislabelled), "--engine", ENGINE]
    return {
        "planned": [*mislabelled, "--out", str(out), "--dry-run"],
        "fixed": [*mislabelled, "--out", str(out)],
        "refused": [str(demo.broken), "--engine", ENGINE, "--out", str(out)],
    }


def as_json(args: list[str]) -> dict:
    """The fix/1 document for a run that writes nothing (a dry run or a refusal)."""
    _, out, _ = run([*args, "--json"])
    return json.loads(out)


@pytest.mark.parametrize("case", ["planned", "fixed", "refused"])
def test_concise_is_the_default_off_a_terminal(demo, tmp_path: Path, case: str) -> None:
    dst = tmp_path / "dst"
    code, default_out, _ = run(cases(demo, dst)[case])
    if case == "fixed":  # the first run wrote DST: the second writes it afresh
        shutil.rmtree(dst)
    code_concise, concise, _ = run([*cases(demo, dst)[case], "--format", "concise"])
    assert code == code_concise == {"refused": 2}.get(case, 0)
    assert default_out == concise
    *records, summary = concise.splitlines()
    assert summary.startswith(STATUS_LINE[case]) and not CONCISE_FIX.fullmatch(summary)
    for line in records:
        assert CONCISE_FIX.fullmatch(line), line
    kinds = [CONCISE_FIX.fullmatch(line)["code"] for line in records]
    if case == "refused":
        assert kinds == ["E3009"] and "[error]" in records[0]
        assert "; E3009; nothing written" in summary
    else:
        doc = as_json(cases(demo, tmp_path / "dry")["planned"])
        changes = [c["kind"] for c in doc["changes"]]
        assert kinds == changes + ["note"] * len(doc["notes"])
        assert f"{len(changes)} change(s) (10 rename, 1 d2t)" in summary
        assert any(
            line.endswith(
                ":layers.0.self_attn.q_proj.weight: rename [info] "
                "-> midlayer.self_attn.q_proj.weight"
            )
            for line in records
        )
    if case == "fixed":
        assert "validate ok (0 error(s)); diff as planned" in summary
        assert summary.endswith("written and verified")


def test_github_annotates_the_refusal_only(demo, tmp_path: Path) -> None:
    code, out, err = run([*cases(demo, tmp_path / "x")["refused"], "--format", "github"])
    assert code == 2 and err.startswith("eagle3-inspect: refused: E3009: ")
    annotation, summary = out.splitlines()
    g = GITHUB.fullmatch(annotation)
    assert g and g["level"] == "error" and g["title"] == "E3009"
    assert summary.startswith("REFUSED: ")


def test_github_changes_are_plain_log_lines(demo, tmp_path: Path) -> None:
    args = cases(demo, tmp_path / "dst")["planned"]
    _, github, _ = run([*args, "--format", "github"])
    _, concise, _ = run([*args, "--format", "concise"])
    assert github == concise and "::" not in github


def test_the_error_no_conversion_can_fix_is_annotated(demo, tmp_path: Path) -> None:
    """A target the engine cannot capture from: written, but exit 1 (the engine still fails on
    it), EN006 annotated, the engine version to use instead on a note line."""
    args = [str(demo.mislabelled), "--engine", CAPTURE_ENGINE, "--target", str(demo.target)]
    code, out, _ = run([*args, "--out", str(tmp_path / "dst"), "--format", "github"])
    assert code == 1
    annotations = [line for line in out.splitlines() if line.startswith("::")]
    assert len(annotations) == 1
    g = GITHUB.fullmatch(annotations[0])
    assert g and g["title"] == "EN006" and g["level"] == "error"
    assert any(": note [info] instead: " in line for line in out.splitlines())
    assert out.splitlines()[-1].startswith("NOT SERVABLE: ")


def test_a_copy_failing_verification_is_annotated_per_problem(
    demo, tmp_path: Path, monkeypatch
) -> None:
    """A shard written without one of its tensors (patched writer): verification fails (exit
    1), the copy is discarded, and each failed check is an error annotation."""
    real = output.write_safetensors

    def lose_q_proj(dest, copied, *rest):
        return real(dest, [c for c in copied if not c[0].endswith("q_proj.weight")], *rest)

    monkeypatch.setattr(output, "write_safetensors", lose_q_proj)
    args = cases(demo, tmp_path / "dst")["fixed"]
    code, out, _ = run([*args, "--format", "github"])
    assert code == 1 and not (tmp_path / "dst").exists()
    annotations = [GITHUB.fullmatch(line) for line in out.splitlines() if line.startswith("::")]
    assert annotations and all(a and a["level"] == "error" for a in annotations)
    titles = [a["title"] for a in annotations]
    assert "diff" in titles and any(t != "diff" for t in titles), titles
    assert "layers.0.self_attn.q_proj.weight is missing from DST" in out
    assert out.splitlines()[-1].startswith("NOT VERIFIED: ")
    code, concise, _ = run([*args, "--format", "concise"])
    assert code == 1 and ": diff [error] layers.0.self_attn.q_proj.weight is missing" in concise
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("case", ["planned", "refused"])
def test_jsonl_one_object_per_record_then_the_summary(demo, tmp_path: Path, case: str) -> None:
    args = cases(demo, tmp_path / "dst")[case]
    _, out, _ = run([*args, "--format", "jsonl"])
    *records, summary = [json.loads(line) for line in out.splitlines()]
    whole = as_json(args)
    assert summary["schema"] == "eagle3-inspect/fix-summary/1"
    assert summary["status"] == whole["status"] and summary["ok"] == whole["ok"]
    assert summary["exit_code"] == {"refused": 2}.get(case, 0)
    assert summary["change_count"] == len(whole["changes"])
    changes = [r for r in records if r["schema"] == "eagle3-inspect/fix-change/1"]
    assert [{k: v for k, v in c.items() if k not in ("schema", "path")} for c in changes] == (
        whole["changes"]
    )
    notes = [r["note"] for r in records if r["schema"] == "eagle3-inspect/fix-note/1"]
    assert notes == whole["notes"]
    findings = [r for r in records if r["schema"] == "eagle3-inspect/finding/1"]
    if case == "refused":
        assert [f["code"] for f in findings] == [whole["refusal"]["code"]]
        assert findings[0]["severity"] == "error" and findings[0]["engine"] == ENGINE
        assert findings[0]["path"] == str(demo.broken)
    else:
        assert findings == []
    assert len(records) == len(changes) + len(notes) + len(findings)


@pytest.mark.parametrize("case", ["planned", "refused"])
def test_json_and_its_alias(demo, tmp_path: Path, case: str) -> None:
    args = cases(demo, tmp_path / "dst")[case]
    _, out, _ = run([*args, "--format", "json"])
    _, alias, _ = run([*args, "--json"])
    assert out == alias and json.loads(out)["schema"] == "eagle3-inspect/fix/1"
    code, _, err = run([*args, "--json", "--format", "concise"])
    assert code == 2 and "--json conflicts with --format concise" in err


def test_full_is_the_rich_view(demo, tmp_path: Path) -> None:
    _, out, _ = run([*cases(demo, tmp_path / "dst")["planned"], "--format", "full"])
    assert "Plan (11 change(s))" in out and "more renames" in out
    assert out.splitlines()[-1] == "PLAN: dry run: nothing written"


def test_html_is_refused_before_any_work(demo, tmp_path: Path) -> None:
    dst = tmp_path / "dst"
    code, out, err = run([*cases(demo, dst)["fixed"], "--format", "html"])
    assert code == 2 and out == ""
    assert err.splitlines() == [
        "eagle3-inspect: error: fix: Invalid value for '--format': html is not offered by fix: "
        "it reports an action, not a checkpoint (run validate --html or diff --html on DST for "
        "those reports)"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    code, _, err = run([*cases(demo, dst)["fixed"], "--html", str(tmp_path / "r.html")])
    assert code == 2 and "no such option" in err.lower() and not dst.exists()


def test_every_change_kind_renders_to_one_matching_line() -> None:
    """Each kind `Plan.changes()` produces, with a path that needs escaping: one concise line
    per change with its subject, github leaves them as those plain lines."""
    report = FixReport(
        source="/data/drafter\nv2, final",
        destination="/data/out",
        engine=ENGINE,
        status="planned",
        changes=[
            {"kind": "rename", "from": "layers.0.mlp.up_proj.weight", "to": "midlayer.mlp.x"},
            {"kind": "drop", "tensor": "t2d"},
            {"kind": "d2t", "detail": "absolute target ids -> offsets"},
            {"kind": "t2d", "detail": "generated from d2t (256 entries)"},
            {"kind": "config", "op": "add", "key": "draft_vocab_size", "to": 256},
            {"kind": "config", "op": "remove", "key": "eagle_config.x", "from": [1]},
            {"kind": "config", "op": "change", "key": "architectures", "from": ["A"], "to": ["B"]},
        ],
    )
    lines = [concise_line(r) for r in fix_records(report)]
    assert all(CONCISE_FIX.fullmatch(line) for line in lines), lines
    tails = [line.split("v2, final", 1)[1] for line in lines]
    assert tails == [
        ":layers.0.mlp.up_proj.weight: rename [info] -> midlayer.mlp.x",
        ":t2d: drop [info] dropped (the engine would ignore it)",
        ":d2t: d2t [info] absolute target ids -> offsets",
        ":t2d: t2d [info] generated from d2t (256 entries)",
        ":config:draft_vocab_size: config [info] = 256",
        ":config:eagle_config.x: config [info] (removed)",
        ":config:architectures: config [info] ['A'] -> ['B']",
    ]
    summary = fix_summary(report)
    assert "\n" not in summary and summary.startswith("PLAN: /data/drafter\\nv2, final -> ")
    assert "7 change(s) (1 rename, 1 drop, 1 d2t, 1 t2d, 3 config)" in summary
