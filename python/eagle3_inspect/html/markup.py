"""Escaping and element building. Every string from a checkpoint (tensor names, metadata, config
values, paths) is untrusted: it is escaped unless it is already `Markup` built here."""

from __future__ import annotations

import html
from collections.abc import Iterable


class Markup(str):
    """A string that is already safe HTML (built by this module, or by matplotlib's SVG writer)."""


def esc(value: object) -> Markup:
    """`value` as HTML text: escaped (quotes too) unless it is already `Markup`. Lone surrogates
    (lossless paths of non-UTF-8 file names) become `\\udcXX` so the page encodes as UTF-8."""
    if isinstance(value, Markup):
        return value
    text = "" if value is None else str(value)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return Markup(html.escape(text, quote=True))


def join(parts: Iterable[object]) -> Markup:
    """Concatenates parts, escaping each that is not `Markup`."""
    return Markup("".join(esc(p) for p in parts))


def tag(name: str, *content: object, **attrs: object) -> Markup:
    """`<name attrs>content</name>`. Attribute values are escaped; `class_` means `class`;
    attributes whose value is None are left out."""
    rendered = "".join(
        f' {key.rstrip("_").replace("_", "-")}="{esc(value)}"'
        for key, value in attrs.items()
        if value is not None
    )
    return Markup(f"<{name}{rendered}>{join(content)}</{name}>")


def table(
    headers: Iterable[object], rows: Iterable[Iterable[object]], *, class_: str | None = None
) -> Markup:
    """A table with one header row; each row is a sequence of cells (text or `Markup`)."""
    head = tag("thead", tag("tr", *(tag("th", h) for h in headers)))
    body = tag("tbody", *(tag("tr", *(tag("td", c) for c in row)) for row in rows))
    return tag("table", head, body, class_=class_)


def definitions(items: Iterable[tuple[object, object]]) -> Markup:
    """A two-column key/value table (the layout, a summary)."""
    rows = (tag("tr", tag("th", key), tag("td", value)) for key, value in items)
    return tag("table", tag("tbody", *rows), class_="kv")


def section(title: object, *content: object, class_: str | None = None) -> Markup:
    return tag("section", tag("h2", title), *content, class_=class_)


def note(text: object) -> Markup:
    return tag("p", text, class_="note")
