"""The one Python dtype table agrees with the Rust reader: every dtype it lists opens with the
size the table gives, and the torch_dtype names map to weight dtypes."""

from __future__ import annotations

import pytest

import eagle3_inspect
from eagle3_inspect.reader.dtypes import DTYPES, FLOAT_DTYPES, PACKED, from_torch_dtype
from eagle3_inspect.synthetic.writer import RawTensor, write_safetensors


@pytest.mark.parametrize("name", sorted(DTYPES))
def test_the_rust_reader_reads_every_dtype_with_the_tables_size(tmp_path, name):
    numel = 24  # a whole number of bytes for 4- and 6-bit types
    nbytes = numel * DTYPES[name].bits // 8
    path = tmp_path / "one.safetensors"
    write_safetensors(path, {"t": RawTensor(name, (numel,), bytes(nbytes))})
    ckpt = eagle3_inspect.open(path)
    assert ckpt.findings == [] or all(f.severity.value == "info" for f in ckpt.findings)
    info = ckpt.tensors["t"]
    assert (info.dtype, info.nbytes, info.is_float) == (name, nbytes, name in FLOAT_DTYPES)


def test_derived_sets():
    assert {"F4", "F6_E2M3", "F6_E3M2"} == PACKED
    assert {"BF16", "F16", "F32", "F8_E4M3"} <= FLOAT_DTYPES
    assert not {"I64", "BOOL", "C64", "U8"} & FLOAT_DTYPES


def test_torch_dtype_names():
    assert from_torch_dtype("bfloat16") == "BF16"
    assert from_torch_dtype("torch.float16") == "F16"
    assert from_torch_dtype("float32") == "F32"
    assert from_torch_dtype(None) is None and from_torch_dtype("int8") is None
