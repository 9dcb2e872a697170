"""Strict compact JSON of one record, and `EncodedRecords`: records already encoded as that text.

`encode_record` is the C encoder built once (`json.dumps` builds a new encoder per call, which over
a million records costs more than the encoding itself), with `str()` for unknown objects and NaN
refused. The per-tensor records (TensorInfo, TensorStats, Finding) also spell their own JSON
through `json_str` / `json_scalar` in f-strings: the same bytes as `encode_record(to_dict())`
at a third of its cost, with `encode_record` as the fallback for any value of another type.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any, TypeVar

# A JSON string literal, ASCII-escaped exactly as the encoder escapes it (TypeError on a non-str).
json_str: Callable[[str], str] = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]


class EncodedRecords(Iterator[str]):
    """A one-pass iterator of records already encoded as JSON text (`to_json()`), which the
    streaming writer (`cli/json_stream.py`) writes as they are, a record per line."""

    __slots__ = ("texts",)

    def __init__(self, texts: Iterable[str]) -> None:
        self.texts = iter(texts)  # the writer takes records from here in batches

    def __next__(self) -> str:
        return next(self.texts)


class NotPlain(TypeError):
    """A value a record's own JSON spelling does not cover: the caller falls back to the encoder."""


def json_scalar(value: Any) -> str:
    """`value` (None, int, finite float or str, exactly those types) as the encoder writes it;
    NotPlain for anything else (bool, subclasses, NaN and infinities, containers)."""
    kind = type(value)
    if value is None:
        return "null"
    if kind is int:
        return int.__repr__(value)
    if kind is float and -_INF < value < _INF:
        return float.__repr__(value)
    if kind is str:
        return json_str(value)
    raise NotPlain(kind.__name__)


_INF = float("inf")


def _record_encoder() -> Callable[[Any], str]:
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pure-Python json: still correct, only slower
        encoder = json.JSONEncoder(allow_nan=False, default=str)
        return encoder.encode
    # (markers, default, encoder, indent, key_separator, item_separator, sort_keys, skipkeys,
    # allow_nan): no cycle markers, str() for unknown objects, NaN/Infinity refused.
    c_encode = make(None, str, json_str, None, ": ", ", ", False, False, False)
    return lambda value: "".join(c_encode(value, 0))


encode_record: Callable[[Any], str] = _record_encoder()

T = TypeVar("T")
# Records per call of a native writer: large enough that the call costs nothing per record, small
# enough that a chunk's text is a few MB (a million-row report never holds all its strings).
NATIVE_CHUNK = 8192


def chunked_texts(
    items: Iterable[T],
    write_chunk: Callable[[list[T]], list[str | None]],
    spell: Callable[[T], str],
) -> Iterator[str]:
    """The JSON text of each item, written NATIVE_CHUNK items at a time by `write_chunk` (a
    native writer), which gives None for an item it does not spell: `spell(item)` writes that
    one the Python way."""
    it = iter(items)
    while chunk := list(islice(it, NATIVE_CHUNK)):
        texts = write_chunk(chunk)
        if None in texts:
            texts = [spell(i) if t is None else t for t, i in zip(texts, chunk, strict=True)]
        yield from texts  # type: ignore[misc]
