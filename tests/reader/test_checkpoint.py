"""The Python Checkpoint API against the safetensors reference: layouts, tensor views, errors."""

from __future__ import annotations

import json
import pickle

import ml_dtypes
import numpy as np
import pytest
import safetensors.numpy

import eagle3_inspect
from eagle3_inspect.errors import (
    CheckpointNotFoundError,
    InspectError,
    InvalidCheckpointError,
    TensorNotFoundError,
)
from tests.hf_cache import hf_cache_repo

ARRAYS = {
    "bool": np.array([True, False, True]),
    "u8": np.arange(5, dtype=np.uint8),
    "i8": np.arange(-3, 3, dtype=np.int8),
    "i16": np.arange(6, dtype=np.int16).reshape(2, 3),
    "u16": np.arange(6, dtype=np.uint16),
    "i32": np.arange(6, dtype=np.int32),
    "u32": np.arange(6, dtype=np.uint32),
    "i64": np.arange(6, dtype=np.int64) - 3,
    "u64": np.arange(6, dtype=np.uint64),
    "f16": np.linspace(-1, 1, 7).astype(np.float16),
    "f32": np.linspace(-1, 1, 12).astype(np.float32).reshape(3, 4),
    "f64": np.linspace(-1, 1, 5),
    "bf16": np.linspace(-2, 2, 9).astype(ml_dtypes.bfloat16),
    "f8e4m3": np.linspace(-2, 2, 9).astype(ml_dtypes.float8_e4m3fn),
    "f8e5m2": np.linspace(-2, 2, 9).astype(ml_dtypes.float8_e5m2),
    "scalar": np.array(3.5, dtype=np.float32),
    "empty": np.zeros((0, 4), dtype=np.float32),
}


@pytest.fixture
def single(tmp_path):
    path = tmp_path / "model.safetensors"
    safetensors.numpy.save_file(ARRAYS, str(path), metadata={"format": "np"})
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 8}))
    return path


def test_tensors_match_the_reference_reader(single):
    ckpt = eagle3_inspect.open(single)
    assert ckpt.findings == []
    assert ckpt.metadata == {"format": "np"}
    assert ckpt.config == {"hidden_size": 8}
    with safetensors.safe_open(str(single), framework="numpy") as ref:
        assert sorted(ref.keys()) == sorted(ckpt.tensors)
        for name in sorted(ref.keys()):
            # The reference's numpy path cannot build fp8 arrays; its slice metadata still can.
            ref_slice = ref.get_slice(name)
            expected = ARRAYS[name]
            got = ckpt.tensor(name)
            assert got.dtype == expected.dtype, name
            assert got.shape == expected.shape == tuple(ref_slice.get_shape()), name
            assert got.tobytes() == expected.tobytes(), name
            assert ckpt.tensors[name].nbytes == expected.nbytes


def test_tensor_is_a_read_only_zero_copy_view(single):
    ckpt = eagle3_inspect.open(single)
    a = ckpt.tensor("f32")
    b = ckpt.tensor("f32")
    assert not a.flags.writeable
    assert a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
    with pytest.raises(ValueError):
        a[0, 0] = 1.0


def test_view_outlives_the_checkpoint_object(single):
    view = eagle3_inspect.open(single).tensor("f64")
    assert view.tolist() == ARRAYS["f64"].tolist()


def test_directory_and_file_paths_are_equivalent(single):
    by_dir = eagle3_inspect.open(single.parent)
    by_file = eagle3_inspect.open(single)
    assert by_dir.tensors == by_file.tensors


def test_sharded_directory(tmp_path):
    shard_of = {}
    for i, names in enumerate([["a", "b"], ["c"]]):
        file = f"model-0000{i + 1}-of-00002.safetensors"
        arrays = {n: np.full((2, 2), i, dtype=np.float32) for n in names}
        safetensors.numpy.save_file(arrays, str(tmp_path / file))
        shard_of.update(dict.fromkeys(names, file))
    index = {"metadata": {"total_size": 48}, "weight_map": shard_of}
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index))
    ckpt = eagle3_inspect.open(tmp_path)
    assert sorted(ckpt.tensors) == ["a", "b", "c"]
    assert ckpt.findings == []
    assert ckpt.tensor("c").tolist() == [[1, 1], [1, 1]]
    assert ckpt.tensors["c"].file.endswith("model-00002-of-00002.safetensors")


def test_hugging_face_cache_layout(tmp_path):
    weights = tmp_path / "weights.safetensors"
    safetensors.numpy.save_file({"w": np.ones(3, dtype=np.float32)}, str(weights))
    repo = hf_cache_repo(tmp_path, {"model.safetensors": weights})
    snap = repo / "snapshots" / "abc123"
    assert (snap / "model.safetensors").is_symlink()
    for path in (repo, snap):
        ckpt = eagle3_inspect.open(path)
        assert list(ckpt.tensors) == ["w"]
        assert ckpt.tensor("w").tolist() == [1, 1, 1]
        assert ckpt.findings == []


def test_missing_path_is_file_not_found_and_picklable(tmp_path):
    with pytest.raises(CheckpointNotFoundError) as info:
        eagle3_inspect.open(tmp_path / "nope")
    err = info.value
    assert isinstance(err, FileNotFoundError)
    assert isinstance(err, InspectError)
    assert err.filename == str(tmp_path / "nope")
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is type(err)
    assert str(again) == str(err)


def test_unknown_tensor_is_key_error(single):
    ckpt = eagle3_inspect.open(single)
    with pytest.raises(TensorNotFoundError) as info:
        ckpt.tensor("nope")
    assert isinstance(info.value, KeyError)
    assert pickle.loads(pickle.dumps(info.value)).args == info.value.args


def test_directory_without_weights_is_invalid(tmp_path):
    with pytest.raises(InvalidCheckpointError):
        eagle3_inspect.open(tmp_path)


def test_bf16_without_ml_dtypes_explains_how_to_get_it(single, monkeypatch):
    import builtins

    from eagle3_inspect.errors import MissingDependencyError

    real_import = builtins.__import__

    def no_ml_dtypes(name, *args, **kwargs):
        if name == "ml_dtypes":
            raise ImportError("no ml_dtypes")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ml_dtypes)
    ckpt = eagle3_inspect.open(single)
    with pytest.raises(MissingDependencyError, match="pip install"):
        ckpt.tensor("bf16")
    assert ckpt.tensor("f32").shape == (3, 4)


def test_finding_to_dict_lists_every_field_in_declaration_order() -> None:
    from dataclasses import fields

    from eagle3_inspect.findings import Finding, Severity

    f = Finding("ST001", Severity.WARNING, "m", "f", "t", 3, "k", "h", "e")
    data = f.to_dict()
    assert list(data) == [x.name for x in fields(Finding)]
    assert data["severity"] == "warning"
    assert [data[x.name] for x in fields(Finding) if x.name != "severity"] == [
        "ST001",
        "m",
        "f",
        "t",
        3,
        "k",
        "h",
        "e",
    ]


def test_tensor_stats_to_dict_keys_follow_json_fields_then_the_set_extras() -> None:
    import math

    from eagle3_inspect.reader.stats import JSON_FIELDS, TensorStats

    extra_fields = ("finite", "int_min", "int_max", "int_sum", "true_count", "hash")

    extras = {"int_min": -1, "int_max": 2, "int_sum": 5, "true_count": 1, "hash": "ab"}
    s = TensorStats("I64", 4, 0, 0, 0, 1, 4, -1.0, 2.0, 0.5, 1.0, 2.0, math.inf, **extras)
    data = s.to_dict()
    assert list(data) == [*JSON_FIELDS, *extra_fields]
    assert data["l2"] == "inf" and data["min"] == -1.0 and data["hash"] == "ab"
    bare = TensorStats("F32", 0, 0, 0, 0, 0, 0, None, None, None, None, None, None)
    assert list(bare.to_dict()) == [*JSON_FIELDS, "finite"]


def test_native_stats_columns_are_name_then_the_tensor_stats_fields(tmp_path) -> None:
    from dataclasses import fields

    import safetensors.numpy

    import eagle3_inspect
    from eagle3_inspect import _native
    from eagle3_inspect.reader.stats import TensorStats

    path = tmp_path / "m.safetensors"
    arrays = {"a": np.arange(6, dtype=np.int64), "b": np.ones(3, dtype=np.float32)}
    safetensors.numpy.save_file(arrays, str(path))
    ckpt = eagle3_inspect.open(path)
    columns = _native.tensor_stats(ckpt._native, ["b", "a"], hashes=True)
    assert list(columns) == ["name", *(f.name for f in fields(TensorStats))]
    assert columns["name"] == ["b", "a"] and columns["int_sum"] == [None, 15]
    stats = ckpt.stats(hashes=True)
    assert list(stats) == ["a", "b"] and stats["a"].int_sum == 15 and stats["b"].mean == 1.0
    assert stats["a"].hash == columns["hash"][1] and len(stats["b"].hash) == 32


def test_native_stats_of_every_readable_tensor_have_no_name_column_and_none_columns(
    tmp_path,
) -> None:
    import safetensors.numpy

    import eagle3_inspect
    from eagle3_inspect import _native

    path = tmp_path / "m.safetensors"
    arrays = {"b": np.ones(3, dtype=np.float32), "a": np.zeros(2, dtype=np.float32)}
    safetensors.numpy.save_file(arrays, str(path))
    ckpt = eagle3_inspect.open(path)
    columns = _native.tensor_stats(ckpt._native)
    assert "name" not in columns and columns["numel"] == [2, 3]  # name order
    # Only float tensors and no hashes: the integer and hash columns cross as one None each.
    assert columns["int_sum"] is None and columns["true_count"] is None and columns["hash"] is None
    assert columns["mean"] == [0.0, 1.0]
    stats = ckpt.stats()
    assert list(stats) == ["a", "b"] and stats["b"].int_sum is None and stats["b"].mean == 1.0
    assert stats == ckpt.stats(["a", "b"])
