"""`render_html`: one offline document per report, with the findings, fixes, layout, engine
verdicts and plots the brief asks for, every untrusted string escaped."""

from __future__ import annotations

import re
import shlex
import sys
from datetime import datetime, timezone

import pytest

import eagle3_inspect
from eagle3_inspect.commands.fix.advice import advise
from eagle3_inspect.errors import InvalidArgumentError, MissingDependencyError
from eagle3_inspect.findings import finding_runs
from eagle3_inspect.html.findings import finding_rows
from eagle3_inspect.html.report import render_html
from eagle3_inspect.reader.dtypes import FLOAT_DTYPES
from eagle3_inspect.units import cosine_text
from eagle3_inspect.version import PRODUCER
from tests.html import reports
from tests.html.dom import Dom


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return reports.demo(tmp_path_factory.mktemp("html"))


def assert_offline(page: str) -> None:
    """Nothing is fetched: no script, no external src/href, a CSP that forbids loads."""
    dom = Dom(page)
    assert not dom.find("script")
    assert not dom.find("link") and not dom.find("img") and not dom.find("iframe")
    for element in dom.elements:
        for name in ("src", "href", "xlink:href"):
            value = element.attrs.get(name)
            assert value is None or value.startswith(("#", "data:")), (element.tag, value)
    csp = [m for m in dom.find("meta") if m.attrs.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0].attrs["content"]


def test_validate_report_has_findings_fixes_layout_engines_and_the_d2t_plot(files):
    report = reports.validate_report(files)
    page = render_html(report)
    assert_offline(page)
    dom = Dom(page)
    assert dom.text("title") == "validate drafter-broken: FAIL"
    rows = dom.find("tr", "finding")
    assert len(rows) == len(finding_rows(report.findings)) > 0
    # The seed's three bugs, each with its fix.
    codes = {"".join(cell.text).split(" x")[0] for cell in dom.find("td", "code")}
    assert {"EN001", "VM006", "E3009"} <= codes
    fixes = ["".join(e.text) for e in dom.find("div", "fix")]
    assert len(fixes) == sum(1 for run in finding_rows(report.findings) if run.first.hint)
    assert any("d2t_abs - arange(Vd)" in fix for fix in fixes)
    engines = dom.find("table", "engines")
    assert engines and "sglang@0.5.11" in "".join(engines[0].text)
    assert "FAIL" in "".join(engines[0].text)
    layout = "".join(dom.find("section", "layout")[0].text)
    assert "layers" in layout and "128" in layout  # the dialect and H
    vocab = dom.find("section", "vocab")[0]
    assert "absolute" in "".join(vocab.text)
    assert len(dom.find("svg")) == 1
    assert "d2t: draft id -&gt; target id" in page or "d2t: draft id -> target id" in page


def test_repeated_findings_fold_as_the_terminal_folds_them(tmp_path):
    # One rename's EN001 / EN002 pairs are one finding already (rules/en/fold.py); five
    # tensors the engine drops for no rename are a run the page and the terminal fold.
    drafter = reports.repeats_drafter(tmp_path)
    report = eagle3_inspect.validate(drafter, engine="sglang@0.5.11")
    runs = finding_runs(report.findings)
    long = [r for r in runs if r.folded]
    assert {r.code for r in long} == {"EN001"} and len(long[0].members) == 5
    dom = Dom(render_html(report))
    folded = dom.find("tr", "folded")
    assert len(folded) == len(long)
    # Each folded row opens to every other member of its run: nothing is lost.
    assert len(dom.find("details", "same-for")) == len(long)
    assert len(dom.find("li", "member")) == sum(len(r.members) - 1 for r in long)
    summaries = ["".join(e.text) for e in dom.find("summary")]
    for run in long:
        assert f"... {run.same_for()}" in summaries
    # The terminal prints the same words for the same run.
    terminal = run_cli_full(drafter)
    for run in long:
        assert run.same_for() in terminal


def run_cli_full(drafter) -> str:
    from click.testing import CliRunner

    from eagle3_inspect.cli import main

    args = ["validate", str(drafter), "--engine", "sglang@0.5.11", "--format", "full"]
    return CliRunner(env={"COLUMNS": "200"}).invoke(main, args).stdout


def step_text(dom: Dom) -> str:
    [box] = dom.find("section", "next-step")
    return "".join(box.text)


def test_next_step_says_what_fix_repairs_and_what_needs_retraining(files, tmp_path):
    report = reports.validate_report(files)
    text = step_text(Dom(render_html(report)))
    # fix itself refuses this drafter, for the reason the box gives.
    refused = eagle3_inspect.fix(
        files.broken, engine="sglang@0.5.11", target=files.target, out=tmp_path / "o", dry_run=True
    )
    assert refused.status == "refused"
    [advice] = advise(report)
    assert advice.status == "refused" and advice.refusal[0] == refused.refusal["code"]
    # Once the fc is retrained, fix repairs the key names and the d2t encoding ...
    # (the rename's EN002s are folded into its one EN001: rules/en/fold.py)
    assert {f.code for f in advice.repaired} >= {"EN001", "VM006"}
    assert "fix repairs once the rest is resolved: EN001, VM006" in text
    assert "d2t re-encoded as offsets" in text
    # ... and the fc trained for one aux layer is the drafter's own problem.
    assert "E3009" in {f.code for f in advice.retrain}
    assert "Needs retraining" in text and "E3009" in text
    command = (
        f"eagle3-inspect fix {files.broken} --engine sglang@0.5.11 --target {files.target} "
        f"--out {files.broken}-sglang-0.5.11"
    )
    assert command in text


def test_next_step_of_a_fixable_drafter_is_the_fix_command(files, tmp_path):
    report = eagle3_inspect.validate(files.mislabelled, engine="sglang@0.5.11")
    [advice] = advise(report)
    planned = eagle3_inspect.fix(
        files.mislabelled, engine="sglang@0.5.11", out=tmp_path / "o", dry_run=True
    )
    assert planned.status == "planned" and advice.status == "fixable"
    assert advice.changes == planned.changes
    assert not [f for f in advice.remaining if f.severity.value == "error"]
    text = step_text(Dom(render_html(report)))
    assert "fix writes a drafter this engine version loads as trained" in text
    assert f"run: eagle3-inspect fix {files.mislabelled} --engine sglang@0.5.11" in text
    # Run as the box says, fix repairs it and validate is then clean for that engine.
    out = tmp_path / "served"
    assert eagle3_inspect.fix(files.mislabelled, engine="sglang@0.5.11", out=out).status == "fixed"
    after = eagle3_inspect.validate(out, engine="sglang@0.5.11")
    assert not {f.code for f in after.findings} & {f.code for f in advice.repaired}


def test_without_an_engine_the_next_step_is_the_validate_command(files):
    text = step_text(Dom(render_html(eagle3_inspect.validate(files.broken))))
    assert f"eagle3-inspect validate {files.broken} --engine all" in text


def test_the_target_facts_and_the_aux_layers_each_engine_captures(files):
    report = reports.validate_report(files)
    dom = Dom(render_html(report))
    target = "".join(dom.find("section", "target")[0].text)
    for fact in ("KimiK25ForConditionalGeneration", "61", "128", "4096"):
        assert fact in target
    [captures] = dom.find("table", "captures")
    assert "sglang@0.5.11" in "".join(captures.text)
    header = "".join(dom.find("p", "target-line")[0].text)
    assert "61 layers" in header and "vocab 4096" in header


def test_every_page_names_the_version_the_time_and_the_command(files, tmp_path):
    when = datetime(2026, 12, 2, 4, 5, 6, tzinfo=timezone.utc)
    for report in (
        reports.validate_report(files),
        eagle3_inspect.scan(files.broken, stats=True),
        reports.layered_diff(tmp_path),
    ):
        dom = Dom(render_html(report, command="eagle3-inspect x --y", written=when))
        [footer] = dom.find("footer", "run")
        text = "".join(footer.text)
        assert PRODUCER in text and "2026-12-02 04:05:06 UTC" in text
        assert "eagle3-inspect x --y" in text
        # Made through the API, the page names the call the report's options give.
        api = "".join(Dom(render_html(report)).find("footer", "run")[0].text)
        assert "eagle3_inspect." in api
    validate_call = "".join(
        Dom(render_html(reports.validate_report(files))).find("code", "command")[0].text
    )
    assert validate_call == (
        f"eagle3_inspect.validate({str(files.broken)!r}, engine='sglang@0.5.11', "
        f"target={str(files.target)!r})"
    )


def test_the_cli_page_names_its_command_line(files, tmp_path):
    from click.testing import CliRunner

    from eagle3_inspect.cli import main

    page = tmp_path / "r.html"
    args = ["scan", str(files.broken), "--stats", "--html", str(page), "--format", "json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.stderr
    command = "".join(Dom(page.read_text()).find("code", "command")[0].text)
    assert command == shlex.join(["eagle3-inspect", *args])


def test_a_clean_validate_report_passes(files):
    page = render_html(eagle3_inspect.validate(files.correct, engine="sglang@0.5.11"))
    dom = Dom(page)
    assert dom.text("title") == "validate drafter-correct: PASS"
    assert not dom.find("tr", "sev-error")
    assert len(dom.find("svg")) == 1


def test_diff_report_charts_every_pair_grouped_by_layer(tmp_path):
    report = reports.layered_diff(tmp_path)
    page = render_html(report)
    assert_offline(page)
    dom = Dom(page)
    assert dom.text("title") == "diff step-a vs step-b: different"
    assert len(dom.find("svg")) == 1
    chart = "".join(dom.find("section", "chart")[0].text)
    for title in ("relative L2", "cosine similarity", "mismatched share"):
        assert title in chart
    # The legend names each layer group, in layer order.
    order = [chart.index(g) for g in ("layer 0", "layer 1", "outside layers")]
    assert order == sorted(order)
    for pair in report.pairs:
        assert pair.name in chart
    assert len(dom.find("table", "changed")[0].text) > 0


def test_structure_only_diff_says_there_is_nothing_to_plot(files):
    page = render_html(eagle3_inspect.diff(files.correct, files.broken, structure_only=True))
    assert not Dom(page).find("svg")
    assert "Structure-only diff" in page


def test_scan_stats_table_has_a_row_and_bars_per_tensor(files):
    report = eagle3_inspect.scan(files.broken, stats=True)
    page = render_html(report)
    assert_offline(page)
    dom = Dom(page)
    table = page.split('class="tensors stats"')[1].split("</table>")[0]
    assert table.count("<tr") == 1 + len(report.tensors)  # the header row and one per tensor
    for info in report.tensors:
        assert f"<td>{info.name}</td>" in table
    # Bars only where there is something to see: a |max| bar per float tensor, a zero bar where
    # some (not all) elements are zero, no NaN/Inf bar (there are none).
    stats = report.stats.values()
    assert not any(s.nan + s.posinf + s.neginf for s in stats)
    floats = sum(1 for s in stats if s.dtype in FLOAT_DTYPES)
    some_zero = sum(1 for s in stats if 0 < s.zeros < s.numel)
    assert some_zero == 2  # d2t (draft id 0 maps to 0) and t2d
    assert len(dom.find("span", "bar")) == floats + some_zero
    # t2d is a BOOL mask over the target vocab, mostly False: its zero bar is mostly full.
    widths = re.findall(r'fill zero" style="width:([0-9.]+)%', page)
    assert max(float(w) for w in widths) == pytest.approx(87.5, abs=0.1)
    # Every row names its file and byte offset.
    for info in report.tensors:
        assert f"<td>{info.offset}</td>" in table
    assert "<th>offset</th>" in table  # one file: the summary names it
    assert "1 (model.safetensors)" in "".join(dom.find("table", "facts")[0].text)


def test_scan_highlights_all_zero_and_nonfinite_tensors(tmp_path):
    report = eagle3_inspect.scan(reports.anomalous_checkpoint(tmp_path), stats=True, hashes=True)
    dom = Dom(render_html(report))
    [zero] = dom.find("tr", "all-zero")
    assert "dead.weight" in "".join(zero.text) and "all zero" in "".join(zero.text)
    [bad] = dom.find("tr", "nonfinite")
    assert "nan.weight" in "".join(bad.text)
    assert len(dom.find("span", "bad")) == 1  # the NaN/Inf bar only where there are some
    anomalies = "".join(dom.find("ul", "anomalies")[0].text)
    assert "1 all-zero tensor(s): dead.weight" in anomalies
    assert "1 tensor(s) with NaN or Inf values: nan.weight" in anomalies
    # The content hash, when the scan computed it.
    hashes = ["".join(e.text) for e in dom.find("div", "hash")]
    assert sorted(hashes) == sorted(s.hash for s in report.stats.values())
    plain = Dom(render_html(eagle3_inspect.scan(reports.anomalous_checkpoint(tmp_path))))
    assert not plain.find("div", "hash") and not plain.find("ul", "anomalies")


def test_diff_collapses_equal_tensors_and_knows_a_re_encoded_d2t(files):
    report = eagle3_inspect.diff(files.correct, files.mislabelled)
    assert report.vocab["same_mapping"] is True
    dom = Dom(render_html(report))
    # d2t's bytes differ but it is the same mapping: said so, never charted as a change.
    changed = "".join(dom.find("table", "changed")[0].text)
    assert "same mapping, re-encoded" in changed
    chart = "".join(dom.find("section", "chart")[0].text)
    assert "d2t" not in chart
    # The equal pairs are one line that opens to their names.
    [equal] = dom.find("details", "equal")
    assert f"{report.unchanged} tensor(s) bitwise equal" in "".join(equal.text)
    # The vocab comparison is a table of both sides, not a dict.
    [vocab] = dom.find("section", "vocab")
    text = "".join(vocab.text)
    assert dom.find("table", "vocab") and "{" not in text
    assert "absolute" in text and "offsets" in text and "same mapping" in text


def test_the_changed_table_spells_cosine_as_the_terminal_does(files):
    # The re-encoded d2t's cosine is 0.999998..., never printed as 1 (issue 24 item 12).
    report = eagle3_inspect.diff(files.correct, files.mislabelled)
    [d2t] = [p for p in report.pairs if p.name == "d2t"]
    cosine = d2t.metrics["cosine"]
    assert 0 < 1 - cosine < 1e-3
    changed = "".join(Dom(render_html(report)).find("table", "changed")[0].text)
    assert cosine_text(cosine) in changed and cosine_text(cosine) != "1"


def test_untrusted_strings_are_escaped_everywhere(tmp_path):
    report = reports.hostile_diff(tmp_path)
    scan = eagle3_inspect.scan(tmp_path / "hostile", stats=True)
    check = eagle3_inspect.validate(tmp_path / "hostile", engine="all")
    for page in (render_html(report), render_html(scan), render_html(check)):
        assert_offline(page)
        assert "<script>" not in page
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;$x^$" in page
    # In the chart the name is text, not TeX: the `$...$` survives as written.
    chart = Dom(render_html(report)).find("svg")[0]
    assert any(reports.HOSTILE in t for t in chart.text)


def test_rendering_is_deterministic(files):
    report = reports.validate_report(files)
    when = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert render_html(report, written=when) == render_html(report, written=when)


def test_missing_matplotlib_names_the_extra(files, monkeypatch):
    report = reports.validate_report(files)
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now fails
    with pytest.raises(MissingDependencyError, match=r"eagle3-inspect\[html\]"):
        render_html(report)


def test_other_objects_are_refused(files):
    with pytest.raises(InvalidArgumentError, match="Checkpoint"):
        render_html(eagle3_inspect.open(files.correct))


def test_every_engine_gets_a_next_step_and_a_command_fix_accepts(files, tmp_path):
    report = eagle3_inspect.validate(files.broken, engine="all", target=files.target)
    advice = advise(report)
    assert [a.engine for a in advice] == report.engines
    assert all(a.status != "not-planned" for a in advice)
    # A version label that is not a release number (trtllm@main-...) is selected by the name.
    [trtllm] = [a for a in advice if a.engine.startswith("trtllm@")]
    assert " --engine trtllm " in trtllm.command
    argv = shlex.split(trtllm.command)
    spec = argv[argv.index("--engine") + 1]
    out = tmp_path / "o"
    done = eagle3_inspect.fix(files.broken, engine=spec, target=files.target, out=out, dry_run=True)
    assert (done.status, done.refusal["code"]) == (trtllm.status, trtllm.refusal[0])
    text = step_text(Dom(render_html(report)))
    for a in advice:
        assert a.command in text


def test_an_engine_that_cannot_capture_the_target_is_told_to_move_on(files, tmp_path):
    report = eagle3_inspect.validate(files.correct, engine="sglang@0.5.9", target=files.target)
    [advice] = advise(report)
    done = eagle3_inspect.fix(
        files.correct, engine="sglang@0.5.9", target=files.target, out=tmp_path / "o", dry_run=True
    )
    # fix itself: nothing to change, and blocked on EN006 with a newer version to serve with.
    assert done.status == "nothing-to-do" and done.blocked
    assert (advice.status, advice.changes, advice.suggestion) == ("blocked", [], done.suggestion)
    assert [f.code for f in advice.other_engine] == ["EN006"]
    text = step_text(Dom(render_html(report)))
    assert "fix has nothing to change, and this engine version still fails on it" in text
    assert f"instead: {done.suggestion}" in text
    assert "eagle3-inspect fix" not in text  # no command that would change nothing
