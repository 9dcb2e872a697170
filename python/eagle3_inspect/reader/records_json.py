"""The per-tensor lists of a report's JSON (its findings, scan's tensor rows with their
statistics) for the CLI's streaming writer: each record's JSON text, written by the native
writers a chunk at a time from the record class's `Shape` (`records.py`), byte for byte as the
encoder writes its `to_dict()`. A record the native writers do not spell (a value of another
type, a non-finite statistic, stats not in the pass's order) is written the Python way."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from eagle3_inspect import _native
from eagle3_inspect.findings import SHAPE as FINDING_SHAPE
from eagle3_inspect.findings import Finding
from eagle3_inspect.jsontext import EncodedRecords, encode_record, native_records
from eagle3_inspect.reader.stats import SHAPE as STATS_SHAPE
from eagle3_inspect.reader.stats import TensorStats
from eagle3_inspect.reader.stats_map import stats_columns
from eagle3_inspect.reader.tensorinfo import SHAPE as TENSOR_SHAPE
from eagle3_inspect.reader.tensorinfo import TensorInfo

# What the native writers take for each record class.
FINDING, TENSOR, STATS = FINDING_SHAPE.native, TENSOR_SHAPE.native, STATS_SHAPE.native


def findings_json(
    findings: list[Finding], *, stream: bool
) -> list[dict[str, Any]] | EncodedRecords:
    """The `findings` member: dicts, or with `stream` a one-pass iterator of each finding's JSON
    text."""
    if not stream:
        return [f.to_dict() for f in findings]

    def write_chunk(chunk: list[Finding], separator: str | None) -> str | list[str | None]:
        return _native.records_json(chunk, FINDING, separator)

    return native_records(findings, write_chunk, Finding.to_json)


def tensor_texts(
    infos: Iterable[TensorInfo], stats: Mapping[str, TensorStats] | None
) -> EncodedRecords:
    """Each info's JSON record, with `stats[info.name]` as its `"stats"` when there is one
    (`stats` None: no stats entries), as `EncodedRecords` for the streaming writer."""

    def spell(info: TensorInfo) -> str:
        row = info.to_dict()
        found = None if stats is None else stats.get(info.name)
        if found is not None:
            row["stats"] = found.to_dict()
        return encode_record(row)

    columns = stats_columns(stats)
    if stats is not None and columns is None:  # a changed or foreign mapping: no columns to read
        return EncodedRecords(map(spell, infos))
    names, values = columns if columns is not None else (None, None)
    cursor = 0

    def write_chunk(chunk: list[TensorInfo], separator: str | None) -> str | list[str | None]:
        nonlocal cursor  # the stats row the next info may be: rows follow the tensors' order
        texts, cursor = _native.tensor_rows_json(
            chunk, TENSOR, names, values, STATS, cursor, separator
        )
        return texts

    return native_records(infos, write_chunk, spell)
