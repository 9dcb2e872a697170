"""The matplotlib side shared by every plot: the dependency check, a figure context with safe text
settings, and the figure as an inline `<svg>` element."""

from __future__ import annotations

import importlib.util
import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from eagle3_inspect.errors import MissingDependencyError
from eagle3_inspect.html.markup import Markup, tag

if TYPE_CHECKING:
    from matplotlib.figure import Figure

EXTRA = "pip install 'eagle3-inspect[html]'"
# matplotlib's own parameter names (its stubs type them as Literals: read as Any here).
RC: dict[Any, Any] = {
    # Text stays text (selectable, small); matplotlib escapes it for XML.
    "svg.fonttype": "none",
    # Stable element ids: the same report gives the same bytes.
    "svg.hashsalt": "eagle3-inspect",
    # A tensor name with `$` in it is a name, not TeX (mathtext would fail or garble it).
    "text.parse_math": False,
    "font.size": 9,
}


def plots_available() -> bool:
    """Whether matplotlib can be imported (without importing it)."""
    return importlib.util.find_spec("matplotlib") is not None


def require_matplotlib() -> None:
    """Raises `MissingDependencyError` naming the extra when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(f"the HTML report's plots need matplotlib: {EXTRA}") from exc


def label(text: object) -> str:
    """Untrusted text for a plot label: lone surrogates made printable."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")


@contextmanager
def figure(width: float, height: float) -> Iterator[Figure]:
    """A fresh Figure (no pyplot, so no global backend or figure registry is touched) under the
    safe text settings."""
    require_matplotlib()
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(RC):
        yield Figure(figsize=(width, height), layout="constrained")


def to_svg(fig: Figure, alt: str) -> Markup:
    """The figure as an inline `<svg>` inside a `<figure class="plot">` with a caption."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context(RC):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    start = text.find("<svg")
    return tag("figure", Markup(text[start:]), tag("figcaption", alt), class_="plot")
