"""The `--json` writer: strict JSON of a report, indented two levels deep with one record (a
tensor, a finding) per line below that, written in batches as it is encoded.

Encoding streams so that a million-record report never exists as one string (nor as a list of
a million line strings) beside the dict it came from; each record goes through one C encoder
built once (`json.dumps` builds a new encoder per call, which over a million records costs more
than the encoding itself; `json.dumps(indent=...)` falls back to the pure-Python encoder).
Records that arrive as `EncodedRecords` (encoded by the report) are written as they are."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any

from eagle3_inspect.jsontext import EncodedRecords, encode_record

# Bytes of encoded text gathered before each write: few writes, little held.
BATCH_CHARS = 1 << 20
# Encoded records joined into one piece of the document.
RECORDS_PER_PIECE = 512


def iter_json(value: Any, depth: int = 0) -> Iterator[str]:
    """Pieces of `value` as JSON; joined they are the document (two levels indented). An
    iterator (of records, consumed once) is written as the list it yields."""
    pad = "  " * (depth + 1)
    if depth < 2 and isinstance(value, dict) and value:
        sep = "{\n"
        for k, v in value.items():
            yield f"{sep}{pad}{json.dumps(str(k))}: "
            yield from iter_json(v, depth + 1)
            sep = ",\n"
        yield "\n" + "  " * depth + "}"
    elif type(value) is EncodedRecords:
        yield from _encoded_list(value, depth)
    elif depth < 2 and isinstance(value, (list, Iterator)):
        sep = "[\n"
        for v in value:
            if depth == 1:  # a record (one line): encoded here, not through a generator each
                yield sep + pad + encode_record(v)
            else:
                yield sep + pad
                yield from iter_json(v, depth + 1)
            sep = ",\n"
        # An empty list is `[]`, whether it came as a list or as an iterator.
        yield "[]" if sep == "[\n" else "\n" + "  " * depth + "]"
    else:
        yield encode_record(value)


def _encoded_list(records: EncodedRecords, depth: int) -> Iterator[str]:
    """A list of records already encoded, a record per line, joined RECORDS_PER_PIECE at a time
    or as the report's native writer joined them (no Python step per record: a report may hold a
    million)."""
    pad = "  " * (depth + 1)
    separator = ",\n" + pad
    if records.joined is not None:
        pieces = records.joined(separator)
    else:
        texts = records.texts
        pieces = map(separator.join, iter(lambda: list(islice(texts, RECORDS_PER_PIECE)), []))
    first = next(pieces, None)
    if first is None:
        yield "[]"
        return
    yield "[\n" + pad + first
    for piece in pieces:
        yield separator + piece
    yield "\n" + "  " * depth + "]"


def json_text(value: Any) -> str:
    """`value` as one JSON string (what `write_json` writes, without the final newline)."""
    return "".join(iter_json(value))


def write_json(value: Any, write: Callable[[str], Any]) -> None:
    """Writes `value` as JSON and a newline through `write`, about BATCH_CHARS at a time."""
    batch: list[str] = []
    size = 0
    for piece in iter_json(value):
        batch.append(piece)
        size += len(piece)
        if size >= BATCH_CHARS:
            write("".join(batch))
            batch.clear()
            size = 0
    batch.append("\n")
    write("".join(batch))
