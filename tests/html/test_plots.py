"""The matplotlib plots: inline SVG with text as text, thinned to a bounded size."""

from __future__ import annotations

from eagle3_inspect.html.plots.d2t import ENGINE, MAX_POINTS, POINTS, d2t_plot
from eagle3_inspect.html.plots.diffchart import ChartRow, diff_chart
from tests.html.dom import Dom


def markers(dom: Dom, colour: str) -> int:
    """Marker instances of one series (axis ticks are <use> elements too, in black)."""
    return sum(1 for e in dom.find("use") if colour in e.attrs.get("style", ""))


def test_d2t_plot_thins_a_large_vocabulary():
    ids = [2 * i for i in range(32000)]
    svg = d2t_plot(ids, 64000, "caption")
    dom = Dom(svg)
    assert len(dom.find("svg")) == 1 and dom.text("figcaption") == "caption"
    assert 1000 < markers(dom, POINTS) <= MAX_POINTS
    assert "every 16th id of 32000" in svg
    assert len(svg) < 400_000


def test_d2t_plot_draws_the_engine_reading_when_given():
    ids = list(range(100, 200))
    plain = Dom(d2t_plot(ids, 300, "c"))
    both = Dom(d2t_plot(ids, 300, "c", [t + i for i, t in enumerate(ids)]))
    assert (markers(plain, POINTS), markers(plain, ENGINE)) == (100, 0)
    # Both series, each with one more marker in the legend that tells them apart.
    assert markers(both, POINTS) == markers(both, ENGINE) == 101
    assert "as engines read it" in "".join("".join(t.text) for t in both.find("text"))


def test_diff_chart_labels_are_text_even_with_tex_characters():
    rows = [
        ChartRow("layer 0", "layers.0.$a^$_{b}", 0.1, 0.99, 0.0),
        ChartRow("outside layers", "fc.weight", None, None, None),
    ]
    dom = Dom(diff_chart(rows, "c"))
    texts = ["".join(t.text) for t in dom.find("text")]
    assert "layers.0.$a^$_{b}" in texts
    assert "outside layers" in texts
