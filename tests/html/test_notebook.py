"""Notebook views: `_repr_html_` on Checkpoint and the reports share the HTML report's pieces, in a
scoped fragment; matplotlib is optional for them and never loaded by `import eagle3_inspect`."""

from __future__ import annotations

import subprocess
import sys

import pytest

import eagle3_inspect
import eagle3_inspect.html.plots as plots
from eagle3_inspect.html.findings import finding_rows
from eagle3_inspect.html.views.checkpoint import NOTEBOOK_ROWS
from tests.html import reports
from tests.html.dom import Dom


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return reports.demo(tmp_path_factory.mktemp("notebook"))


def fragment(obj) -> Dom:
    markup = obj._repr_html_()
    assert markup.startswith('<div class="e3i"><style>') and markup.endswith("</div>")
    assert "<html" not in markup and "<script" not in markup
    return Dom(markup)


def test_checkpoint_view_lists_tensors_and_findings(files):
    ckpt = eagle3_inspect.open(files.broken)
    dom = fragment(ckpt)
    names = {"".join(row.text) for row in dom.find("td")}
    assert set(ckpt.tensors) <= names
    assert "No findings." in dom.text("p")


def test_checkpoint_view_caps_long_tensor_lists(tmp_path):
    import numpy as np

    from eagle3_inspect.synthetic.writer import write_safetensors

    arrays = {f"t{i:04d}": np.zeros(1, np.float32) for i in range(NOTEBOOK_ROWS + 5)}
    write_safetensors(tmp_path / "many.safetensors", arrays)
    dom = fragment(eagle3_inspect.open(tmp_path / "many.safetensors"))
    assert len(dom.find("table", "tensors")[0].text) > 0
    assert "... and 5 more tensors." in dom.text("p")


def test_validate_view_is_the_report_body_with_the_plot(files):
    report = reports.validate_report(files)
    dom = fragment(report)
    assert len(dom.find("tr", "finding")) == len(finding_rows(report.findings))
    assert dom.find("section", "next-step")
    assert dom.find("table", "engines")
    assert len(dom.find("svg")) == 1


def test_views_without_matplotlib_say_how_to_get_plots(files, tmp_path, monkeypatch):
    monkeypatch.setattr(plots, "plots_available", lambda: False)
    for report in (reports.validate_report(files), reports.layered_diff(tmp_path)):
        dom = fragment(report)
        assert not dom.find("svg")
        assert "eagle3-inspect[html]" in dom.text("p")


def test_diff_view_has_the_chart(tmp_path):
    report = reports.layered_diff(tmp_path)
    dom = fragment(report)
    assert len(dom.find("svg")) == 1
    assert len(dom.find("table", "changed")) == 1


def test_scan_view_has_the_stats_table(files):
    report = eagle3_inspect.scan(files.broken, stats=True)
    dom = fragment(report)
    assert dom.find("table", "stats")


def test_import_does_not_load_matplotlib():
    # Nor does importing the HTML report's module: matplotlib loads when a plot is drawn.
    code = (
        "import sys, eagle3_inspect, eagle3_inspect.html.report; "
        "assert 'matplotlib' not in sys.modules, [m for m in sys.modules if 'matplotlib' in m]"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
