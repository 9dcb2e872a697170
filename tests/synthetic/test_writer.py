"""Differential tests of the safetensors writer against the `safetensors` package."""

from __future__ import annotations

import json
import os
import struct

import ml_dtypes
import numpy as np
import pytest
import safetensors
from hypothesis import given, settings
from hypothesis import strategies as st
from safetensors.numpy import load_file

import eagle3_inspect
from eagle3_inspect.synthetic.drafters import float_tensor
from eagle3_inspect.synthetic.writer import (
    RawTensor,
    numpy_dtype_to_st,
    write_safetensors,
    write_sharded,
)

NUMPY_DTYPES = [
    np.bool_,
    np.uint8,
    np.int8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
]
ML_DTYPES = {
    "BF16": ml_dtypes.bfloat16,
    "F8_E4M3": ml_dtypes.float8_e4m3fn,
    "F8_E5M2": ml_dtypes.float8_e5m2,
}


def _random(dtype, shape, rng):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return (rng.standard_normal(shape) * 100).astype(dtype)


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 5), (2, 0, 4), (2, 3, 4)])
def test_numpy_dtypes_round_trip_through_safetensors(tmp_path, dtype, shape):
    rng = np.random.default_rng(abs(hash((np.dtype(dtype).name, shape))) % 2**32)
    tensors = {"b": _random(dtype, shape, rng), "a": _random(dtype, (3,), rng)}
    path = tmp_path / "x.safetensors"
    write_safetensors(path, tensors, {"format": "pt", "k": "v"})
    loaded = load_file(str(path))
    assert sorted(loaded) == ["a", "b"]
    for name, array in tensors.items():
        assert loaded[name].dtype == array.dtype
        assert loaded[name].shape == array.shape
        np.testing.assert_array_equal(loaded[name], array)
    with safetensors.safe_open(str(path), framework="numpy") as handle:
        assert handle.metadata() == {"format": "pt", "k": "v"}
        np.testing.assert_array_equal(handle.get_tensor("b"), tensors["b"])


@pytest.mark.parametrize("st_dtype", sorted(ML_DTYPES))
def test_ml_dtypes_arrays_map_and_deserialize(tmp_path, st_dtype):
    rng = np.random.default_rng(1)
    array = rng.standard_normal((4, 6)).astype(ML_DTYPES[st_dtype])
    path = tmp_path / "m.safetensors"
    write_safetensors(path, {"w": array})
    (name, entry), *_ = safetensors.deserialize(path.read_bytes())
    assert name == "w"
    assert entry["dtype"] == st_dtype
    assert entry["shape"] == [4, 6]
    decoded = np.frombuffer(bytes(entry["data"]), dtype=ML_DTYPES[st_dtype]).reshape(4, 6)
    np.testing.assert_array_equal(decoded.astype(np.float32), array.astype(np.float32))


def test_bf16_bit_patterns_without_ml_dtypes_match_ml_dtypes_rounding(tmp_path):
    rng = np.random.default_rng(2)
    values = np.concatenate(
        [
            rng.standard_normal(2000).astype(np.float32) * 10,
            np.array([0.0, -0.0, 1.0, 1e-40, 3.0e38, -3.0e38, 1.00390625, 1.01171875], np.float32),
        ]
    )
    ours = float_tensor(values, "BF16")
    assert isinstance(ours, RawTensor) and ours.dtype == "BF16"
    reference = values.astype(ml_dtypes.bfloat16)
    assert ours.data == reference.tobytes()
    path = tmp_path / "bf.safetensors"
    write_safetensors(path, {"w": ours})
    (_, entry), *_ = safetensors.deserialize(path.read_bytes())
    assert entry["dtype"] == "BF16" and bytes(entry["data"]) == reference.tobytes()


def test_layout_is_padded_contiguous_and_name_ordered(tmp_path):
    tensors = {"zz": np.arange(3, dtype=np.int8), "aa": np.ones((2, 2), np.float32)}
    path = tmp_path / "o.safetensors"
    size = write_safetensors(path, tensors, {"a": "b"})
    data = path.read_bytes()
    assert size == len(data)
    (length,) = struct.unpack("<Q", data[:8])
    assert length % 8 == 0
    header = json.loads(data[8 : 8 + length])
    assert header["aa"]["data_offsets"] == [0, 16]
    assert header["zz"]["data_offsets"] == [16, 19]
    assert len(data) == 8 + length + 19
    text = data[8 : 8 + length].decode()
    assert text.rstrip(" ").endswith("}")
    assert len(text) - len(text.rstrip(" ")) < 8


def test_big_endian_input_is_written_little_endian(tmp_path):
    array = np.arange(6, dtype=">i4").reshape(2, 3)
    path = tmp_path / "be.safetensors"
    write_safetensors(path, {"x": array})
    np.testing.assert_array_equal(load_file(str(path))["x"], array.astype("<i4"))


def test_written_offsets_match_safetensors(tmp_path):
    tensors = {f"t{i}": np.full((i + 1, 3), i, np.float32) for i in range(5)}
    path = tmp_path / "h.safetensors"
    write_safetensors(path, tensors)
    infos = eagle3_inspect.open(path).tensors
    raw = path.read_bytes()
    reference = dict(safetensors.deserialize(raw))
    for name, info in infos.items():
        assert info.dtype == reference[name]["dtype"]
        assert list(info.shape) == reference[name]["shape"]
        assert raw[info.offset : info.offset + info.nbytes] == bytes(reference[name]["data"])


def test_atomic_write_leaves_no_temp_and_refuses_to_overwrite_inputs(tmp_path):
    path = tmp_path / "in.safetensors"
    write_safetensors(path, {"x": np.arange(8, dtype=np.float32)})
    assert [p.name for p in tmp_path.iterdir()] == ["in.safetensors"]
    start = eagle3_inspect.open(path).tensors["x"].offset
    mapped = np.memmap(path, dtype=np.float32, mode="r", offset=start, shape=(8,))
    before = path.read_bytes()
    with pytest.raises(ValueError, match="refusing to overwrite"):
        write_safetensors(path, {"x": mapped})
    with pytest.raises(ValueError, match="refusing to overwrite"):
        write_safetensors(path, {"y": np.zeros(2)}, inputs=(str(path),))
    assert path.read_bytes() == before
    write_safetensors(tmp_path / "out.safetensors", {"x": mapped})
    np.testing.assert_array_equal(load_file(str(tmp_path / "out.safetensors"))["x"], mapped)
    assert not [p for p in os.listdir(tmp_path) if ".tmp-" in p]


def test_raw_tensor_validates_length_and_dtype():
    with pytest.raises(ValueError):
        RawTensor("BF16", (3,), b"\x00" * 5)
    with pytest.raises(ValueError):
        RawTensor("BF17", (1,), b"\x00\x00")
    assert RawTensor("F4", (4,), b"\x00\x00").nbytes == 2
    with pytest.raises(ValueError):
        numpy_dtype_to_st(np.dtype("datetime64[s]"))


@pytest.mark.parametrize("shard_of", [3, lambda name: int(name[1]) % 2])
def test_sharded_write_index_and_shards_load(tmp_path, shard_of):
    rng = np.random.default_rng(3)
    tensors = {f"w{i}": rng.standard_normal((i + 1, 4)).astype(np.float32) for i in range(7)}
    paths = write_sharded(tmp_path, tensors, shard_of)
    index = json.loads((tmp_path / "model.safetensors.index.json").read_text())
    n = len(paths)
    assert [p.name for p in paths] == [
        f"model-{i:05d}-of-{n:05d}.safetensors" for i in range(1, n + 1)
    ]
    assert index["metadata"]["total_size"] == sum(a.nbytes for a in tensors.values())
    assert sorted(index["weight_map"]) == sorted(tensors)
    for name, array in tensors.items():
        loaded = load_file(str(tmp_path / index["weight_map"][name]))
        np.testing.assert_array_equal(loaded[name], array)


_names = st.text(alphabet="abcdefghij._0123456789", min_size=1, max_size=12)
_arrays = st.tuples(
    st.sampled_from(NUMPY_DTYPES), st.lists(st.integers(0, 4), max_size=3), st.integers(0, 99)
)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(_names, _arrays, min_size=1, max_size=6))
def test_random_checkpoints_round_trip(tmp_path_factory, spec):
    tensors = {
        name: _random(dtype, tuple(shape), np.random.default_rng(seed))
        for name, (dtype, shape, seed) in spec.items()
    }
    path = tmp_path_factory.mktemp("h") / "r.safetensors"
    write_safetensors(path, tensors)
    loaded = load_file(str(path))
    assert sorted(loaded) == sorted(tensors)
    for name, array in tensors.items():
        np.testing.assert_array_equal(loaded[name], array)
        assert loaded[name].dtype == array.dtype
