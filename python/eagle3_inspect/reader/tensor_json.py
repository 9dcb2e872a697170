"""The `tensors` rows of `scan --json` (a TensorInfo's record with its statistics) written by the
native writer from the stats pass's columns, a chunk at a time, byte for byte as
`TensorInfo.to_json(TensorStats.to_json())` writes each; a row the native writer does not spell
(a value of another type, a non-finite or missing statistic, an integer tensor's extras, stats
not in the pass's order) is written that Python way."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from eagle3_inspect import _native
from eagle3_inspect.jsontext import EncodedRecords, native_records
from eagle3_inspect.reader.stats import TensorStats
from eagle3_inspect.reader.stats_map import stats_columns
from eagle3_inspect.reader.tensorinfo import TensorInfo


def tensor_texts(
    infos: Iterable[TensorInfo], stats: Mapping[str, TensorStats] | None
) -> EncodedRecords:
    """`TensorInfo.to_json()` of each info, with `stats[info.name]` as its `"stats"` when there
    is one (`stats` None: no stats entries), as `EncodedRecords` for the streaming writer."""

    def spell(info: TensorInfo) -> str:
        found = None if stats is None else stats.get(info.name)
        return info.to_json(None if found is None else found.to_json())

    columns = stats_columns(stats)
    if stats is not None and columns is None:  # a changed or foreign mapping: no columns to read
        return EncodedRecords(map(spell, infos))
    names, values = columns if columns is not None else (None, None)
    cursor = 0

    def write_chunk(chunk: list[TensorInfo], separator: str | None) -> str | list[str | None]:
        nonlocal cursor  # the stats row the next info may be: rows follow the tensors' order
        texts, cursor = _native.tensor_records_json(chunk, names, values, cursor, separator)
        return texts

    return native_records(infos, write_chunk, spell)
