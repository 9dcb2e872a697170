"""Differential test against the `safetensors` Python package: on valid files and random
mutations of them, the reference accepts exactly when we report no ST error (duplicate names,
which the format forbids but the reference cannot see, excepted)."""

from __future__ import annotations

import json
import struct

import numpy as np
import safetensors
import safetensors.numpy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eagle3_inspect
from eagle3_inspect.findings import Severity

DTYPES = [np.float32, np.float16, np.int64, np.uint8, np.int32, np.bool_, np.float64]


def reference_accepts(path) -> bool:
    try:
        with safetensors.safe_open(str(path), framework="numpy") as f:
            for name in sorted(f.keys()):
                f.get_slice(name).get_shape()
        return True
    except Exception:
        return False


def our_errors(path) -> list:
    try:
        ckpt = eagle3_inspect.open(path)
    except eagle3_inspect.errors.InspectError as exc:  # e.g. nothing to inspect
        return [exc]
    return [f for f in ckpt.findings if f.severity is Severity.ERROR]


@st.composite
def files(draw):
    n = draw(st.integers(0, 4))
    arrays = {}
    for i in range(n):
        dtype = draw(st.sampled_from(DTYPES))
        shape = draw(st.lists(st.integers(0, 4), max_size=3))
        arrays[f"t{i}"] = np.zeros(shape, dtype=dtype)
    return arrays


@st.composite
def mutations(draw):
    kind = draw(st.sampled_from(["none", "truncate", "append", "flip", "header_edit"]))
    return kind, draw(st.integers(0, 2**31)), draw(st.integers(1, 255))


def apply(blob: bytes, mutation) -> bytes:
    kind, where, value = mutation
    if kind == "truncate":
        return blob[: where % (len(blob) + 1)]
    if kind == "append":
        return blob + bytes(value % 9 + 1)
    if kind == "flip":
        i = where % len(blob)
        return blob[:i] + bytes([blob[i] ^ value]) + blob[i + 1 :]
    if kind == "header_edit":
        (n,) = struct.unpack("<Q", blob[:8])
        header = json.loads(blob[8 : 8 + n])
        names = [k for k in header if k != "__metadata__"]
        if names:
            entry = header[names[where % len(names)]]
            field = ["data_offsets", "shape", "dtype"][value % 3]
            if field == "data_offsets":
                entry[field][where % 2] += value % 5 - 2
            elif field == "shape":
                entry[field] = [*entry[field], value % 3]
            else:
                entry[field] = ["F32", "BF16", "I8", "X9"][value % 4]
        text = json.dumps(header)
        return struct.pack("<Q", len(text)) + text.encode() + blob[8 + n :]
    return blob


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(arrays=files(), mutation=mutations())
def test_acceptance_matches_the_reference(tmp_path, arrays, mutation):
    path = tmp_path / "x.safetensors"
    path.write_bytes(apply(safetensors.numpy.save(arrays), mutation))
    errors = our_errors(path)
    codes = {getattr(e, "code", None) for e in errors}
    if reference_accepts(path):
        assert "ST007" in codes or errors == [], errors
    else:
        assert errors, "the reference rejects this file but we report no error"
