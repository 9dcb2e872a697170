"""Numbers as people read them, in every face (the rich text and the HTML report alike): byte
sizes, statistics, shapes."""

from __future__ import annotations

from collections.abc import Sequence


def number(value: float | int | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:.4g}"


def human_bytes(n: int) -> str:
    """A byte count for people (B, KiB, ... TiB), for the rich and the HTML views alike."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{n} B" if unit == "B" else f"{size:.2f} {unit}"
        size /= 1024
    return f"{n} B"


def shape_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def cosine_text(value: float | None) -> str:
    """A cosine similarity as every face prints it: 6 significant digits, and never `1` for
    one that is not exactly 1 (0.9999999 is `0.9999999`, not a rounded-up match)."""
    if value is None:
        return "-"
    text = f"{value:.6g}"
    if text in ("1", "-1") and abs(value) != 1.0:
        text = repr(value)
    return text
