"""The native record writers (`records_json`, `tensor_rows_json`) write, byte for byte, what the
encoder writes of each record's `to_dict()`, or None (the Python way) - and None only for values
outside the plain types they spell, so the native way is the one a real report takes."""

from __future__ import annotations

import math
import sys

from hypothesis import example, given, settings
from hypothesis import strategies as st

from eagle3_inspect import _native
from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.jsontext import encode_record
from eagle3_inspect.reader.records_json import FINDING, STATS, TENSOR
from eagle3_inspect.reader.stats import TensorStats
from eagle3_inspect.reader.tensorinfo import TensorInfo

TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
PLAIN_TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
INT64 = st.integers(-(2**63), 2**64 - 1)
ODD = st.sampled_from([True, 2**70, -(2**64), 0.5, "7", None])
EDGE_FLOATS = [0.0, -0.0, 1e-4, 1e-5, 1e16, 9999999999999998.0, 5e-324, sys.float_info.max]
# Dyadic values with few fraction bits: where a float can sit exactly halfway between two
# shortest spellings (Python takes the even one), and large integers.
DYADIC = st.builds(lambda m, k: m * 2.0**k, st.integers(-(2**53), 2**53), st.integers(-30, 30))
FINITE = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(EDGE_FLOATS), DYADIC
)
ANY_FLOAT = st.one_of(st.floats(), st.none(), st.integers(-5, 5))


def _one_row(stats: TensorStats) -> dict[str, list | None]:
    """The columns `tensor_stats` gives for a pass over one tensor."""
    columns = {k: [getattr(stats, k)] for k in TensorStats.__dataclass_fields__}
    for k in ("int_min", "int_max", "int_sum", "true_count", "hash"):
        if columns[k] == [None]:
            columns[k] = None
    return columns


def rows_json(infos, names=None, columns=None, cursor=0, separator=None):
    return _native.tensor_rows_json(infos, TENSOR, names, columns, STATS, cursor, separator)


def findings_json(findings, separator=None):
    return _native.records_json(findings, FINDING, separator)


def row_json(info: TensorInfo, stats: TensorStats | None = None) -> str:
    """What the Python way writes for a scan row."""
    row = info.to_dict()
    if stats is not None:
        row["stats"] = stats.to_dict()
    return encode_record(row)


def _plain_float_stats(values: list[float], ints: list[int], hash_: str | None) -> TensorStats:
    return TensorStats("F32", *ints[:5], ints[5], *values, hash=hash_)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(FINITE, min_size=6, max_size=6),
    st.lists(st.integers(0, 2**63), min_size=6, max_size=6),
    st.one_of(st.none(), st.text("0123456789abcdef", max_size=32)),
    PLAIN_TEXT,
    st.lists(INT64, max_size=3).map(tuple),
)
@example([1e16, -1e-5, 0.1, 2.5, 1e-4, 123456789012345680.0], [4] * 6, None, "é\n😀", (2, 2))
@example([562949953421312.25, -92616078949.515625, 0.0, 0.0, 0.0, 0.0], [4] * 6, None, "t", ())
def test_plain_rows_are_written_natively_as_the_encoder_writes_them(
    values, ints, hash_, name, shape
) -> None:
    stats = _plain_float_stats(values, ints, hash_)
    info = TensorInfo(name, "F32", shape, 16, "dir/f.safetensors", 2**40)
    texts, cursor = rows_json([info], [name], _one_row(stats), 0)
    assert cursor == 1
    assert texts == [row_json(info, stats)]
    assert rows_json([info])[0] == [row_json(info)]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(ANY_FLOAT, min_size=6, max_size=6),
    st.lists(st.one_of(INT64, ODD), min_size=6, max_size=6),
    st.lists(st.one_of(st.none(), st.integers(-3, 3), ODD), min_size=4, max_size=4),
    st.tuples(TEXT, TEXT, st.one_of(INT64, ODD)),
)
def test_any_row_is_written_as_the_encoder_writes_it_or_left_to_python(
    values, ints, extras, text
) -> None:
    stats = TensorStats("F32", *ints[:5], ints[5], *values, *extras)
    name, file, offset = text
    info = TensorInfo(name, "F32", (2, 2), 16, file, offset)
    texts, _ = rows_json([info], [name], _one_row(stats), 0)
    if texts[0] is not None:
        assert texts[0] == row_json(info, stats)
    plain = all(v is None or (type(v) is float and math.isfinite(v)) for v in values) and all(
        type(v) is int and -(2**63) <= v < 2**64
        for v in [*ints, offset, *(e for e in extras if e is not None)]
    )
    if plain and _is_utf8(name) and _is_utf8(file):
        # Integer tensors' extras are spelled too (the old writer left them to Python).
        assert texts[0] is not None


def _is_utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def test_rows_take_the_stats_row_at_the_cursor_only() -> None:
    stats = [_plain_float_stats([float(i)] * 6, [4] * 6, None) for i in range(3)]
    columns = {k: [getattr(s, k) for s in stats] for k in TensorStats.__dataclass_fields__} | {
        k: None for k in ("int_min", "int_max", "int_sum", "true_count", "hash")
    }
    infos = [TensorInfo(n, "F32", (2, 2), 16, "f", 8) for n in ("a", "x", "b", "c")]
    texts, cursor = rows_json(infos, ["a", "b", "c"], columns, 0)
    assert cursor == 3
    # "x" is not the row at the cursor: left to Python, which looks it up by name.
    assert texts == [
        row_json(infos[0], stats[0]),
        None,
        row_json(infos[2], stats[1]),
        row_json(infos[3], stats[2]),
    ]


@settings(max_examples=500, deadline=None)
@given(
    st.sampled_from(list(Severity)),
    st.tuples(TEXT, TEXT, st.one_of(st.none(), TEXT), st.one_of(st.none(), TEXT)),
    st.one_of(st.none(), INT64, ODD),
    st.tuples(*[st.one_of(st.none(), TEXT, ODD)] * 3),
)
def test_findings_are_written_as_the_encoder_writes_them(severity, texts, offset, tail) -> None:
    code, message, file, tensor = texts
    f = Finding("TEST" + code, severity, message, file, tensor, offset, *tail)
    [text] = findings_json([f])
    if text is not None:
        assert text == encode_record(f.to_dict())
    strings = [code, message, file, tensor, *tail]
    plain_offset = offset is None or (type(offset) is int and -(2**63) <= offset < 2**64)
    if plain_offset and all(s is None or (type(s) is str and _is_utf8(s)) for s in strings):
        assert text is not None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, st.sampled_from(list(Severity))), min_size=1, max_size=6))
def test_fields_repeated_across_records_are_written_for_each_record(fields) -> None:
    # Each record's own values, whether or not the previous record held the same objects (the
    # writer escapes a repeated object once).
    findings = [Finding("TEST", s, "m", file, "t", 1, None, hint) for file, hint, s in fields]
    findings += findings[:2]
    texts = findings_json(findings)
    assert [t for t in texts if t is not None] == [
        f.to_json() for f, t in zip(findings, texts, strict=True) if t is not None
    ]
    infos = [TensorInfo("t", dtype, (1,), 4, file, 8) for file, dtype, _ in fields]
    texts, _ = rows_json(infos + infos[:2])
    assert [t for t in texts if t is not None] == [
        row_json(i) for i, t in zip(infos + infos[:2], texts, strict=True) if t is not None
    ]


def test_a_repeated_object_after_a_record_left_to_python_is_written_whole() -> None:
    """The writer copies a repeated object's text from where it last wrote it; a record left to
    Python is cut from the output, and what it wrote must not be copied from."""
    hint = "the same hint object"
    odd = Finding("TEST1", Severity.ERROR, "m", "f", "t", True, None, hint)  # bool offset
    plain = Finding("TEST1", Severity.ERROR, "m", "f", "t", 1, None, hint)
    assert findings_json([odd, plain, plain]) == [None, plain.to_json(), plain.to_json()]
    assert findings_json([plain, odd, plain], "|") == [plain.to_json(), None, plain.to_json()]


def test_with_a_separator_records_come_joined_unless_one_is_left_to_python() -> None:
    plain = [Finding("TEST1", Severity.ERROR, f"m{i}", "f", "t", i) for i in range(3)]
    odd = Finding("TEST2", Severity.INFO, "m", "f", "t", True)  # a bool offset: Python's way
    assert findings_json(plain, ",\n  ") == ",\n  ".join(f.to_json() for f in plain)
    assert findings_json([*plain, odd], ",\n  ") == [*(f.to_json() for f in plain), None]
    infos = [TensorInfo(f"t{i}", "F32", (2,), 8, "f", i) for i in range(3)]
    joined, cursor = rows_json(infos, None, None, 0, "|")
    assert (joined, cursor) == ("|".join(row_json(i) for i in infos), 0)
    assert findings_json([], ",") == ""


@settings(max_examples=3000, deadline=None)
@given(st.lists(FINITE, min_size=6, max_size=6))
def test_floats_are_spelled_as_repr(values) -> None:
    stats = _plain_float_stats(values, [4] * 6, None)
    info = TensorInfo("t", "F32", (2, 2), 16, "f", 8)
    [text], _ = rows_json([info], ["t"], _one_row(stats), 0)
    assert text == row_json(info, stats)
