"""Strict compact JSON of one record, and `EncodedRecords`: records already encoded as that text.

`encode_record` is the C encoder built once (`json.dumps` builds a new encoder per call, which over
a million records costs more than the encoding itself), with `str()` for unknown objects and NaN
refused. `native_records` hands a native writer (`reader/records_json.py`) a list of records a
chunk at a time.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any, TypeVar

# A JSON string literal, ASCII-escaped exactly as the encoder escapes it.
_json_str: Callable[[str], str] = json.encoder.encode_basestring_ascii


class EncodedRecords(Iterator[str]):
    """A one-pass iterator of records already encoded as JSON text (`to_json()`), which the
    streaming writer (`cli/json_stream.py`) writes as they are, a record per line. `joined`, when
    given, is the other way to the same records, which the writer takes instead: called with the
    separator the writer puts between records, it yields pieces of several records joined by it
    (each piece non-empty), so no Python step is taken per record."""

    __slots__ = ("joined", "texts")

    def __init__(
        self, texts: Iterable[str], joined: Callable[[str], Iterator[str]] | None = None
    ) -> None:
        self.texts = iter(texts)  # the writer takes records from here in batches
        self.joined = joined

    def __next__(self) -> str:
        return next(self.texts)


def _record_encoder() -> Callable[[Any], str]:
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pure-Python json: still correct, only slower
        encoder = json.JSONEncoder(allow_nan=False, default=str)
        return encoder.encode
    # (markers, default, encoder, indent, key_separator, item_separator, sort_keys, skipkeys,
    # allow_nan): no cycle markers, str() for unknown objects, NaN/Infinity refused.
    c_encode = make(None, str, _json_str, None, ": ", ", ", False, False, False)
    return lambda value: "".join(c_encode(value, 0))


encode_record: Callable[[Any], str] = _record_encoder()

T = TypeVar("T")
# Records per call of a native writer: large enough that the call costs nothing per record, small
# enough that a chunk's text is a few MB (a million-row report never holds all its strings).
NATIVE_CHUNK = 8192
# A native writer of a chunk of items: with a separator, one string of all their records joined
# by it, or (without one, or when it does not spell one of them) a list of each item's record,
# None for an item it does not spell.
NativeWriter = Callable[[list[T], "str | None"], "str | list[str | None]"]


def native_records(
    items: Iterable[T], write_chunk: NativeWriter[T], spell: Callable[[T], str]
) -> EncodedRecords:
    """The JSON records of `items`, written NATIVE_CHUNK items at a time by `write_chunk`;
    `spell(item)` writes an item the native writer does not spell. `items` is read once, by
    whichever of the record-by-record and joined ways the consumer takes."""
    return EncodedRecords(
        _record_texts(items, write_chunk, spell),
        lambda separator: _joined_texts(items, write_chunk, spell, separator),
    )


def _filled(texts: list[str | None], chunk: list[T], spell: Callable[[T], str]) -> list[str]:
    if None in texts:
        return [spell(i) if t is None else t for t, i in zip(texts, chunk, strict=True)]
    return texts  # type: ignore[return-value]


def _record_texts(
    items: Iterable[T], write_chunk: NativeWriter[T], spell: Callable[[T], str]
) -> Iterator[str]:
    it = iter(items)
    while chunk := list(islice(it, NATIVE_CHUNK)):
        yield from _filled(write_chunk(chunk, None), chunk, spell)  # type: ignore[arg-type]


def _joined_texts(
    items: Iterable[T], write_chunk: NativeWriter[T], spell: Callable[[T], str], separator: str
) -> Iterator[str]:
    it = iter(items)
    while chunk := list(islice(it, NATIVE_CHUNK)):
        texts = write_chunk(chunk, separator)
        yield texts if isinstance(texts, str) else separator.join(_filled(texts, chunk, spell))
