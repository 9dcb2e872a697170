"""Each per-tensor record's JSON object (`to_dict()`, from its class's `Shape`) is the one the
schemas document: the same keys, order and values as the hand-written `to_dict`s it replaced
(copied below as the reference), for every value its fields can hold."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.jsontext import EncodedRecords, encode_record
from eagle3_inspect.reader.stats import JSON_FIELDS, TensorStats
from eagle3_inspect.reader.tensorinfo import TensorInfo
from eagle3_inspect.records import Kind, shape_of

TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
ODD = st.sampled_from([True, np.int64(3), np.float32(0.5), 2**70, -0.0, [1], ("a",)])
INTS = st.one_of(st.integers(-(2**64), 2**64), ODD)
NUMBERS = st.sampled_from([True, np.int64(3), np.float32(0.5), np.float64(-0.0), 2**70])
FLOATS = st.one_of(st.none(), st.floats(), st.integers(-(2**64), 2**64), NUMBERS)
OPT_TEXT = st.one_of(st.none(), TEXT, ODD)


def finding_reference(f: Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "severity": f.severity.value,
        "message": f.message,
        "file": f.file,
        "tensor": f.tensor,
        "offset": f.offset,
        "config_key": f.config_key,
        "hint": f.hint,
        "engine": f.engine,
    }


def tensor_reference(t: TensorInfo) -> dict[str, Any]:
    return {
        "name": t.name,
        "dtype": t.dtype,
        "shape": list(t.shape),
        "nbytes": t.nbytes,
        "file": t.file,
        "offset": t.offset,
    }


def _json_float(value: Any) -> Any:
    if not isinstance(value, float) or math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else {math.inf: "inf", -math.inf: "-inf"}[value]


def stats_reference(s: TensorStats) -> dict[str, Any]:
    ordered = {k: getattr(s, k) for k in JSON_FIELDS}
    for k in ("min", "max", "mean", "std", "abs_max", "l2"):
        v = ordered[k]
        if v is not None and not -math.inf < v < math.inf:
            ordered[k] = _json_float(v)
    for k in ("finite", "int_min", "int_max", "int_sum", "true_count", "hash"):
        if getattr(s, k) is not None:
            ordered[k] = getattr(s, k)
    return ordered


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal keys in the same order and values of the same type (NaN equal to NaN)."""
    if list(a) != list(b):
        return False
    for x, y in zip(a.values(), b.values(), strict=True):
        nan = isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y)
        if type(x) is not type(y) or not (nan or x == y):
            return False
    return True


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(list(Severity)),
    st.tuples(TEXT, TEXT, OPT_TEXT, OPT_TEXT),
    st.one_of(st.none(), INTS),
    st.tuples(OPT_TEXT, OPT_TEXT, OPT_TEXT),
)
def test_finding_dict_is_the_documented_one(severity, texts, offset, tail) -> None:
    code, message, file, tensor = texts
    # A made-up code: the suite's check of every documented code's lines ignores it.
    f = Finding("TEST" + code, severity, message, file, tensor, offset, *tail)
    assert same(f.to_dict(), finding_reference(f))
    assert f.to_json() == encode_record(finding_reference(f))


@settings(max_examples=400, deadline=None)
@given(
    st.tuples(TEXT, TEXT),
    st.lists(INTS, max_size=4).map(tuple),
    st.tuples(INTS, TEXT, INTS),
    st.one_of(st.none(), st.builds(lambda *v: TensorStats(*v), TEXT, *[INTS] * 6, *[FLOATS] * 6)),
)
def test_tensor_row_dicts_are_the_documented_ones(names, shape, rest, stats) -> None:
    nbytes, file, offset = rest
    info = TensorInfo(names[0], names[1], shape, nbytes, file, offset)
    assert same(info.to_dict(), tensor_reference(info))
    if stats is not None:
        assert same(stats.to_dict(), stats_reference(stats))


@settings(max_examples=300, deadline=None)
@given(st.lists(FLOATS, min_size=5, max_size=5), st.lists(OPT_TEXT, min_size=5, max_size=5))
def test_stats_extras_are_set_only_when_present(extras, hash_and_more) -> None:
    s = TensorStats("F32", 4, 0, 0, 0, 4, 4, 0.0, -0.0, 1e-300, 1e300, 5e-324, math.inf, *extras)
    s = TensorStats(*[getattr(s, f) for f in TensorStats.__slots__[:-1]], hash_and_more[0])
    assert same(s.to_dict(), stats_reference(s))


def test_shapes_are_derived_from_the_dataclass_fields() -> None:
    from eagle3_inspect.reader.stats import SHAPE

    assert [name for name, _, _ in SHAPE.fields] == [
        *JSON_FIELDS,
        "finite",
        "int_min",
        "int_max",
        "int_sum",
        "true_count",
        "hash",
    ]
    assert dict((n, k) for n, k, _ in shape_of(Finding).fields)["severity"] is Kind.ENUM
    assert list(EncodedRecords(["{}"])) == ["{}"]


def test_a_field_of_an_unknown_kind_is_refused() -> None:
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class Odd:
        values: list[int]

    try:
        shape_of(Odd)
    except TypeError as exc:
        assert "values" in str(exc)
    else:
        raise AssertionError("a list field has no JSON kind and must be refused")
