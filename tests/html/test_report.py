"""`render_html`: one offline document per report, with the findings, fixes, layout, engine
verdicts and plots the brief asks for, every untrusted string escaped."""

from __future__ import annotations

import re
import sys

import pytest

import eagle3_inspect
from eagle3_inspect.errors import InvalidArgumentError, MissingDependencyError
from eagle3_inspect.html.report import render_html
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
    assert len(rows) == len(report.findings) > 0
    # The seed's three bugs, each with its fix.
    codes = {"".join(cell.text) for cell in dom.find("td", "code")}
    assert {"EN001", "VM006", "E3009"} <= codes
    fixes = ["".join(e.text) for e in dom.find("div", "fix")]
    assert len(fixes) == sum(1 for f in report.findings if f.hint)
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
    assert table.count("<tr>") == 1 + len(report.tensors)  # the header row and one per tensor
    for info in report.tensors:
        assert f"<td>{info.name}</td>" in table
    assert len(dom.find("span", "bar")) == 3 * len(report.tensors) - 2  # no |max| bar: d2t, t2d
    # t2d is a BOOL mask over the target vocab, mostly False: its zero bar is mostly full.
    widths = re.findall(r'fill zero" style="width:([0-9.]+)%', page)
    assert max(float(w) for w in widths) == pytest.approx(87.5, abs=0.1)


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
    assert render_html(report) == render_html(report)


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
