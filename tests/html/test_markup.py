"""Escaping and element building: untrusted text never becomes markup."""

from __future__ import annotations

from eagle3_inspect.html.bars import bar, share
from eagle3_inspect.html.markup import Markup, esc, table, tag


def test_text_is_escaped_quotes_included():
    assert esc('<b a="1">&\'') == "&lt;b a=&quot;1&quot;&gt;&amp;&#x27;"


def test_markup_passes_through_once():
    inner = tag("b", "<x>")
    assert tag("p", inner) == "<p><b>&lt;x&gt;</b></p>"
    assert esc(inner) is inner


def test_attributes_are_escaped_and_none_dropped():
    out = tag("td", "v", class_="a", title='"><script>', style=None)
    assert out == '<td class="a" title="&quot;&gt;&lt;script&gt;">v</td>'


def test_lone_surrogates_become_printable_escapes():
    # A lossless path of a non-UTF-8 file name (os.fsdecode) must not break the page's encoding.
    out = esc("dir-\udcff/model.safetensors")
    out.encode("utf-8")
    assert "\\udcff" in out


def test_table_cells_are_escaped_unless_markup():
    out = table(["<h>"], [["<c>", Markup("<i>ok</i>")]])
    assert "<th>&lt;h&gt;</th>" in out
    assert "<td>&lt;c&gt;</td>" in out
    assert "<td><i>ok</i></td>" in out


def test_share_is_clamped_and_refuses_nonsense():
    assert share(1, 4) == 0.25
    assert share(5, 4) == 1.0
    assert share(-1, 4) == 0.0
    assert share(1, 0) is None
    assert share(None, 4) is None
    assert share(float("inf"), 1.0) is None


def test_bar_width_follows_the_fraction():
    assert 'style="width:25.0%"' in bar(0.25, "1 of 4")
    assert "width" not in bar(None, "n/a")
