"""`Checkpoint.stats()` keeps the pass's columns beside its dict (`StatsByName`) only while the
dict is unchanged; the scan rows written from them are the rows written from the objects, for
every mix of tensors the columns do and do not cover."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np

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


def test_the_pass_keeps_its_columns_until_the_dict_changes(tmp_path) -> None:
    ckpt = eagle3_inspect.open(_file(tmp_path))
    stats = ckpt.stats()
    assert type(stats) is StatsByName and isinstance(stats, dict)
    names, columns = stats_columns(stats)
    assert names == list(stats)
    assert columns["mean"][0] == stats["a.weight"].mean
    plain = dict(stats)
    assert stats == plain and plain == stats
    # Every way of reading it sees every entry, whichever comes first.
    for read in (
        lambda s: dict(s),
        lambda s: {**s},
        lambda s: json.loads(json.dumps(s, default=TensorStats.to_dict)),
        lambda s: copy.copy(s),
        lambda s: dict(s.items()),
        lambda s: {k: s[k] for k in list(s)},
    ):
        fresh = ckpt.stats()
        assert len(fresh) == len(plain) and bool(fresh)
        assert read(ckpt.stats()) in (plain, {k: v.to_dict() for k, v in plain.items()})
    assert type(pickle.loads(pickle.dumps(stats))) is dict
    assert pickle.loads(pickle.dumps(stats)) == plain
    for change in (
        lambda s: s.pop("a.weight"),
        lambda s: s.__setitem__("x", None),
        lambda s: s.update({}),
        lambda s: s.setdefault("a.weight"),
        lambda s: s.__delitem__("a.weight"),
        lambda s: s.clear(),
    ):
        changed = ckpt.stats()
        change(changed)
        assert stats_columns(changed) is None


def test_rows_from_columns_are_the_rows_from_objects(tmp_path) -> None:
    path = _file(tmp_path)
    for pattern in (None, "*.weight", "b*", "zz*"):
        report = scan(path, stats=True, filter=pattern, hashes=pattern == "*.weight")
        assert stats_columns(report.stats) is not None
        expected = [
            info.to_json(report.stats[info.name].to_json() if info.name in report.stats else None)
            for info in report.tensors
        ]
        assert list(report._tensor_texts()) == expected
        # A changed mapping is written from its objects.
        report.stats = dict(report.stats)
        assert list(report._tensor_texts()) == expected
