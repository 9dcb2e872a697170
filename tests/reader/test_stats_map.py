"""`Checkpoint.stats()` is a read-only mapping (`StatsByName`) built from the pass's columns when
first read, the columns kept beside it; the scan rows written from the columns are the rows
written from the objects, for every mix of tensors the columns do and do not cover."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Mapping

import numpy as np
import pytest

import eagle3_inspect
from eagle3_inspect.commands.scan import scan
from eagle3_inspect.reader.stats import TensorStats
from eagle3_inspect.reader.stats_map import StatsByName, stats_columns
from tests.conftest import raw_tensors


def _file(tmp_path):
    f32 = lambda *v: np.array(v, dtype=np.float32).tobytes()  # noqa: E731
    return raw_tensors(
        tmp_path / "m.safetensors",
        {
            "a.weight": ("F32", (2,), f32(1.5, -2.0)),
            "b.weight": ("F32", (2,), f32(np.nan, np.inf)),  # non-finite: the Python way
            "c.ids": ("I64", (2,), np.array([3, -4], dtype=np.int64).tobytes()),
            "d.weight": ("F32", (0,), b""),
            "e.weight": ("BF16", (1,), b"\x80\x3f"),
        },
    )


def test_the_pass_is_a_read_only_mapping_built_when_first_read(tmp_path) -> None:
    ckpt = eagle3_inspect.open(_file(tmp_path))
    stats = ckpt.stats()
    assert type(stats) is StatsByName and isinstance(stats, Mapping)
    # Not a dict subclass: C code reading a dict's own table would see it unfilled.
    assert not isinstance(stats, dict)
    names, columns = stats_columns(stats)
    assert len(stats) == 5 and names == list(ckpt.tensors)
    assert columns["mean"][0] == stats["a.weight"].mean
    plain = dict(stats)
    assert type(plain) is dict and stats == plain and plain == stats
    # Every way of reading it sees every entry, whichever comes first.
    for read in (
        lambda s: dict(s),
        lambda s: {**s},
        lambda s: json.loads(json.dumps(dict(s), default=TensorStats.to_dict)),
        lambda s: copy.copy(s),
        lambda s: dict(s.items()),
        lambda s: dict(zip(s.keys(), s.values(), strict=True)),
        lambda s: {k: s[k] for k in list(s)},
        lambda s: {k: s.get(k) for k in plain if k in s},
        lambda s: s | {},
        lambda s: {} | s,
    ):
        fresh = ckpt.stats()
        assert len(fresh) == len(plain) and bool(fresh)
        assert read(fresh) in (plain, {k: v.to_dict() for k, v in plain.items()})
    assert type(pickle.loads(pickle.dumps(stats))) is dict
    assert pickle.loads(pickle.dumps(stats)) == plain
    with pytest.raises(TypeError):
        stats["x"] = None  # type: ignore[index]
    with pytest.raises(TypeError):
        hash(stats)


def test_dropping_tensors_gives_a_mapping_without_columns(tmp_path) -> None:
    stats = eagle3_inspect.open(_file(tmp_path)).stats()
    assert stats.without(["zz"]) is stats
    fewer = stats.without(["a.weight", "zz"])
    assert stats_columns(fewer) is None and "a.weight" not in fewer
    assert dict(fewer) == {k: v for k, v in stats.items() if k != "a.weight"}
    assert stats_columns(StatsByName.of({})) is None and len(StatsByName.of({})) == 0


def test_rows_from_columns_are_the_rows_from_objects(tmp_path) -> None:
    path = _file(tmp_path)
    for pattern in (None, "*.weight", "b*"):  # one matching nothing is refused (issue 24)
        report = scan(path, stats=True, filter=pattern, hashes=pattern == "*.weight")
        assert stats_columns(report.stats) is not None
        expected = [
            info.to_json(report.stats[info.name].to_dict() if info.name in report.stats else None)
            for info in report.tensors
        ]
        assert list(report._tensor_texts()) == expected
        # A changed mapping is written from its objects.
        report.stats = dict(report.stats)
        assert list(report._tensor_texts()) == expected
