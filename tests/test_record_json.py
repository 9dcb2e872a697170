"""Each per-tensor record's own JSON spelling (`to_json`) is, byte for byte, the encoder's text of
its `to_dict()`, for every value its fields can hold (and for odd ones, through the fallback)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eagle3_inspect.findings import Finding, Severity
from eagle3_inspect.jsontext import EncodedRecords, NotPlain, encode_record, json_scalar
from eagle3_inspect.reader.stats import TensorStats
from eagle3_inspect.reader.tensorinfo import TensorInfo

TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
ODD = st.sampled_from([True, np.int64(3), np.float32(0.5), 2**70, -0.0, [1], ("a",)])
INTS = st.one_of(st.integers(-(2**64), 2**64), ODD)
NUMBERS = st.sampled_from([True, np.int64(3), np.float32(0.5), np.float64(-0.0), 2**70])
# What TensorStats.to_dict can take in a float field: numbers of any kind, or None.
FLOATS = st.one_of(st.none(), st.floats(), st.integers(-(2**64), 2**64), NUMBERS)
OPT_TEXT = st.one_of(st.none(), TEXT, ODD)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(list(Severity)),
    st.tuples(TEXT, TEXT, OPT_TEXT, OPT_TEXT),
    st.one_of(st.none(), INTS),
    st.tuples(OPT_TEXT, OPT_TEXT, OPT_TEXT),
)
def test_finding_json_is_the_encoders(severity, texts, offset, tail) -> None:
    code, message, file, tensor = texts
    # A made-up code: the suite's check of every documented code's lines ignores it.
    f = Finding("TEST" + code, severity, message, file, tensor, offset, *tail)
    assert f.to_json() == encode_record(f.to_dict())


@settings(max_examples=400, deadline=None)
@given(
    st.tuples(TEXT, TEXT),
    st.lists(INTS, max_size=4).map(tuple),
    st.tuples(INTS, TEXT, INTS),
    st.one_of(st.none(), st.builds(lambda *v: TensorStats(*v), TEXT, *[INTS] * 6, *[FLOATS] * 6)),
)
def test_tensor_row_json_is_the_encoders(names, shape, rest, stats) -> None:
    nbytes, file, offset = rest
    info = TensorInfo(names[0], names[1], shape, nbytes, file, offset)
    row = info.to_dict()
    if stats is not None:
        if any(isinstance(v, float) and math.isnan(v) for v in stats.to_dict().values()):
            with pytest.raises(ValueError):  # NaN is refused either way (strict JSON)
                encode_record(stats.to_dict())
            return
        row["stats"] = stats.to_dict()
    assert info.to_json(None if stats is None else stats.to_json()) == encode_record(row)


@settings(max_examples=300, deadline=None)
@given(st.lists(FLOATS, min_size=5, max_size=5), st.lists(OPT_TEXT, min_size=5, max_size=5))
def test_stats_extras_json_is_the_encoders(extras, hash_and_more) -> None:
    s = TensorStats("F32", 4, 0, 0, 0, 4, 4, 0.0, -0.0, 1e-300, 1e300, 5e-324, math.inf, *extras)
    s = TensorStats(*[getattr(s, f) for f in TensorStats.__slots__[:-1]], hash_and_more[0])
    try:
        expected = encode_record(s.to_dict())
    except ValueError:  # a non-finite extra is refused by both (strict JSON)
        with pytest.raises(ValueError):
            s.to_json()
        return
    assert s.to_json() == expected


def test_scalars_outside_the_plain_types_are_refused_for_the_encoder() -> None:
    for value in (True, np.int64(1), math.inf, math.nan, [1], "x"[0:0] + "\ud800"):
        if isinstance(value, str):
            assert json_scalar(value) == encode_record(value)
            continue
        with pytest.raises(NotPlain):
            json_scalar(value)
    assert list(EncodedRecords(["{}"])) == ["{}"]


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.integers(0, 2**64), min_size=6, max_size=6),
    st.lists(st.floats(), min_size=6, max_size=6),
    st.one_of(st.none(), st.text(max_size=8)),
)
def test_float_tensor_stats_json_is_the_encoders(counts, floats, digest) -> None:
    """The usual record (exact ints, floats, a hash or none): -0.0, subnormals, overflowing
    sums and non-finite values included."""
    numel, nan, posinf, neginf, zeros, finite = counts
    s = TensorStats("BF16", numel, nan, posinf, neginf, zeros, finite, *floats, hash=digest)
    assert s.to_json() == encode_record(s.to_dict())  # non-finite ones as "inf", "-inf", "nan"
